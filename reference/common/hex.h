// Hex text of bytes: the one encoder (two lowercase digits per byte, as
// bytes.hex() writes them) and the one decoder (either case, as
// bytes.fromhex() reads them without spaces). Nothing here throws.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace serialcheck {

inline constexpr char kHexDigits[] = "0123456789abcdef";

// Appends two lowercase hex digits per byte of `bytes`.
void append_hex(std::string& out, std::string_view bytes);

inline std::string hex_encode(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  append_hex(out, bytes);
  return out;
}

// Appends the `digits` lowest hex digits of `value`, most significant
// first (e.g. 4 for Python's \uXXXX).
void append_hex_digits(std::string& out, std::uint64_t value, int digits);

// 0..15 for a hex digit of either case, -1 for any other character.
inline int hex_digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// The bytes of `text`, two hex digits each (either case); nullopt for an
// odd length or a character that is not a hex digit.
std::optional<std::string> hex_decode(std::string_view text);

}  // namespace serialcheck
