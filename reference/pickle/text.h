// Text encodings that pickle's text opcodes use: Python's UTF-8
// "surrogatepass" (every str payload), raw-unicode-escape (protocol 0
// UNICODE) and the repr-style escapes of STRING.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "reference/common/utf8.h"

namespace serialcheck::pickle {

// Former names of reference/common/utf8.h's pieces, kept until their last
// callers move to valid_utf8(s, Surrogates::Allow), utf8_to_code_points
// and utf8_from_code_points: every str payload is UTF-8 with lone
// surrogates allowed.
inline bool valid_utf8_surrogatepass(std::string_view s) {
  return valid_utf8(s, Surrogates::Allow);
}

// Code points of a surrogatepass UTF-8 string (input must be valid).
inline std::u32string decode_utf8_surrogatepass(std::string_view s) {
  return utf8_to_code_points(s);
}

inline std::string encode_utf8_surrogatepass(std::u32string_view s) {
  return utf8_from_code_points(s);
}

// The C pickler's protocol-0 UNICODE payload: code points >= 0x10000 as
// \UXXXXXXXX, >= 0x100 and '\\', '\0', '\n', '\r', '\x1a' as \uXXXX
// (lowercase hex), everything else as one latin-1 byte. Without
// `escape_cr_nul_sub` (CPython 3.6 and before) '\0', '\r' and '\x1a' stay
// raw bytes.
std::string raw_unicode_escape_encode(std::string_view utf8_surrogatepass,
                                      bool escape_cr_nul_sub = true);

// Inverse of the above as Python's raw_unicode_escape decoder accepts it
// (\uXXXX and \UXXXXXXXX escapes, other bytes latin-1). nullopt on a
// malformed escape or a code point above U+10FFFF.
std::optional<std::string> raw_unicode_escape_decode(std::string_view latin1);

// Protocol-0 STRING argument: a quoted Python 2 str literal ('...' or "...")
// with backslash escapes. Returns the raw bytes, nullopt when malformed.
std::optional<std::string> string_literal_decode(std::string_view quoted);

}  // namespace serialcheck::pickle
