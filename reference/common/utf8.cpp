#include "reference/common/utf8.h"

namespace serialcheck {

namespace {

bool is_cont(unsigned char c) {
  return (c & 0xC0) == 0x80;
}

// The code point of the `len`-byte sequence at s[i] (already checked).
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

// Follows the table of well-formed UTF-8 byte sequences (Unicode 3.9, D92);
// Surrogates::Allow adds ED A0..BF as a second byte, the surrogates.
std::size_t utf8_sequence_length(std::string_view s, std::size_t i, Surrogates surrogates) {
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
    if (b0 == 0xED && b1 >= 0xA0 && surrogates == Surrogates::Reject) return 0;
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

std::size_t utf8_error_at(std::string_view s, Surrogates surrogates) {
  std::size_t i = 0;
  while (i < s.size()) {
    // Fast path over ASCII runs, eight bytes at a time: most text is mostly
    // ASCII.
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
    const std::size_t len = utf8_sequence_length(s, i, surrogates);
    if (len == 0) return i;
    i += len;
  }
  return std::string_view::npos;
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

char32_t utf8_next_code_point(std::string_view s, std::size_t& i) {
  std::size_t len = utf8_sequence_length(s, i, Surrogates::Allow);
  if (len == 0) len = 1;  // ill-formed: degrade byte-wise, never overrun
  const char32_t cp = decode_at(s, i, len);
  i += len;
  return cp;
}

std::u32string utf8_to_code_points(std::string_view s) {
  std::u32string out;
  out.reserve(s.size());
  std::size_t i = 0;
  while (i < s.size()) out += utf8_next_code_point(s, i);
  return out;
}

std::string utf8_from_code_points(std::u32string_view cps) {
  std::string out;
  out.reserve(cps.size());
  for (char32_t cp : cps) append_utf8(out, cp);
  return out;
}

}  // namespace serialcheck
