// Python's repr escapes: the one place that writes a str or bytes the way
// ascii(), repr(bytes) and CPython's error messages write them. Nothing here
// throws.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

namespace serialcheck {

// Python's choice of quote for a repr: ' unless the text has ' and no ".
inline char repr_quote(bool has_single, bool has_double) {
  return has_single && !has_double ? '"' : '\'';
}

// Appends code point `cp` as ascii() writes it inside a literal quoted with
// `quote` (and repr(bytes) writes a byte): \\, \n, \r, \t, the quote
// escaped, other printable ASCII as is, the rest as \xNN below U+0100,
// \uNNNN below U+10000 and \UNNNNNNNN above (lowercase hex).
void append_repr_char(std::string& out, char32_t cp, char quote);

// ascii(s) for the (surrogatepass) UTF-8 text `utf8`: quotes chosen as
// Python chooses them, every character escaped as append_repr_char does.
// Characters stop once the text is longer than `limit` bytes (the closing
// quote is still written), so a caller can cut a long argument cheaply.
std::string ascii_repr(std::string_view utf8, std::size_t limit = std::string::npos);

// repr(bytes) with `prefix` in front of the quote ("b" for bytes), with the
// same quote choice and `limit` as ascii_repr.
std::string bytes_repr(std::string_view data, std::string_view prefix = "b",
                       std::size_t limit = std::string::npos);

// Appends "\x" and the byte's two lowercase hex digits.
void append_hex_escape(std::string& out, unsigned char c);

// Which bytes a message shows as they are; every other byte is written as
// a \xNN escape.
enum class Shown {
  // 0x20..0x7E except \ and ': the text can sit between single quotes.
  PrintableAscii,
  // Everything except control characters (below 0x20 and 0x7F) and \: the
  // text keeps its UTF-8 and cannot break a line.
  AllButControls,
};

// Appends the bytes of `s`, escaping those that `shown` does not show.
void append_escaped_bytes(std::string& out, std::string_view s, Shown shown);

}  // namespace serialcheck
