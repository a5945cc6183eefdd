// UTF-8 as Python reads and writes it: the one validator every part of the
// project calls (strict, as str.decode("utf-8") accepts it, or with lone
// surrogates allowed, as the "surrogatepass" error handler writes them), and
// the conversions between UTF-8 and code points. Nothing here throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

namespace serialcheck {

// Whether the 3-byte forms of U+D800..U+DFFF count as well-formed. Python's
// strict decoder refuses them; pickle writes every str with
// "surrogatepass", which writes them as if they were ordinary code points.
enum class Surrogates : bool { Reject, Allow };

// True when every byte of `s` is below 0x80: eight bytes at a time, the
// last (or only) word read overlapping the one before it, so a short string
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

// Length (1 to 4) of the well-formed sequence that starts at s[i], or 0 when
// the bytes there are not one: a continuation byte, an overlong form, a code
// point above U+10FFFF, a sequence cut short by the end of `s`, or (with
// Surrogates::Reject) a surrogate. Requires i < s.size().
std::size_t utf8_sequence_length(std::string_view s, std::size_t i, Surrogates surrogates);

// Offset of the first byte of the first ill-formed sequence in `s`, or
// std::string_view::npos when `s` is well-formed.
std::size_t utf8_error_at(std::string_view s, Surrogates surrogates);

inline bool valid_utf8(std::string_view s, Surrogates surrogates) {
  return utf8_error_at(s, surrogates) == std::string_view::npos;
}

// Appends the UTF-8 form of `cp` (surrogates written as any other code
// point, as "surrogatepass" writes them). cp must be at most U+10FFFF.
void append_utf8(std::string& out, char32_t cp);

// The code point of the sequence at s[i], moving i past it. A byte that
// does not start a well-formed (Surrogates::Allow) sequence stands for
// itself, so ill-formed input is never read past its end. Requires
// i < s.size().
char32_t utf8_next_code_point(std::string_view s, std::size_t& i);

// The code points of `s`, read as utf8_next_code_point reads them.
std::u32string utf8_to_code_points(std::string_view s);

std::string utf8_from_code_points(std::u32string_view cps);

}  // namespace serialcheck
