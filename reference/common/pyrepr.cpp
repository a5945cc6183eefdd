#include "reference/common/pyrepr.h"

#include "reference/common/hex.h"
#include "reference/common/utf8.h"

namespace serialcheck {

void append_repr_char(std::string& out, char32_t cp, char quote) {
  switch (cp) {
    case '\\': out += "\\\\"; return;
    case '\n': out += "\\n"; return;
    case '\r': out += "\\r"; return;
    case '\t': out += "\\t"; return;
    default: break;
  }
  if (cp == static_cast<char32_t>(static_cast<unsigned char>(quote))) {
    out += '\\';
    out += quote;
  } else if (cp >= 0x20 && cp < 0x7F) {
    out += static_cast<char>(cp);
  } else if (cp < 0x100) {
    out += "\\x";
    append_hex_digits(out, cp, 2);
  } else if (cp < 0x10000) {
    out += "\\u";
    append_hex_digits(out, cp, 4);
  } else {
    out += "\\U";
    append_hex_digits(out, cp, 8);
  }
}

std::string ascii_repr(std::string_view utf8, std::size_t limit) {
  const char q = repr_quote(utf8.find('\'') != std::string_view::npos,
                            utf8.find('"') != std::string_view::npos);
  std::string out(1, q);
  std::size_t i = 0;
  while (i < utf8.size() && out.size() <= limit) {
    append_repr_char(out, utf8_next_code_point(utf8, i), q);
  }
  out += q;
  return out;
}

std::string bytes_repr(std::string_view data, std::string_view prefix, std::size_t limit) {
  const char q = repr_quote(data.find('\'') != std::string_view::npos,
                            data.find('"') != std::string_view::npos);
  std::string out = std::string(prefix) + q;
  for (std::size_t i = 0; i < data.size() && out.size() <= limit; ++i) {
    append_repr_char(out, static_cast<unsigned char>(data[i]), q);
  }
  out += q;
  return out;
}

void append_hex_escape(std::string& out, unsigned char c) {
  out += "\\x";
  append_hex_digits(out, c, 2);
}

void append_escaped_bytes(std::string& out, std::string_view s, Shown shown) {
  for (char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    const bool as_is = shown == Shown::PrintableAscii
                           ? c >= 0x20 && c < 0x7F && c != '\\' && c != '\''
                           : c >= 0x20 && c != 0x7F && c != '\\';
    if (as_is) {
      out += ch;
    } else {
      append_hex_escape(out, c);
    }
  }
}

}  // namespace serialcheck
