// The decoder's resource guarantees (docs/safe-loading.md): hostile inputs
// are refused or decoded within the bounds of reference/pickle/limits.h, and
// no limit refuses what CPython's pickler writes for ordinary data, however
// large. Also the decode.bounded property. Each case prints its measured
// ratios ("[ bounds ]" lines), which is where the documented numbers come from.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

#include "harness/gen/config.h"
#include "harness/gen/stream.h"
#include "harness/props/hostile_props.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/limits.h"
#include "reference/value/value.h"
#include "suite/tests/support/bytes.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;

using test_support::le32;
using test_support::le64;
using test_support::repeat;

struct Measured {
  bool ok = false;
  ErrorKind kind = ErrorKind::BadValue;
  std::size_t offset = 0;
  std::string what;
  DecodeStats stats;
  const Node* root = nullptr;
};

Measured measure(std::string_view data, Graph& g, const Limits& limits = {}) {
  DecodeOptions options;
  options.limits = limits;
  options.stand_in_buffers = true;
  Measured m;
  options.stats = &m.stats;
  try {
    m.root = decode(data, g, options).root;
    m.ok = true;
  } catch (const PickleError& e) {
    m.kind = e.kind();
    m.offset = e.offset();
    m.what = e.what();
  }
  return m;
}

void report(std::string_view name, const Measured& m) {
  const auto n = static_cast<double>(std::max<std::size_t>(m.stats.input_size, 1));
  std::cout << fmt::format(
      "[ bounds ] {:<34} n={:>10} {:<16} steps/n={:.2f} work/n={:.2f} alloc/n={:.2f} "
      "nodes/step={:.2f}\n",
      name, m.stats.input_size, m.ok ? "decoded" : error_kind_name(m.kind),
      static_cast<double>(m.stats.steps) / n, static_cast<double>(m.stats.work) / n,
      static_cast<double>(m.stats.allocated) / n,
      m.stats.steps ? static_cast<double>(m.stats.nodes) / static_cast<double>(m.stats.steps)
                    : 0.0);
}

// Decodes `data`, reports, checks the bounds; returns the measurement.
Measured within_bounds(std::string_view name, std::string_view data, Graph& g,
                       const Limits& limits = {}) {
  Measured m = measure(data, g, limits);
  report(name, m);
  EXPECT_EQ(m.stats.input_size, data.size());
  EXPECT_EQ(props::stats_outside_bounds(m.stats, limits), "") << name;
  if (!m.ok) {
    EXPECT_LE(m.offset, data.size()) << m.what;
  }
  return m;
}

void expect_refused(std::string_view name, std::string_view data, ErrorKind kind,
                    const Limits& limits = {}) {
  Graph g;
  const Measured m = within_bounds(name, data, g, limits);
  EXPECT_FALSE(m.ok) << name << " decoded";
  EXPECT_EQ(error_kind_name(m.kind), error_kind_name(kind)) << name << ": " << m.what;
}

const Node* expect_decoded(std::string_view name, std::string_view data, Graph& g,
                           const Limits& limits = {}) {
  const Measured m = within_bounds(name, data, g, limits);
  EXPECT_TRUE(m.ok) << name << ": " << m.what;
  return m.root;
}

// ---- hostile inputs --------------------------------------------------------------

TEST(Bounds, DeepNestingStopsAtTheMarkLimit) {
  const std::string marks = std::string(1000000, '(') + "N.";
  Graph g;
  const Measured m = within_bounds("1e6 MARKs", marks, g);
  ASSERT_FALSE(m.ok);
  EXPECT_EQ(m.kind, ErrorKind::LimitExceeded);
  EXPECT_EQ(m.offset, Limits{}.max_depth);
  // Nesting without marks is not limited, and costs nothing per level.
  const std::string lists = "\x80\x02" + std::string(1000000, ']') + std::string(999999, 'a') + ".";
  Graph g2;
  expect_decoded("1e6-deep lists, APPEND only", lists, g2);
}

TEST(Bounds, MemoSpam) {
  Graph g1, g2;
  expect_decoded("1e6 MEMOIZE", "\x80\x04N" + std::string(1000000, '\x94') + ".", g1);
  std::mt19937 rng(7);
  std::string sparse = "N";
  for (int i = 0; i < 200000; ++i) sparse += "r" + le32(rng() % (1u << 24));
  expect_decoded("2e5 LONG_BINPUT, random keys", sparse + ".", g2);
  Limits small;
  small.max_memo = 1000;
  expect_refused("MEMOIZE past max_memo", "\x80\x04N" + std::string(5000, '\x94') + ".",
                 ErrorKind::LimitExceeded, small);
  expect_refused("LONG_BINPUT key 2^32-1", "Nr\xff\xff\xff\xff."sv, ErrorKind::LimitExceeded);
}

TEST(Bounds, HugeDeclaredLengthsAllocateNothing) {
  struct Case {
    std::string name;
    std::string data;
    ErrorKind kind;
  };
  const std::vector<Case> cases = {
      {"BINBYTES8 2^62", "\x80\x04\x8e" + le64(1ull << 62) + ".", ErrorKind::Truncated},
      {"BINUNICODE8 2^40", "\x80\x04\x8d" + le64(1ull << 40) + "ab.", ErrorKind::Truncated},
      {"BYTEARRAY8 2^64-1", "\x80\x05\x96" + le64(~0ull) + ".", ErrorKind::LimitExceeded},
      {"BINBYTES 2^32-1", "\x80\x03\x42" + le32(0xFFFFFFFFu) + ".", ErrorKind::Truncated},
      {"LONG4 2^31-1", "\x80\x02\x8b" + le32(0x7FFFFFFFu) + ".", ErrorKind::Truncated},
      {"BINSTRING negative", "T" + le32(0x80000000u) + ".", ErrorKind::BadValue},
      {"FRAME 2^60", "\x80\x04\x95" + le64(1ull << 60) + "N.", ErrorKind::Truncated},
  };
  for (const Case& c : cases) {
    Graph g;
    const Measured m = within_bounds(c.name, c.data, g);
    EXPECT_FALSE(m.ok) << c.name;
    EXPECT_EQ(m.kind, c.kind) << c.name << ": " << m.what;
    EXPECT_LT(m.stats.allocated, 1024u) << c.name;
  }
}

TEST(Bounds, RepeatedDupAppendAndPutGetChains) {
  Graph g1, g2, g3, g4;
  const Node* self =
      expect_decoded("5e5 DUP+APPEND (self-list)", "]" + repeat("2a", 500000) + ".", g1);
  ASSERT_TRUE(self);
  EXPECT_EQ(self->items.size(), 500000u);
  const Measured dup = within_bounds("1e6 DUP", "N" + std::string(1000000, '2') + ".", g2);
  EXPECT_TRUE(dup.ok);
  EXPECT_EQ(dup.stats.max_stack, 1000001u);
  expect_decoded("2.5e5 BINGET/BINPUT chain",
                 "]q\x00"s + repeat("h\x00q\x00"sv, 250000) + "0h\x00."s, g3);
  expect_decoded("2e5 PUT/GET text chain", "N" + repeat("p1\ng1\n", 200000) + ".", g4);
}

TEST(Bounds, RandomMegabytes) {
  for (std::uint32_t seed = 1; seed <= 16; ++seed) {
    std::mt19937 rng(seed);
    std::string data(1u << 20, '\0');
    for (char& c : data) c = static_cast<char>(rng() & 0xFF);
    if (seed % 2 == 0) data = "\x80\x05" + data;  // past the first opcode, sometimes
    Graph g;
    within_bounds(fmt::format("1 MB random bytes, seed {}", seed), data, g);
  }
  // Random bytes stop at the first bad opcode. Random opcodes that always
  // find what they need on the stack run to the end: pushes, DUP, POP,
  // TUPLE1-3, MEMOIZE and BINGET of a stored key.
  for (std::uint32_t seed = 1; seed <= 8; ++seed) {
    std::mt19937 rng(seed);
    std::string data = "\x80\x04";
    std::size_t depth = 0, memo = 0;
    while (data.size() < (1u << 20)) {
      switch (rng() % 9) {
        case 0:
          data += "N)]}"[rng() % 4];
          ++depth;
          break;
        case 1:
          data += "K"s + static_cast<char>(rng() & 0xFF);
          ++depth;
          break;
        case 2:
          if (depth >= 1) {
            data += '2';
            ++depth;
          }
          break;
        case 3:
          if (depth >= 2) {
            data += '0';
            --depth;
          }
          break;
        case 4:
          if (depth >= 1) data += '\x85';
          break;
        case 5:
          if (depth >= 2) {
            data += '\x86';
            --depth;
          }
          break;
        case 6:
          if (depth >= 3) {
            data += '\x87';
            depth -= 2;
          }
          break;
        case 7:
          if (depth >= 1) {
            data += '\x94';
            ++memo;
          }
          break;
        case 8:
          if (memo > 0) {
            data += "h"s + static_cast<char>(rng() % std::min<std::size_t>(memo, 256));
            ++depth;
          }
          break;
      }
    }
    if (depth == 0) data += 'N';
    data += '.';
    Graph g;
    const Measured m =
        within_bounds(fmt::format("1 MB random stack opcodes, seed {}", seed), data, g);
    EXPECT_TRUE(m.ok) << m.what;
  }
}

TEST(Bounds, AmplificationIsCharged) {
  // NEWOBJ copying a shared 10,000-item tuple again and again.
  std::string newobj = "\x80\x02("s + repeat("K\x01", 10000) + "tq\x00\x63m\nC\nq\x01"s +
                       repeat("h\x01h\x00\x81\x30"sv, 20000) + "N.";
  expect_refused("NEWOBJ on a shared tuple", newobj, ErrorKind::LimitExceeded);
  // set(list) of a shared 10,000-item list again and again.
  std::string sets = "\x80\x02]q\x00("s + repeat("K\x01", 10000) + "e\x63__builtin__\nset\nq\x01"s +
                     repeat("h\x01h\x00\x85R0"sv, 20000) + "N.";
  expect_refused("set() of a shared list", sets, ErrorKind::LimitExceeded);
  // STACK_GLOBAL of two memoized 100 KB strs, 200 times.
  const std::string big(100000, 'm');
  std::string names = "\x80\x04X"s + le32(100000) + big + "q\x00X"s + le32(100000) + big + "q\x01"s;
  names += repeat("h\x00h\x01\x93\x30"sv, 200) + "N.";
  expect_refused("STACK_GLOBAL of long memoized strs", names, ErrorKind::LimitExceeded);
  // A call with a shared 100,000-item tuple as arguments, 100,000 times:
  // nothing looks into the tuple, so this stays linear and decodes.
  std::string calls = "\x80\x02("s + repeat("K\x01", 100000) + "tq\x00\x63m\nf\nq\x01"s +
                      repeat("h\x01h\x00R0"sv, 100000) + "N.";
  Graph g;
  expect_decoded("REDUCE with a shared long tuple", calls, g);
}

TEST(Bounds, LongDecimalIntegersAreCountedAndCapped) {
  const std::string digits(4300, '7');
  Graph g;
  expect_decoded("200 INTs of 4300 digits", "(" + repeat("I" + digits + "\n", 200) + "l.", g);
  expect_refused("INT of 4301 digits", "I" + digits + "7\n.", ErrorKind::LimitExceeded);
}

TEST(Bounds, TightLimitsAreKeptToo) {
  Limits tight;
  tight.alloc_per_input_byte = 1;
  tight.alloc_constant = 0;
  expect_refused("10 KB str under 1 byte/byte",
                 "X" + le32(10000) + std::string(10000, 'a') + "X" + le32(10) + "0123456789\x86.",
                 ErrorKind::LimitExceeded, tight);
}

// ---- no limit refuses ordinary data ----------------------------------------------

std::string encode_at(const Node* v, int protocol) {
  EncodeOptions o;
  o.protocol = protocol;
  o.max_depth = 1000000;
  return encode(v, o).bytes;
}

TEST(Bounds, GoldenCorpusDecodesWithinTheBounds) {
  const std::filesystem::path dir = std::filesystem::path(SERIALCHECK_SOURCE_DIR) / "corpus/golden";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no golden corpus at " << dir;
  std::size_t count = 0;
  double max_work = 0, max_alloc = 0, max_nodes = 0;
  std::string worst_alloc, worst_work;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    if (entry.path().extension() != ".pickle") continue;
    std::ifstream in(entry.path(), std::ios::binary);
    const std::string data((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    Graph g;
    const Measured m = measure(data, g);
    EXPECT_TRUE(m.ok) << entry.path().filename() << ": " << m.what;
    EXPECT_EQ(props::stats_outside_bounds(m.stats, Limits{}), "") << entry.path().filename();
    const auto n = static_cast<double>(data.size());
    if (static_cast<double>(m.stats.work) / n > max_work) {
      max_work = static_cast<double>(m.stats.work) / n;
      worst_work = entry.path().filename().string();
    }
    if (static_cast<double>(m.stats.allocated) / n > max_alloc) {
      max_alloc = static_cast<double>(m.stats.allocated) / n;
      worst_alloc = entry.path().filename().string();
    }
    max_nodes =
        std::max(max_nodes, static_cast<double>(m.stats.nodes) /
                                static_cast<double>(std::max<std::size_t>(m.stats.steps, 1)));
    ++count;
  }
  EXPECT_GT(count, 100u);
  std::cout << fmt::format(
      "[ bounds ] golden corpus: {} pickles, max work/n {:.2f} ({}), max alloc/n {:.2f} ({}), "
      "max nodes/step {:.2f}\n",
      count, max_work, worst_work, max_alloc, worst_alloc, max_nodes);
}

TEST(Bounds, LargeOrdinaryValuesAreNotRefused) {
  Graph g;
  std::vector<Node*> ints;
  ints.reserve(1000000);
  for (std::int64_t i = 0; i < 1000000; ++i) ints.push_back(g.integer(i * 7919 - 3000000));
  Node* int_list = g.list(std::move(ints));
  std::vector<Node*> tuples(1000000, nullptr);
  for (auto& t : tuples) t = g.tuple();
  Node* tuple_list = g.list(std::move(tuples));
  std::vector<Node*> strs;
  for (int i = 0; i < 100000; ++i) {
    strs.push_back(g.str(fmt::format("key-{}", i)));
    strs.push_back(g.floating(i * 0.5));
  }
  Node* dict = g.dict(std::move(strs));
  for (int p = 0; p <= 5; ++p) {
    SCOPED_TRACE(p);
    for (auto [name, v] :
         {std::pair{"1e6 ints", int_list}, std::pair{"1e6 empty tuples", tuple_list},
          std::pair{"1e5-item str->float dict", dict}}) {
      Graph out;
      const Node* back =
          expect_decoded(fmt::format("{}, protocol {}", name, p), encode_at(v, p), out);
      ASSERT_TRUE(back);
      EXPECT_EQ(back->items.size(), v->items.size());
    }
  }
}

TEST(Bounds, LargeBytesAreNotRefused) {
  std::string payload(50u << 20, '\0');
  std::mt19937 rng(3);
  for (char& c : payload) c = static_cast<char>(rng() & 0xFF);
  for (int p = 0; p <= 5; ++p) {
    SCOPED_TRACE(p);
    // Below protocol 3 bytes are _codecs.encode(str): 1 MB there.
    Graph g;
    Node* v = g.bytes(p >= 3 ? payload : payload.substr(0, 1u << 20));
    Graph out;
    const Node* back =
        expect_decoded(fmt::format("{} MB bytes, protocol {}", v->payload().size() >> 20, p),
                       encode_at(v, p), out);
    ASSERT_TRUE(back);
    EXPECT_EQ(back->kind, Kind::Bytes);
    EXPECT_EQ(back->payload().size(), v->payload().size());
  }
}

TEST(Bounds, DeepOrdinaryNestingIsNotRefused) {
  constexpr std::size_t kDepth = 100000;
  Graph g;
  Node* list = g.list({g.integer(1)});
  Node* tuple = g.tuple({g.integer(1)});
  Node* dict = g.dict({g.str("k"), g.integer(1)});
  Node* frozen = g.frozenset({g.integer(1)});
  for (std::size_t i = 1; i < kDepth; ++i) {
    list = g.list({list});
    tuple = g.tuple({tuple});
    dict = g.dict({g.str("k"), dict});
    frozen = g.frozenset({frozen});
  }
  for (int p = 0; p <= 5; ++p) {
    SCOPED_TRACE(p);
    for (auto [name, v] : {std::pair{"lists", list}, std::pair{"tuples", tuple},
                           std::pair{"dicts", dict}, std::pair{"frozensets", frozen}}) {
      Graph out;
      const Node* back =
          expect_decoded(fmt::format("1e5-deep {}, protocol {}", name, p), encode_at(v, p), out);
      ASSERT_TRUE(back);
    }
  }
}

// ---- decode.bounded ----------------------------------------------------------------

// A prefix, then one short fragment repeated up to 2000 times, then STOP:
// the shape amplification attacks have.
rc::Gen<gen::ByteStream> repeatedFragment() {
  return rc::gen::map(
      rc::gen::tuple(gen::opcodeSoup(), gen::opcodeSoup(), rc::gen::inRange(1, 2000)),
      [](const std::tuple<gen::ByteStream, gen::ByteStream, int>& t) {
        const auto& [prefix, fragment, times] = t;
        std::string p = prefix.bytes;
        std::string f = fragment.bytes;
        if (!p.empty() && p.back() == '.') p.pop_back();
        if (!f.empty() && f.back() == '.') f.pop_back();
        gen::ByteStream s;
        s.bytes = p + repeat(f, static_cast<std::size_t>(times)) + ".";
        s.origin =
            fmt::format("prefix ({}), fragment ({}) x {}", prefix.origin, fragment.origin, times);
        return s;
      });
}

void require(const props::CheckResult& r) {
  if (r.failed()) RC_FAIL(r.message);
}

RC_GTEST_PROP(DecodeBounded, RandomBytes, ()) {
  require(props::decode_bounded((*gen::randomBytes()).bytes));
}

RC_GTEST_PROP(DecodeBounded, OpcodeSoup, ()) {
  require(props::decode_bounded((*gen::opcodeSoup()).bytes));
}

RC_GTEST_PROP(DecodeBounded, MutatedEncoding, ()) {
  require(props::decode_bounded((*gen::mutatedEncoding(gen::small_config())).bytes));
}

RC_GTEST_PROP(DecodeBounded, RepeatedFragment, ()) {
  require(props::decode_bounded((*repeatedFragment()).bytes));
}

RC_GTEST_PROP(DecodeBounded, TightLimits, ()) {
  Limits limits;
  limits.alloc_per_input_byte = *rc::gen::inRange<std::size_t>(0, 65);
  limits.alloc_constant = *rc::gen::inRange<std::size_t>(0, 4097);
  limits.max_depth = *rc::gen::inRange<std::size_t>(0, 65);
  limits.max_memo = *rc::gen::inRange<std::size_t>(0, 65);
  require(props::decode_bounded((*gen::hostileStream(gen::small_config())).bytes, limits));
}

TEST(DecodeBounded, FailsWhenABoundIsBroken) {
  DecodeStats st;
  st.input_size = 10;
  st.steps = 11;
  EXPECT_NE(props::stats_outside_bounds(st, Limits{}).find("steps 11 > bound 10"),
            std::string::npos);
  st.steps = 10;
  st.nodes = 41;
  EXPECT_NE(props::stats_outside_bounds(st, Limits{}).find("nodes"), std::string::npos);
  st.nodes = 40;
  EXPECT_EQ(props::stats_outside_bounds(st, Limits{}), "");
}

}  // namespace
}  // namespace serialcheck::pickle
