#include "harness/gen/text.h"

#include <algorithm>
#include <cstdint>
#include <vector>

#include "harness/gen/choice.h"
#include "reference/pickle/text.h"

namespace serialcheck::gen {

namespace {

constexpr int kFrameSizeTarget = 64 * 1024;  // CPython's _FRAME_SIZE_TARGET

rc::Gen<char32_t> codePointIn(char32_t lo, char32_t hi) {  // [lo, hi]
  return rc::gen::cast<char32_t>(rc::gen::resize(100, rc::gen::inRange<std::uint32_t>(lo, hi + 1)));
}

rc::Gen<char32_t> bmpNoSurrogate() {
  return rc::gen::map(codePointIn(0, 0xFFFF - 0x800),
                      [](char32_t c) { return c < 0xD800 ? c : static_cast<char32_t>(c + 0x800); });
}

rc::Gen<std::u32string> stringOf(rc::Gen<char32_t> c) {
  auto shortLen = rc::gen::container<std::u32string>(c);
  auto longLen = rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange(240, 300)), [c](int n) {
    return rc::gen::container<std::u32string>(static_cast<std::size_t>(n), c);
  });
  return weightedChoice<std::u32string>({{12, rc::gen::scale(0.3, shortLen)}, {1, longLen}});
}

const char kIdentStart[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_";
const char kIdentRest[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ_0123456789";

}  // namespace

rc::Gen<std::u32string> codePoints() {
  auto ascii = codePointIn(0, 0x7F);
  auto latin1 = codePointIn(0, 0xFF);
  auto bmp = bmpNoSurrogate();
  auto astral = codePointIn(0x10000, 0x10FFFF);
  auto surrogate = codePointIn(0xD800, 0xDFFF);
  auto mixed =
      weightedChoice<char32_t>({{4, ascii}, {2, latin1}, {2, bmp}, {1, astral}, {1, surrogate}});
  return weightedChoice<std::u32string>({
      {5, stringOf(ascii)},
      {2, stringOf(latin1)},
      {2, stringOf(bmp)},
      {1, stringOf(astral)},
      {1, stringOf(surrogate)},
      {3, stringOf(mixed)},
  });
}

rc::Gen<std::string> pyStrOfUtf8Length(std::size_t size) {
  // Code points of one alphabet (as codePoints() draws them), repeated
  // while whole code points fit, then ASCII to fill exactly: the UTF-8
  // length is what decides SHORT_BINUNICODE and framing, not the number of
  // code points. Only the first 64 code points drawn are used, and only in
  // the first KiB.
  return rc::gen::map(codePoints(), [size](const std::u32string& cps) {
    std::vector<std::string> units;
    for (std::size_t i = 0; i < cps.size() && i < 64; ++i) {
      units.push_back(pickle::encode_utf8_surrogatepass(cps.substr(i, 1)));
    }
    std::string out;
    out.reserve(size);
    // Past the first KiB, ASCII alone: a long str's drawn part is what
    // varies, and its JSON form (a case's record) stays near its size.
    const std::size_t drawn = std::min<std::size_t>(size, 1024);
    for (bool grew = !units.empty(); grew;) {
      grew = false;
      for (const std::string& u : units) {
        if (out.size() + u.size() > drawn) break;
        out += u;
        grew = true;
      }
    }
    for (std::size_t i = out.size(); i < size; ++i) out += static_cast<char>('a' + i % 26);
    return out;
  });
}

rc::Gen<std::string> pyStr() {
  auto any = rc::gen::map(codePoints(), [](const std::u32string& cps) {
    return pickle::encode_utf8_surrogatepass(cps);
  });
  // Exactly 255 or 256 UTF-8 bytes, where SHORT_BINUNICODE ends (longLen
  // above only comes near it in code points).
  auto atLimit = rc::gen::mapcat(rc::gen::element<std::size_t>(255, 256), pyStrOfUtf8Length);
  return weightedChoice<std::string>({{30, any}, {1, atLimit}});
}

rc::Gen<std::string> asciiLine() {
  return rc::gen::scale(0.3, rc::gen::container<std::string>(rc::gen::cast<char>(
                                 rc::gen::resize(100, rc::gen::inRange(32, 127)))));
}

rc::Gen<std::string> identifier() {
  const std::string start(kIdentStart);
  const std::string rest(kIdentRest);
  return rc::gen::map(
      rc::gen::pair(rc::gen::elementOf(start),
                    rc::gen::resize(11, rc::gen::container<std::string>(rc::gen::elementOf(rest)))),
      [](const std::pair<char, std::string>& p) { return std::string(1, p.first) + p.second; });
}

rc::Gen<std::string> blob(bool allow_large) {
  auto byte = rc::gen::arbitrary<char>();
  auto shortBlob = rc::gen::scale(0.4, rc::gen::container<std::string>(byte));
  auto nearShortLimit = rc::gen::mapcat(
      rc::gen::resize(100, rc::gen::inRange(250, 262)),
      [byte](int n) { return rc::gen::container<std::string>(static_cast<std::size_t>(n), byte); });
  // A large payload is a cheap repeated pattern; what matters is its length:
  // anywhere above the frame target, or within a few bytes of it, where the
  // frame that holds it (opcode, length, payload, MEMOIZE) fills to exactly
  // 64 KiB or the payload itself reaches the size written outside frames.
  auto largeLength = weightedChoice<int>({
      {1, rc::gen::resize(100, rc::gen::inRange(65530, 70000))},
      {1, rc::gen::map(rc::gen::resize(100, rc::gen::inRange(-24, 3)),
                       [](int d) { return kFrameSizeTarget + d; })},
  });
  auto large = rc::gen::map(rc::gen::pair(largeLength, rc::gen::arbitrary<char>()),
                            [](const std::pair<int, char>& p) {
                              std::string s(static_cast<std::size_t>(p.first), p.second);
                              for (std::size_t i = 0; i < s.size(); i += 97)
                                s[i] = static_cast<char>(i / 97);
                              return s;
                            });
  // Lengths where the encoding switches (SHORT_BINBYTES ends at 255 bytes),
  // exactly, beside the range around them.
  auto shortLimit = rc::gen::mapcat(rc::gen::element(255, 256), [byte](int n) {
    return rc::gen::container<std::string>(static_cast<std::size_t>(n), byte);
  });
  // The 4-byte to 8-byte switch (BINBYTES8, BINUNICODE8) is at 4 GiB, which
  // no gate case can afford to allocate: out of the generators' reach.
  return weightedChoice<std::string>(
      {{40, shortBlob}, {2, nearShortLimit}, {1, shortLimit}, {allow_large ? 1 : 0, large}});
}

}  // namespace serialcheck::gen
