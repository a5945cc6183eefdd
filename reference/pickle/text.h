// Text encodings that pickle's text opcodes use: Python's UTF-8
// "surrogatepass" (every str payload), raw-unicode-escape (protocol 0
// UNICODE) and the repr-style escapes of STRING.
#pragma once

#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>

namespace serialcheck::pickle {

// True when every byte of `s` is below 0x80: eight bytes at a time, the
// last (or only) word read overlapping the one before it, so a short str
// costs a few loads and no loop over its bytes.
[[gnu::always_inline]] inline bool is_ascii(std::string_view s) {
  const char* p = s.data();
  const std::size_t n = s.size();
  if (n >= 8) {
    std::uint64_t acc = 0;
    std::uint64_t w;
    for (std::size_t i = 0; i + 8 <= n; i += 8) {
      std::memcpy(&w, p + i, 8);
      acc |= w;
    }
    std::memcpy(&w, p + n - 8, 8);
    return ((acc | w) & 0x8080808080808080ull) == 0;
  }
  if (n >= 4) {
    std::uint32_t a, b;
    std::memcpy(&a, p, 4);
    std::memcpy(&b, p + n - 4, 4);
    return ((a | b) & 0x80808080u) == 0;
  }
  unsigned acc = 0;
  for (std::size_t i = 0; i < n; ++i) acc |= static_cast<unsigned char>(p[i]);
  return acc < 0x80;
}

// True when `s` is well-formed UTF-8 except that lone surrogates
// (U+D800..U+DFFF encoded as 3 bytes) are allowed, as Python's
// "surrogatepass" error handler produces them.
bool valid_utf8_surrogatepass(std::string_view s);

// Code points of a surrogatepass UTF-8 string (input must be valid).
std::u32string decode_utf8_surrogatepass(std::string_view s);
std::string encode_utf8_surrogatepass(std::u32string_view s);

// The C pickler's protocol-0 UNICODE payload: code points >= 0x10000 as
// \UXXXXXXXX, >= 0x100 and '\\', '\0', '\n', '\r', '\x1a' as \uXXXX
// (lowercase hex), everything else as one latin-1 byte.
std::string raw_unicode_escape_encode(std::string_view utf8_surrogatepass);

// Inverse of the above as Python's raw_unicode_escape decoder accepts it
// (\uXXXX and \UXXXXXXXX escapes, other bytes latin-1). nullopt on a
// malformed escape or a code point above U+10FFFF.
std::optional<std::string> raw_unicode_escape_decode(std::string_view latin1);

// Protocol-0 STRING argument: a quoted Python 2 str literal ('...' or "...")
// with backslash escapes. Returns the raw bytes, nullopt when malformed.
std::optional<std::string> string_literal_decode(std::string_view quoted);

}  // namespace serialcheck::pickle
