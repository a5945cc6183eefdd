#include "harness/gen/numbers.h"

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "harness/gen/choice.h"
#include "reference/value/numeric.h"

namespace serialcheck::gen {

namespace {

rc::Gen<std::string> fromInt64(rc::Gen<std::int64_t> g) {
  return rc::gen::map(std::move(g), [](std::int64_t v) { return int64_to_twos_le(v); });
}

// Edges beyond int64 as two's-complement bytes: 2**63, -2**63-1, 2**64-1,
// 2**64, and where LONG1 (at most 255 bytes) gives way to LONG4: the largest
// and smallest ints of 255 bytes, and their neighbours outside, of 256.
std::vector<std::string> beyondInt64() {
  const std::string top255 = std::string(254, '\xff') + '\x7f';     // 2**2039 - 1
  const std::string bottom255 = std::string(254, '\x00') + '\x80';  // -2**2039
  return {
      std::string("\x00\x00\x00\x00\x00\x00\x00\x80\x00", 9),
      std::string("\xff\xff\xff\xff\xff\xff\xff\x7f\xff", 9),
      std::string("\xff\xff\xff\xff\xff\xff\xff\xff\x00", 9),
      std::string("\x00\x00\x00\x00\x00\x00\x00\x00\x01", 9),
      top255,
      bottom255,
      bottom255 + '\x00',  // 2**2039
      top255 + '\xff',     // -2**2039 - 1
  };
}

}  // namespace

rc::Gen<std::string> pyInt() {
  using L = std::numeric_limits<std::int64_t>;
  std::vector<std::int64_t> edges = {
      0,          1,          -1,         127,        128,          255,
      256,        -128,       -129,       -256,       65535,        65536,
      -32768,     -32769,     2147483647, 2147483648, -2147483648,  -2147483649,
      4294967295, 4294967296, L::max(),   L::min(),   L::max() - 1, L::min() + 1,
  };
  // LONG1's byte count grows at 2**(8k - 1): 5 to 8 bytes around 2**39,
  // 2**47 and 2**55 (2**31 and 2**63 are above).
  for (int bits : {39, 47, 55}) {
    const std::int64_t p = std::int64_t{1} << bits;
    edges.insert(edges.end(), {p - 1, p, -p, -p - 1});
  }
  auto big = rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange(9, 301)), [](int n) {
    return rc::gen::container<std::string>(static_cast<std::size_t>(n), rc::gen::arbitrary<char>());
  });
  return weightedChoice<std::string>({
      {6, fromInt64(rc::gen::cast<std::int64_t>(rc::gen::arbitrary<std::int16_t>()))},
      {3, fromInt64(rc::gen::elementOf(edges))},
      {1, rc::gen::elementOf(beyondInt64())},
      {2, fromInt64(rc::gen::resize(100, rc::gen::arbitrary<std::int64_t>()))},
      {2, big},
  });
}

rc::Gen<double> pyFloat(bool allow_nan) {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  using D = std::numeric_limits<double>;
  std::vector<double> specials = {0.0,
                                  -0.0,
                                  D::infinity(),
                                  -D::infinity(),
                                  D::denorm_min(),
                                  -D::denorm_min(),
                                  D::min(),
                                  D::max(),
                                  -D::max(),
                                  0.1,
                                  1e16,
                                  1e-5,
                                  9007199254740992.0,
                                  9223372036854775808.0,
                                  1e300};
  if (allow_nan) {
    specials.push_back(nan);
    specials.push_back(-nan);
  }
  auto simple = rc::gen::map(rc::gen::arbitrary<std::int32_t>(),
                             [](std::int32_t v) { return static_cast<double>(v) / 8.0; });
  auto bits = rc::gen::map(rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()),
                           [](std::uint64_t b) { return std::bit_cast<double>(b); });
  // Zero exponent field: a subnormal (or zero), either sign.
  auto subnormal = rc::gen::map(
      rc::gen::resize(100, rc::gen::arbitrary<std::uint64_t>()),
      [](std::uint64_t b) { return std::bit_cast<double>(b & 0x800fffffffffffffULL); });
  auto any = weightedChoice<double>({
      {4, simple},
      {3, rc::gen::elementOf(specials)},
      {2, bits},
      {1, subnormal},
  });
  if (allow_nan) return any;
  return rc::gen::map(any, [](double d) { return std::isnan(d) ? 0.5 : d; });
}

}  // namespace serialcheck::gen
