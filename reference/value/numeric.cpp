#include "reference/value/numeric.h"

#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>
#include <vector>

namespace serialcheck {

namespace {

bool is_negative(std::string_view twos_le) {
  return !twos_le.empty() && (static_cast<unsigned char>(twos_le.back()) & 0x80) != 0;
}

// In-place two's-complement negation of a little-endian byte string.
void negate_le(std::string& bytes) {
  unsigned carry = 1;
  for (char& c : bytes) {
    unsigned v = static_cast<unsigned char>(~static_cast<unsigned char>(c)) + carry;
    c = static_cast<char>(v & 0xff);
    carry = v >> 8;
  }
}

constexpr std::uint32_t kDecimalBase = 1000000000;  // 10^9 per limb

}  // namespace

std::string minimal_twos_le(std::string_view twos_le) {
  std::size_t n = twos_le.size();
  // A top byte is redundant when it only repeats the sign of the byte below it.
  while (n > 0) {
    auto top = static_cast<unsigned char>(twos_le[n - 1]);
    bool below_negative = n >= 2 && (static_cast<unsigned char>(twos_le[n - 2]) & 0x80) != 0;
    if (top == 0x00 && (n == 1 || !below_negative)) {
      --n;
    } else if (top == 0xff && n >= 2 && below_negative) {
      --n;
    } else {
      break;
    }
  }
  return std::string(twos_le.substr(0, n));
}

std::string int64_to_twos_le(std::int64_t v) {
  auto u = static_cast<std::uint64_t>(v);
  std::string out(8, '\0');
  for (std::size_t i = 0; i < 8; ++i) out[i] = static_cast<char>((u >> (8 * i)) & 0xff);
  return minimal_twos_le(out);
}

bool twos_le_to_int64(std::string_view twos_le, std::int64_t& out) {
  std::string m = minimal_twos_le(twos_le);
  if (m.size() > 8) return false;
  std::uint64_t u = is_negative(m) ? ~std::uint64_t{0} : 0;
  for (std::size_t i = 0; i < m.size(); ++i) {
    u &= ~(std::uint64_t{0xff} << (8 * i));
    u |= std::uint64_t{static_cast<unsigned char>(m[i])} << (8 * i);
  }
  out = static_cast<std::int64_t>(u);
  return true;
}

std::string twos_le_to_decimal(std::string_view twos_le) {
  std::string mag = minimal_twos_le(twos_le);
  bool negative = is_negative(mag);
  if (negative) negate_le(mag);  // the magnitude, read as unsigned
  while (!mag.empty() && mag.back() == '\0') mag.pop_back();
  if (mag.empty()) return "0";

  // Feed 32-bit words, most significant first, into base-10^9 limbs
  // (little-endian limbs). Quadratic, which is fine for pickle-sized ints.
  std::vector<std::uint32_t> limbs;
  std::size_t words = (mag.size() + 3) / 4;
  limbs.reserve(words * 32 / 29 + 2);
  for (std::size_t w = words; w-- > 0;) {
    std::uint64_t word = 0;
    for (std::size_t b = 0; b < 4; ++b) {
      std::size_t i = w * 4 + b;
      if (i < mag.size()) word |= std::uint64_t{static_cast<unsigned char>(mag[i])} << (8 * b);
    }
    std::uint64_t carry = word;
    for (std::uint32_t& limb : limbs) {
      std::uint64_t cur = (std::uint64_t{limb} << 32) + carry;
      limb = static_cast<std::uint32_t>(cur % kDecimalBase);
      carry = cur / kDecimalBase;
    }
    while (carry != 0) {
      limbs.push_back(static_cast<std::uint32_t>(carry % kDecimalBase));
      carry /= kDecimalBase;
    }
  }

  std::string out;
  out.reserve(limbs.size() * 9 + 1);
  if (negative) out.push_back('-');
  out += std::to_string(limbs.back());
  for (std::size_t i = limbs.size() - 1; i-- > 0;) {
    std::array<char, 9> digits;
    std::uint32_t v = limbs[i];
    for (std::size_t d = 9; d-- > 0;) {
      digits[d] = static_cast<char>('0' + v % 10);
      v /= 10;
    }
    out.append(digits.data(), digits.size());
  }
  return out;
}

std::optional<std::string> decimal_to_twos_le(std::string_view text) {
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
  }

  // Base-2^32 limbs, little-endian; each step multiplies by 10^k and adds a
  // chunk of k <= 9 digits.
  std::vector<std::uint32_t> limbs;
  std::size_t first = text.size() % 9 == 0 ? 9 : text.size() % 9;
  std::size_t pos = 0;
  while (pos < text.size()) {
    std::size_t len = pos == 0 ? first : 9;
    std::uint32_t chunk = 0;
    std::uint32_t scale = 1;
    for (std::size_t i = 0; i < len; ++i) {
      chunk = chunk * 10 + static_cast<std::uint32_t>(text[pos + i] - '0');
      scale *= 10;
    }
    pos += len;
    std::uint64_t carry = chunk;
    for (std::uint32_t& limb : limbs) {
      std::uint64_t cur = std::uint64_t{limb} * scale + carry;
      limb = static_cast<std::uint32_t>(cur);
      carry = cur >> 32;
    }
    if (carry != 0) limbs.push_back(static_cast<std::uint32_t>(carry));
  }

  // One extra zero byte keeps the top bit clear before negation.
  std::string out(limbs.size() * 4 + 1, '\0');
  for (std::size_t i = 0; i < limbs.size(); ++i) {
    for (std::size_t b = 0; b < 4; ++b) {
      out[i * 4 + b] = static_cast<char>((limbs[i] >> (8 * b)) & 0xff);
    }
  }
  if (negative) negate_le(out);
  return minimal_twos_le(out);
}

std::string float_repr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";

  // Shortest round-trip digits in scientific form, e.g. "-1.2345e+17".
  std::array<char, 64> buf;
  auto res = std::to_chars(buf.data(), buf.data() + buf.size(), v, std::chars_format::scientific);
  std::string_view sci(buf.data(), static_cast<std::size_t>(res.ptr - buf.data()));

  bool negative = false;
  if (!sci.empty() && sci.front() == '-') {
    negative = true;
    sci.remove_prefix(1);
  }
  std::size_t e_pos = sci.find('e');
  std::string digits;
  for (char c : sci.substr(0, e_pos)) {
    if (c != '.') digits.push_back(c);
  }
  int exp10 = 0;
  std::string_view exp_text = sci.substr(e_pos + 1);
  if (!exp_text.empty() && exp_text.front() == '+') exp_text.remove_prefix(1);
  std::from_chars(exp_text.data(), exp_text.data() + exp_text.size(), exp10);

  std::string out;
  if (negative) out.push_back('-');
  // Python's 'r' format: scientific when the decimal exponent is < -4 or >= 16.
  if (exp10 < -4 || exp10 >= 16) {
    out.push_back(digits[0]);
    if (digits.size() > 1) {
      out.push_back('.');
      out.append(digits, 1);
    }
    out.push_back('e');
    out.push_back(exp10 < 0 ? '-' : '+');
    int mag = exp10 < 0 ? -exp10 : exp10;
    if (mag < 10) out.push_back('0');
    out += std::to_string(mag);
    return out;
  }
  // Position of the decimal point: value = 0.DIGITS * 10^point.
  int point = exp10 + 1;
  auto ndigits = static_cast<int>(digits.size());
  if (point <= 0) {
    out += "0.";
    out.append(static_cast<std::size_t>(-point), '0');
    out += digits;
  } else if (point >= ndigits) {
    out += digits;
    out.append(static_cast<std::size_t>(point - ndigits), '0');
    out += ".0";
  } else {
    out.append(digits, 0, static_cast<std::size_t>(point));
    out.push_back('.');
    out.append(digits, static_cast<std::size_t>(point));
  }
  return out;
}

namespace {

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    char x = a[i];
    if (x >= 'A' && x <= 'Z') x = static_cast<char>(x - 'A' + 'a');
    if (x != b[i]) return false;
  }
  return true;
}

}  // namespace

std::optional<double> parse_float(std::string_view text) {
  std::string_view body = text;
  bool negative = false;
  if (!body.empty() && (body.front() == '+' || body.front() == '-')) {
    negative = body.front() == '-';
    body.remove_prefix(1);
  }
  if (iequals(body, "inf") || iequals(body, "infinity")) {
    double inf = std::numeric_limits<double>::infinity();
    return negative ? -inf : inf;
  }
  if (iequals(body, "nan")) {
    // Like CPython, "-nan" is a NaN with the sign bit set.
    return std::copysign(std::numeric_limits<double>::quiet_NaN(), negative ? -1.0 : 1.0);
  }

  // Validate the shape ourselves: digits [. digits] [e|E [sign] digits], with
  // at least one mantissa digit; from_chars alone would also take "nan(...)".
  std::size_t i = 0;
  std::size_t mantissa_digits = 0;
  long long first_nonzero = -1;  // mantissa digit index of the first non-zero
  long long point_at = -1;       // mantissa digit index where the point sits
  while (i < body.size() && body[i] >= '0' && body[i] <= '9') {
    if (first_nonzero < 0 && body[i] != '0')
      first_nonzero = static_cast<long long>(mantissa_digits);
    ++mantissa_digits;
    ++i;
  }
  if (i < body.size() && body[i] == '.') {
    point_at = static_cast<long long>(mantissa_digits);
    ++i;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') {
      if (first_nonzero < 0 && body[i] != '0') {
        first_nonzero = static_cast<long long>(mantissa_digits);
      }
      ++mantissa_digits;
      ++i;
    }
  }
  if (mantissa_digits == 0) return std::nullopt;
  if (point_at < 0) point_at = static_cast<long long>(mantissa_digits);
  long long exponent = 0;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    bool exp_negative = false;
    if (i < body.size() && (body[i] == '+' || body[i] == '-')) {
      exp_negative = body[i] == '-';
      ++i;
    }
    std::size_t exp_digits = 0;
    while (i < body.size() && body[i] >= '0' && body[i] <= '9') {
      // Clamp: anything this large already overflows or underflows.
      if (exponent < 100000000) exponent = exponent * 10 + (body[i] - '0');
      ++exp_digits;
      ++i;
    }
    if (exp_digits == 0) return std::nullopt;
    if (exp_negative) exponent = -exponent;
  }
  if (i != body.size()) return std::nullopt;

  double value = 0.0;
  auto res =
      std::from_chars(body.data(), body.data() + body.size(), value, std::chars_format::general);
  if (res.ec == std::errc::result_out_of_range) {
    // float() gives inf on overflow and 0.0 on underflow; tell them apart by
    // the magnitude of the leading digit.
    long long magnitude = first_nonzero < 0 ? -1 : exponent + point_at - first_nonzero;
    value = magnitude > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  } else if (res.ec != std::errc() || res.ptr != body.data() + body.size()) {
    return std::nullopt;
  }
  return negative ? -value : value;
}

}  // namespace serialcheck
