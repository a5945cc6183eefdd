#include "suite/tests/support/bytes.h"

#include <algorithm>
#include <optional>
#include <stdexcept>

#include "reference/common/hex.h"

namespace serialcheck::test_support {

namespace {

std::string little_endian(std::uint64_t v, int size) {
  std::string out;
  for (int i = 0; i < size; ++i) out += static_cast<char>((v >> (8 * i)) & 0xFF);
  return out;
}

}  // namespace

std::string le32(std::uint32_t v) {
  return little_endian(v, 4);
}
std::string le64(std::uint64_t v) {
  return little_endian(v, 8);
}

std::string repeat(std::string_view unit, std::size_t n) {
  std::string out;
  out.reserve(unit.size() * n);
  for (std::size_t i = 0; i < n; ++i) out += unit;
  return out;
}

std::string hex(std::string_view bytes) {
  return hex_encode(bytes);
}

std::string unhex(std::string_view text) {
  std::optional<std::string> bytes = hex_decode(text);
  if (!bytes) throw std::invalid_argument("not hex: " + std::string(text.substr(0, 40)));
  return *bytes;
}

std::uint64_t fnv1a(std::string_view bytes) {
  std::uint64_t h = 0xcbf29ce484222325ULL;
  for (char c : bytes) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return h;
}

std::string first_difference(std::string_view got, std::string_view want) {
  std::size_t k = 0;
  while (k < got.size() && k < want.size() && got[k] == want[k]) ++k;
  std::size_t from = k < 16 ? 0 : k - 16;
  return "first difference at byte " + std::to_string(k) + "\n  got:  ..." +
         hex(got.substr(std::min(from, got.size()), 48)) + "\n  want: ..." +
         hex(want.substr(std::min(from, want.size()), 48));
}

}  // namespace serialcheck::test_support
