// Test support: bytes as tests write and compare them. Literals with their
// NULs, little-endian integers, repeated units, hex (reference/common's one
// encoder and decoder), the FNV-1a 64 hash the encoder's golden table keeps,
// and where two byte strings first differ. unhex() throws
// std::invalid_argument on text that is not hex; nothing else throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace serialcheck::test_support {

// A string literal with its NULs: bin("a\0b") has three bytes.
template <std::size_t N>
std::string bin(const char (&literal)[N]) {
  return std::string(literal, N - 1);
}

std::string le32(std::uint32_t v);
std::string le64(std::uint64_t v);

// `unit` written `n` times.
std::string repeat(std::string_view unit, std::size_t n);

// Two lowercase hex digits a byte, as bytes.hex() writes them.
std::string hex(std::string_view bytes);
// The bytes of hex text (either case); std::invalid_argument if it is not hex.
std::string unhex(std::string_view text);

std::uint64_t fnv1a(std::string_view bytes);

// "first difference at byte K" and up to 48 bytes of each, in hex, from 16
// before it.
std::string first_difference(std::string_view got, std::string_view want);

}  // namespace serialcheck::test_support
