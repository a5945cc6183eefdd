#include "reference/pickle/text.h"

#include <cstdint>
#include <cstring>

namespace serialcheck::pickle {

namespace {

constexpr char kHexLower[] = "0123456789abcdef";

int hex_value(unsigned char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool is_cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// Length of the well-formed (surrogatepass) sequence at s[i], 0 when malformed.
// Follows the table of well-formed UTF-8 byte sequences (Unicode 3.9, D92),
// with ED A0..BF allowed as well: those are the surrogates.
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  const std::size_t left = s.size() - i;
  if (b0 < 0x80) return 1;
  if (b0 < 0xC2) return 0;  // continuation byte or overlong 2-byte lead
  if (b0 < 0xE0) {
    return left >= 2 && is_cont(static_cast<unsigned char>(s[i + 1])) ? 2 : 0;
  }
  if (b0 < 0xF0) {
    if (left < 3) return 0;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    const auto b2 = static_cast<unsigned char>(s[i + 2]);
    if (!is_cont(b1) || !is_cont(b2)) return 0;
    if (b0 == 0xE0 && b1 < 0xA0) return 0;  // overlong
    return 3;
  }
  if (b0 < 0xF5) {
    if (left < 4) return 0;
    const auto b1 = static_cast<unsigned char>(s[i + 1]);
    if (!is_cont(b1) || !is_cont(static_cast<unsigned char>(s[i + 2])) ||
        !is_cont(static_cast<unsigned char>(s[i + 3]))) {
      return 0;
    }
    if (b0 == 0xF0 && b1 < 0x90) return 0;   // overlong
    if (b0 == 0xF4 && b1 >= 0x90) return 0;  // above U+10FFFF
    return 4;
  }
  return 0;
}

void append_utf8(std::string& out, char32_t cp) {
  if (cp < 0x80) {
    out += static_cast<char>(cp);
  } else if (cp < 0x800) {
    out += static_cast<char>(0xC0 | (cp >> 6));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else if (cp < 0x10000) {
    out += static_cast<char>(0xE0 | (cp >> 12));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  } else {
    out += static_cast<char>(0xF0 | (cp >> 18));
    out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
    out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
    out += static_cast<char>(0x80 | (cp & 0x3F));
  }
}

char32_t decode_at(std::string_view s, std::size_t i, std::size_t len) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  switch (len) {
    case 1: return b(0);
    case 2: return (char32_t(b(0) & 0x1F) << 6) | (b(1) & 0x3F);
    case 3: return (char32_t(b(0) & 0x0F) << 12) | (char32_t(b(1) & 0x3F) << 6) | (b(2) & 0x3F);
    default:
      return (char32_t(b(0) & 0x07) << 18) | (char32_t(b(1) & 0x3F) << 12) |
             (char32_t(b(2) & 0x3F) << 6) | (b(3) & 0x3F);
  }
}

}  // namespace

bool valid_utf8_surrogatepass(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    // Fast path over ASCII runs, eight bytes at a time: most payloads are
    // mostly ASCII.
    while (s.size() - i >= 8) {
      std::uint64_t word;
      std::memcpy(&word, s.data() + i, 8);
      if ((word & 0x8080808080808080ull) != 0) break;
      i += 8;
    }
    if (i >= s.size()) break;
    if (static_cast<unsigned char>(s[i]) < 0x80) {
      ++i;
      continue;
    }
    const std::size_t len = sequence_length(s, i);
    if (len == 0) return false;
    i += len;
  }
  return true;
}

std::u32string decode_utf8_surrogatepass(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) {
    std::size_t len = sequence_length(s, i);
    if (len == 0) len = 1;  // precondition broken: degrade byte-wise, never overrun
    out += decode_at(s, i, len);
    i += len;
  }
  return out;
}

std::string encode_utf8_surrogatepass(std::u32string_view s) {
  std::string out;
  out.reserve(s.size());
  for (char32_t cp : s) append_utf8(out, cp);
  return out;
}

std::string raw_unicode_escape_encode(std::string_view utf8) {
  std::string out;
  out.reserve(utf8.size());
  std::size_t i = 0;
  while (i < utf8.size()) {
    std::size_t len = sequence_length(utf8, i);
    if (len == 0) len = 1;
    const char32_t cp = decode_at(utf8, i, len);
    i += len;
    if (cp >= 0x10000) {
      out += "\\U";
      for (int shift = 28; shift >= 0; shift -= 4) out += kHexLower[(cp >> shift) & 0xF];
    } else if (cp >= 0x100 || cp == '\\' || cp == 0 || cp == '\n' || cp == '\r' || cp == 0x1A) {
      // Backslash and line ends must not appear raw: the argument is one
      // line, and a raw backslash would start an escape on the way back.
      out += "\\u";
      for (int shift = 12; shift >= 0; shift -= 4) out += kHexLower[(cp >> shift) & 0xF];
    } else {
      out += static_cast<char>(cp);  // latin-1
    }
  }
  return out;
}

std::optional<std::string> raw_unicode_escape_decode(std::string_view in) {
  std::string out;
  out.reserve(in.size());
  std::size_t i = 0;
  while (i < in.size()) {
    const auto c = static_cast<unsigned char>(in[i++]);
    if (c != '\\' || i == in.size()) {
      append_utf8(out, c);
      continue;
    }
    const char kind = in[i];
    if (kind != 'u' && kind != 'U') {
      // Not an escape: both characters stand for themselves, so a doubled
      // backslash keeps the next one from starting an escape.
      out += '\\';
      append_utf8(out, static_cast<unsigned char>(kind));
      ++i;
      continue;
    }
    ++i;
    const std::size_t digits = kind == 'u' ? 4 : 8;
    if (in.size() - i < digits) return std::nullopt;
    std::uint32_t cp = 0;
    for (std::size_t k = 0; k < digits; ++k) {
      const int h = hex_value(static_cast<unsigned char>(in[i + k]));
      if (h < 0) return std::nullopt;
      cp = (cp << 4) | static_cast<std::uint32_t>(h);
    }
    if (cp > 0x10FFFF) return std::nullopt;
    i += digits;
    append_utf8(out, cp);
  }
  return out;
}

std::optional<std::string> string_literal_decode(std::string_view quoted) {
  // The outermost quotes must match; quotes inside are not checked, as
  // CPython does not check them either.
  if (quoted.size() < 2 || quoted.front() != quoted.back() ||
      (quoted.front() != '\'' && quoted.front() != '"')) {
    return std::nullopt;
  }
  const std::string_view in = quoted.substr(1, quoted.size() - 2);
  std::string out;
  out.reserve(in.size());
  std::size_t i = 0;
  while (i < in.size()) {
    const char c = in[i++];
    if (c != '\\') {
      out += c;
      continue;
    }
    if (i == in.size()) return std::nullopt;  // trailing backslash
    const char e = in[i++];
    switch (e) {
      case '\n': break;  // line continuation
      case '\\': out += '\\'; break;
      case '\'': out += '\''; break;
      case '"': out += '"'; break;
      case 'a': out += '\a'; break;
      case 'b': out += '\b'; break;
      case 'f': out += '\f'; break;
      case 'n': out += '\n'; break;
      case 'r': out += '\r'; break;
      case 't': out += '\t'; break;
      case 'v': out += '\v'; break;
      case '0':
      case '1':
      case '2':
      case '3':
      case '4':
      case '5':
      case '6':
      case '7': {
        // Up to three octal digits; the value wraps to a byte as CPython's does.
        unsigned v = static_cast<unsigned>(e - '0');
        for (int k = 0; k < 2 && i < in.size() && in[i] >= '0' && in[i] <= '7'; ++k) {
          v = v * 8 + static_cast<unsigned>(in[i++] - '0');
        }
        out += static_cast<char>(v & 0xFF);
        break;
      }
      case 'x': {
        if (in.size() - i < 2) return std::nullopt;
        const int hi = hex_value(static_cast<unsigned char>(in[i]));
        const int lo = hex_value(static_cast<unsigned char>(in[i + 1]));
        if (hi < 0 || lo < 0) return std::nullopt;
        out += static_cast<char>(hi * 16 + lo);
        i += 2;
        break;
      }
      default:
        // Unknown escapes stay as written, backslash included.
        out += '\\';
        out += e;
        break;
    }
  }
  return out;
}

}  // namespace serialcheck::pickle
