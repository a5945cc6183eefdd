// Generators of Python numbers: ints of any size (as the two's-complement
// little-endian bytes pickle's LONG1/LONG4 carry) and floats with every
// special value pickle must keep bit for bit.
#pragma once

#include <rapidcheck.h>

#include <string>

namespace serialcheck::gen {

// Two's-complement little-endian bytes (not necessarily minimal) of an int:
// small values, the edges of pickle's BININT1/BININT2/BININT and of int64,
// any int64, and big ints of up to about 300 bytes (across LONG1's 255-byte
// limit), positive and negative. Shrinks towards 0.
rc::Gen<std::string> pyInt();

// Doubles: simple decimals, random bit patterns (NaNs with payloads among
// them), subnormals, and the specials (NaN, -NaN, +-inf, -0.0, the
// smallest subnormal, the largest finite, 2**53, 2**63...).
// With allow_nan false no NaN is produced.
rc::Gen<double> pyFloat(bool allow_nan = true);

}  // namespace serialcheck::gen
