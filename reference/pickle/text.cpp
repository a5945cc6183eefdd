#include "reference/pickle/text.h"

#include <cstdint>

#include "reference/common/hex.h"

namespace serialcheck::pickle {

std::string raw_unicode_escape_encode(std::string_view utf8, bool escape_cr_nul_sub) {
  std::string out;
  out.reserve(utf8.size());
  std::size_t i = 0;
  while (i < utf8.size()) {
    const char32_t cp = utf8_next_code_point(utf8, i);
    if (cp >= 0x10000) {
      out += "\\U";
      append_hex_digits(out, cp, 8);
    } else if (cp >= 0x100 || cp == '\\' || cp == '\n' ||
               (escape_cr_nul_sub && (cp == 0 || cp == '\r' || cp == 0x1A))) {
      // Backslash and line ends must not appear raw: the argument is one
      // line, and a raw backslash would start an escape on the way back.
      out += "\\u";
      append_hex_digits(out, cp, 4);
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
      const int h = hex_digit_value(in[i + k]);
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
        const int hi = hex_digit_value(in[i]);
        const int lo = hex_digit_value(in[i + 1]);
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
