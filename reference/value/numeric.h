// Number helpers shared by the codec, the JSON form and the tools:
// arbitrary-precision integers held as two's-complement little-endian bytes
// (the form pickle's LONG1/LONG4 opcodes carry), and Python's float repr.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace serialcheck {

// Drops redundant sign bytes: the result is the shortest two's-complement
// little-endian encoding of the same value. Zero is the empty string.
std::string minimal_twos_le(std::string_view twos_le);

// Encodes v in minimal two's-complement little-endian form (0 -> "").
std::string int64_to_twos_le(std::int64_t v);

// True and sets `out` when the value fits in int64.
bool twos_le_to_int64(std::string_view twos_le, std::int64_t& out);

// Decimal text of the value ("-123", "0"). Linear-time enough for the sizes
// pickle carries (subquadratic is not required).
std::string twos_le_to_decimal(std::string_view twos_le);

// Parses an optional sign followed by decimal digits (no spaces, no
// underscores, no suffix). Returns nullopt on anything else.
std::optional<std::string> decimal_to_twos_le(std::string_view text);

// Python's repr(float): shortest round-trip digits, "1e+16" / "1e-05"
// exponent rules, ".0" added to integral values, "nan", "inf", "-inf".
std::string float_repr(double v);

// Parses what float() accepts for repr output and the text forms pickle
// protocol 0 uses (FLOAT opcode): decimal and exponent forms, "nan", "inf",
// "-inf", "infinity" (case-insensitive). Like float(), too large a value
// gives +-inf and too small a one +-0.0. No surrounding whitespace and no
// underscores (pickle's FLOAT never has them). Returns nullopt on anything else.
std::optional<double> parse_float(std::string_view text);

}  // namespace serialcheck
