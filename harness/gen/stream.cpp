#include "harness/gen/stream.h"

#include <cstdint>
#include <vector>

#include "harness/gen/choice.h"
#include "harness/gen/value.h"
#include "reference/common/hex.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"
#include "reference/value/json.h"

namespace serialcheck::gen {

namespace {

using pickle::ArgKind;

std::string le(std::uint64_t v, int width) {
  std::string s;
  for (int i = 0; i < width; ++i) s.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return s;
}

rc::Gen<std::string> randomBytesOf(int max_len) {
  return rc::gen::resize(max_len, rc::gen::container<std::string>(rc::gen::arbitrary<char>()));
}

// An unsigned field of `width` bytes: mostly small (a plausible length or
// memo key), sometimes random.
rc::Gen<std::string> uintField(int width) {
  auto small = rc::gen::map(rc::gen::resize(100, rc::gen::inRange<std::uint64_t>(0, 12)),
                            [width](std::uint64_t v) { return le(v, width); });
  return weightedChoice<std::string>(
      {{4, small},
       {1, rc::gen::container<std::string>(static_cast<std::size_t>(width),
                                           rc::gen::arbitrary<char>())}});
}

// A length field followed by about that many bytes (sometimes fewer).
rc::Gen<std::string> counted(int width) {
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange(0, 12)), [width](int n) {
    return rc::gen::map(rc::gen::pair(rc::gen::container<std::string>(static_cast<std::size_t>(n),
                                                                      rc::gen::arbitrary<char>()),
                                      chance(1, 8)),
                        [width, n](const std::pair<std::string, bool>& p) {
                          const std::string data =
                              p.second ? p.first.substr(0, p.first.size() / 2) : p.first;
                          return le(static_cast<std::uint64_t>(n), width) + data;
                        });
  });
}

rc::Gen<std::string> line(std::vector<std::string> choices) {
  return weightedChoice<std::string>(
      {{4, rc::gen::elementOf(std::move(choices))},
       {1, rc::gen::map(randomBytesOf(8), [](std::string s) { return s + "\n"; })}});
}

rc::Gen<std::string> argument(ArgKind kind) {
  switch (kind) {
    case ArgKind::None: return rc::gen::just(std::string());
    case ArgKind::U1: return uintField(1);
    case ArgKind::U2: return uintField(2);
    case ArgKind::I4:
    case ArgKind::U4: return uintField(4);
    case ArgKind::U8: return uintField(8);
    case ArgKind::F8: return rc::gen::container<std::string>(8, rc::gen::arbitrary<char>());
    case ArgKind::DecimalNlShort:
      return line({"0\n", "1\n", "00\n", "01\n", "-7\n", "99999999999\n", "x\n"});
    case ArgKind::DecimalNlLong:
      return line({"0L\n", "12L\n", "-5\n", "123456789012345678901234567890L\n", "L\n"});
    case ArgKind::FloatNl: return line({"1.5\n", "nan\n", "-inf\n", "1e308\n", "0x1p3\n", "\n"});
    case ArgKind::StringNl:
      return line({"'abc'\n", "\"a\\x00\"\n", "'unterminated\n", "''\n", "abc\n"});
    case ArgKind::StringNlNoEscape: return line({"pid\n", "0\n", "\n"});
    case ArgKind::UnicodeNl:
      return line({"abc\n", "\\u20ac\n", "\\U0001f600\n", "\\ud800\n", "\\u12\n"});
    case ArgKind::StringNlPair:
      return line({"builtins\nlen\n", "copy_reg\n_reconstructor\n", "__builtin__\nset\n", "m\n\n",
                   "a.b\nc.d\n", "only-one-line\n"});
    case ArgKind::DecimalNlMemo: return line({"0\n", "1\n", "2\n", "-1\n", "4294967296\n"});
    case ArgKind::Long1: return counted(1);
    case ArgKind::Long4: return counted(4);
    case ArgKind::Bytes1: return counted(1);
    case ArgKind::Bytes4: return counted(4);
    case ArgKind::Bytes8: return counted(8);
  }
  return rc::gen::just(std::string());
}

rc::Gen<std::string> opcodeChunk() {
  std::vector<rc::Gen<std::string>> chunks;
  for (const pickle::OpInfo& row : pickle::opcode_table()) {
    const char code = static_cast<char>(row.op);
    chunks.push_back(rc::gen::map(argument(row.arg),
                                  [code](std::string arg) { return std::string(1, code) + arg; }));
  }
  return rc::gen::mapcat(rc::gen::resize(100, rc::gen::inRange<std::size_t>(0, chunks.size())),
                         [chunks](std::size_t i) { return chunks[i]; });
}

struct Mutation {
  enum Op : std::uint8_t { Flip, Set, Insert, Delete, Truncate } op;
  std::uint32_t pos;
  std::uint8_t byte;
};

rc::Gen<Mutation> mutation() {
  return rc::gen::map(
      rc::gen::tuple(rc::gen::resize(100, rc::gen::inRange(0, 5)),
                     rc::gen::resize(100, rc::gen::arbitrary<std::uint32_t>()),
                     rc::gen::resize(100, rc::gen::arbitrary<std::uint8_t>())),
      [](const std::tuple<int, std::uint32_t, std::uint8_t>& t) {
        return Mutation{static_cast<Mutation::Op>(std::get<0>(t)), std::get<1>(t), std::get<2>(t)};
      });
}

std::string hex_byte(std::uint8_t b) { return hex_encode(std::string(1, static_cast<char>(b))); }

// Applies `m`, appending a description of it to `log`.
void apply(std::string& s, const Mutation& m, std::string& log) {
  const std::size_t at = m.pos % (s.size() + 1);
  const std::string where = "@" + std::to_string(at);
  switch (m.op) {
    case Mutation::Flip:
      if (at < s.size()) {
        const std::uint8_t bit = static_cast<std::uint8_t>(1u << (m.byte % 8));
        s[at] = static_cast<char>(static_cast<std::uint8_t>(s[at]) ^ bit);
        log += " flip" + where + "^" + hex_byte(bit);
      }
      return;
    case Mutation::Set:
      if (at < s.size()) {
        s[at] = static_cast<char>(m.byte);
        log += " set" + where + "=" + hex_byte(m.byte);
      }
      return;
    case Mutation::Insert:
      s.insert(s.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(m.byte));
      log += " insert" + where + "=" + hex_byte(m.byte);
      return;
    case Mutation::Delete:
      if (at < s.size()) {
        s.erase(at, 1);
        log += " delete" + where;
      }
      return;
    case Mutation::Truncate:
      s.resize(at);
      log += " truncate" + where;
      return;
  }
}

}  // namespace

rc::Gen<ByteStream> randomBytes() {
  return rc::gen::map(randomBytesOf(64), [](std::string s) {
    return ByteStream{std::move(s), "random bytes"};
  });
}

rc::Gen<ByteStream> opcodeSoup() {
  auto proto = weightedChoice<std::string>(
      {{1, rc::gen::just(std::string())},
       {3, rc::gen::map(rc::gen::resize(100, rc::gen::inRange(0, 7)), [](int p) {
          return std::string{'\x80', static_cast<char>(p)};
        })}});
  auto body = rc::gen::resize(24, rc::gen::container<std::vector<std::string>>(opcodeChunk()));
  return rc::gen::map(rc::gen::tuple(proto, body, chance(4, 5)),
                      [](const std::tuple<std::string, std::vector<std::string>, bool>& t) {
                        std::string s = std::get<0>(t);
                        for (const auto& c : std::get<1>(t)) s += c;
                        if (std::get<2>(t)) s.push_back('.');
                        return ByteStream{std::move(s), "opcode soup"};
                      });
}

rc::Gen<ByteStream> mutatedEncoding(const GenConfig& config) {
  auto mutations =
      rc::gen::resize(4, rc::gen::nonEmpty(rc::gen::container<std::vector<Mutation>>(mutation())));
  return rc::gen::map(
      rc::gen::tuple(value(config), rc::gen::resize(100, rc::gen::inRange(0, 6)), mutations),
      [](const std::tuple<GeneratedValue, int, std::vector<Mutation>>& t) {
        const auto& [v, protocol, muts] = t;
        std::string bytes;
        int used = protocol;
        try {
          bytes = pickle::encode(v.root, {.protocol = protocol}).bytes;
        } catch (const pickle::PickleError&) {
          used = 5;  // e.g. a PickleBuffer below protocol 5
          try {
            bytes = pickle::encode(v.root, {.protocol = 5}).bytes;
          } catch (const pickle::PickleError&) {
            bytes.clear();
          }
        }
        std::string json = to_json(v.root);
        if (json.size() > 200) json = json.substr(0, 200) + "...";
        std::string log = "protocol " + std::to_string(used) + " encoding of " + json + ";";
        for (const Mutation& m : muts) apply(bytes, m, log);
        return ByteStream{std::move(bytes), std::move(log)};
      });
}

rc::Gen<ByteStream> hostileStream(const GenConfig& config) {
  return weightedChoice<ByteStream>(
      {{1, randomBytes()}, {2, opcodeSoup()}, {3, mutatedEncoding(config)}});
}

void showValue(const ByteStream& stream, std::ostream& os) {
  os << stream.origin << "\n  " << stream.bytes.size() << " bytes:";
  for (std::size_t i = 0; i < stream.bytes.size(); ++i) {
    if (i == 4096) {
      os << " ...";
      break;
    }
    os << ' ' << hex_byte(static_cast<std::uint8_t>(stream.bytes[i]));
  }
}

}  // namespace serialcheck::gen
