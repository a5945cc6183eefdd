// Text encodings that pickle's text opcodes use: Python's UTF-8
// "surrogatepass" (every str payload), raw-unicode-escape (protocol 0
// UNICODE) and the repr-style escapes of STRING.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace serialcheck::pickle {

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
