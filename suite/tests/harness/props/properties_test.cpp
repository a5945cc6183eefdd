// The codec properties (docs/conformance.md) checked on the reference codec
// with generated values, one test per property and protocol; and sanity
// checks of the generators themselves: they reach every kind, sharing and
// cycles happen, the presets keep their promises, and shrinking simplifies.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "harness/gen/build.h"
#include "harness/gen/config.h"
#include "harness/gen/names.h"
#include "harness/gen/plan.h"
#include "harness/gen/shape.h"
#include "harness/gen/stream.h"
#include "harness/gen/value.h"
#include "harness/props/codec_props.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/errors.h"

namespace {

using serialcheck::Kind;
using serialcheck::Node;
namespace gen = serialcheck::gen;
namespace props = serialcheck::props;

// A value generated for checks at `protocol`.
gen::GenConfig config_at(int protocol) {
  gen::GenConfig c = gen::default_config();
  c.min_protocol = protocol;
  return c;
}

// The same, with pickle buffers at protocol 5.
gen::GenConfig buffers_at(int protocol) {
  gen::GenConfig c = config_at(protocol);
  c.allow_buffers = protocol == 5;
  return c;
}

void require(const props::CheckResult& r) {
  if (r.failed()) RC_FAIL(r.message);
  // A skip can only come from inputs the generator should not have produced.
  RC_ASSERT(!r.skipped());
}

}  // namespace

// ---- roundtrip.equal, roundtrip.reencode, roundtrip.identity per protocol ----

#define SC_CODEC_PROPERTIES(P)                            \
  RC_GTEST_PROP(RoundtripEqual, Protocol##P, ()) {        \
    const auto v = *gen::value(config_at(P));             \
    require(props::roundtrip_equal(v.root, P));           \
  }                                                       \
  RC_GTEST_PROP(RoundtripReencode, Protocol##P, ()) {     \
    const auto v = *gen::value(buffers_at(P));            \
    require(props::roundtrip_reencode(v.root, P));        \
  }                                                       \
  RC_GTEST_PROP(RoundtripIdentity, Protocol##P, ()) {     \
    const auto v = *gen::valueWithSharing(buffers_at(P)); \
    require(props::roundtrip_identity(v.root, P));        \
  }

SC_CODEC_PROPERTIES(0)
SC_CODEC_PROPERTIES(1)
SC_CODEC_PROPERTIES(2)
SC_CODEC_PROPERTIES(3)
SC_CODEC_PROPERTIES(4)
SC_CODEC_PROPERTIES(5)

RC_GTEST_PROP(RoundtripEqual, Protocol5OutOfBand, ()) {
  const auto v = *gen::value(config_at(5));
  require(props::roundtrip_equal_out_of_band(v.root));
}

RC_GTEST_PROP(RoundtripReencode, Protocol5OutOfBand, ()) {
  const auto v = *gen::value(config_at(5));
  require(props::roundtrip_reencode(v.root, 5, /*out_of_band=*/true));
}

// ---- protocol.mismatch: a stream at protocol P, a loader below it ----

#define SC_MISMATCH_PROPERTY(P)                           \
  RC_GTEST_PROP(ProtocolMismatch, Stream##P, ()) {        \
    gen::GenConfig c = gen::small_config();               \
    c.min_protocol = P;                                   \
    c.allow_buffers = (P) == 5;                           \
    const auto v = *gen::value(c);                        \
    const int loader = *rc::gen::inRange(0, P);           \
    require(props::protocol_mismatch(v.root, P, loader)); \
  }

SC_MISMATCH_PROPERTY(2)
SC_MISMATCH_PROPERTY(3)
SC_MISMATCH_PROPERTY(4)
SC_MISMATCH_PROPERTY(5)

// ---- decode.total ----

RC_GTEST_PROP(DecodeTotal, RandomBytes, ()) {
  const auto s = *gen::randomBytes();
  require(props::decode_total(s.bytes));
}

RC_GTEST_PROP(DecodeTotal, OpcodeSoup, ()) {
  const auto s = *gen::opcodeSoup();
  require(props::decode_total(s.bytes));
}

RC_GTEST_PROP(DecodeTotal, MutatedEncoding, ()) {
  const auto s = *gen::mutatedEncoding(gen::small_config());
  require(props::decode_total(s.bytes));
}

// ---- the properties catch what they claim to catch ----

TEST(CodecProperties, ReportSkipsAndFailuresOfTheirOwnInputs) {
  serialcheck::Graph g;
  Node* plain = g.list({g.integer(1), g.str("a")});
  EXPECT_TRUE(props::roundtrip_identity(plain, 3).skipped());  // nothing shared
  EXPECT_TRUE(props::protocol_mismatch(plain, 3, 3).skipped());
  EXPECT_TRUE(props::protocol_mismatch(plain, 1, 0).skipped());  // no PROTO below 2
  Node* buffered = g.list({g.pickle_buffer("xy", true)});
  EXPECT_TRUE(props::roundtrip_reencode(buffered, 4).skipped());
  // Truncated input is a PickleError, which decode.total accepts.
  EXPECT_FALSE(props::decode_total(std::string_view("\x80\x04\x95", 3)).failed());
  EXPECT_FALSE(props::decode_total(std::string_view()).failed());
}

TEST(CodecProperties, HoldOnHandPickedValues) {
  serialcheck::Graph g;
  Node* shared = g.str("shared");
  Node* cyclic = g.list();
  cyclic->items = {shared, shared, cyclic, g.pickle_buffer("buf", false)};
  for (int p = 0; p <= 5; ++p) {
    SCOPED_TRACE(p);
    const auto r = props::roundtrip_equal(cyclic, p);  // below 5: must refuse the buffer
    EXPECT_FALSE(r.failed()) << r.message;
  }
  cyclic->items.pop_back();
  for (int p = 0; p <= 5; ++p) {
    SCOPED_TRACE(p);
    for (const auto& r : {props::roundtrip_equal(cyclic, p), props::roundtrip_reencode(cyclic, p),
                          props::roundtrip_identity(cyclic, p)}) {
      EXPECT_EQ(r.verdict, props::CheckResult::Verdict::Pass) << r.message;
    }
  }
  const auto oob = props::roundtrip_equal_out_of_band(g.list({g.pickle_buffer("zc", true)}));
  EXPECT_EQ(oob.verdict, props::CheckResult::Verdict::Pass) << oob.message;
}

TEST(CodecProperties, NewobjObjectsShareTheirCallableAtEveryProtocol) {
  // copyreg.__newobj__ is one object, and the encoder memoizes globals by
  // name: two NEWOBJ-form objects hold one callable node, at every protocol
  // (from protocol 2 on the stream does not carry the callable at all).
  serialcheck::Graph g;
  Node* newobj = g.global("copyreg", "__newobj__");
  Node* value = g.list({g.object(newobj, g.tuple({g.global("m_mod", "A")})),
                        g.object(newobj, g.tuple({g.global("m_mod", "B")}))});
  for (int p = 0; p <= 5; ++p) {
    SCOPED_TRACE(p);
    const auto r = props::roundtrip_equal(value, p);
    EXPECT_EQ(r.verdict, props::CheckResult::Verdict::Pass) << r.message;
  }
}

// ---- generator sanity ----

namespace {

constexpr int kSamples = 500;

// kSamples values drawn as RapidCheck would: sizes cycling through 0..100.
template <typename T>
std::vector<T> sample(const rc::Gen<T>& g, std::uint64_t seed, int count = kSamples) {
  rc::Random random(seed);
  std::vector<T> out;
  out.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) out.push_back(g(random.split(), i % 101).value());
  return out;
}

struct Census {
  std::array<int, gen::kKindCount> values_with_kind{};
  int with_sharing = 0;
  int cyclic = 0;
};

Census census(const std::vector<gen::GeneratedValue>& values) {
  Census c;
  for (const auto& v : values) {
    const gen::Shape s = gen::shape_of(v.root);
    for (std::size_t k = 0; k < gen::kKindCount; ++k) c.values_with_kind[k] += s.kinds[k] > 0;
    c.with_sharing += s.shared > 0;
    c.cyclic += s.cyclic;
  }
  return c;
}

std::vector<const Node*> nodes_of(const Node* root) {
  std::vector<const Node*> out;
  std::unordered_set<const Node*> seen{root};
  std::vector<const Node*> stack{root};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    out.push_back(n);
    for (const Node* kid : gen::children(*n)) {
      if (seen.insert(kid).second) stack.push_back(kid);
    }
  }
  return out;
}

}  // namespace

TEST(Generators, DefaultConfigReachesEveryKindWithSharingAndCycles) {
  const Census c = census(sample(gen::value(gen::default_config()), 1));
  for (std::size_t k = 0; k < gen::kKindCount; ++k) {
    // No pickle form: the family generators have it (next test).
    if (static_cast<Kind>(k) == Kind::DeviceBuffer) continue;
    EXPECT_GT(c.values_with_kind[k], 0) << serialcheck::kind_name(static_cast<Kind>(k));
  }
  EXPECT_GE(c.with_sharing, kSamples / 20);
  EXPECT_GE(c.cyclic, kSamples / 50);
}

TEST(Generators, DeviceBuffersWhenTurnedOn) {
  gen::GenConfig config = gen::default_config();
  EXPECT_FALSE(config.allow_device_buffers);
  config.allow_device_buffers = true;
  const Census c = census(sample(gen::value(config), 4));
  EXPECT_GT(c.values_with_kind[static_cast<std::size_t>(Kind::DeviceBuffer)], 0);
}

TEST(Generators, SwitchesTurnFeaturesOff) {
  gen::GenConfig config = gen::default_config();
  config.allow_sharing = false;
  config.allow_cycles = false;
  config.allow_buffers = false;
  config.allow_persid = false;
  config.allow_objects = false;
  const auto values = sample(gen::value(config), 2);
  for (const auto& v : values) {
    if (gen::shape_of(v.root).shared > 0) ADD_FAILURE() << "sharing in " << v;
  }
  const Census c = census(values);
  EXPECT_EQ(c.with_sharing, 0);
  EXPECT_EQ(c.cyclic, 0);
  EXPECT_EQ(c.values_with_kind[static_cast<std::size_t>(Kind::PickleBuffer)], 0);
  EXPECT_EQ(c.values_with_kind[static_cast<std::size_t>(Kind::PersId)], 0);
  EXPECT_EQ(c.values_with_kind[static_cast<std::size_t>(Kind::Object)], 0);
}

TEST(Generators, ValueWithSharingAlwaysShares) {
  for (const auto& v : sample(gen::valueWithSharing(gen::small_config()), 3)) {
    EXPECT_GT(gen::shape_of(v.root).shared, 0u) << v;
  }
}

TEST(Generators, KeysAndSetItemsAreHashableAndDistinct) {
  int checked = 0;
  for (const auto& v : sample(gen::value(gen::default_config()), 4)) {
    for (const Node* n : nodes_of(v.root)) {
      std::vector<const Node*> keys;
      if (n->kind == Kind::Dict) {
        for (std::size_t i = 0; i < n->items.size(); i += 2) keys.push_back(n->items[i]);
      } else if (n->kind == Kind::Set || n->kind == Kind::FrozenSet) {
        keys.assign(n->items.begin(), n->items.end());
      } else {
        continue;
      }
      std::set<std::string> distinct;
      for (const Node* k : keys) {
        const auto key = gen::hash_key(k);
        ASSERT_TRUE(key.has_value()) << "unhashable key in " << v;
        distinct.insert(*key);
        ++checked;
      }
      EXPECT_EQ(distinct.size(), keys.size()) << "keys Python would find equal in " << v;
    }
  }
  EXPECT_GT(checked, 100);
}

TEST(Generators, HashKeyFollowsPythonEquality) {
  serialcheck::Graph g;
  EXPECT_EQ(gen::hash_key(g.integer(1)), gen::hash_key(g.boolean(true)));
  EXPECT_EQ(gen::hash_key(g.integer(1)), gen::hash_key(g.floating(1.0)));
  EXPECT_EQ(gen::hash_key(g.floating(-0.0)), gen::hash_key(g.boolean(false)));
  // 2**64 as a float and as a big int.
  EXPECT_EQ(gen::hash_key(g.floating(18446744073709551616.0)),
            gen::hash_key(g.integer_le(std::string("\x00\x00\x00\x00\x00\x00\x00\x00\x01", 9))));
  EXPECT_EQ(gen::hash_key(g.floating(-18446744073709551616.0)),
            gen::hash_key(g.integer_le(std::string("\x00\x00\x00\x00\x00\x00\x00\x00\xff", 9))));
  EXPECT_NE(gen::hash_key(g.floating(1.5)), gen::hash_key(g.integer(1)));
  EXPECT_NE(gen::hash_key(g.str("a")), gen::hash_key(g.bytes("a")));
  EXPECT_EQ(gen::hash_key(g.frozenset({g.integer(1), g.str("x")})),
            gen::hash_key(g.frozenset({g.str("x"), g.floating(1.0)})));
  EXPECT_FALSE(gen::hash_key(g.floating(std::nan(""))).has_value());
  EXPECT_FALSE(gen::hash_key(g.tuple({g.list()})).has_value());
}

TEST(Generators, NothingUnmemoizedIsShared) {
  // Pickle never memoizes an empty tuple, an out-of-band buffer or a
  // persistent id, so sharing one could not survive a round trip.
  for (const auto& v : sample(gen::value(gen::default_config()), 5)) {
    std::unordered_map<const Node*, int> refs;
    for (const Node* n : nodes_of(v.root)) {
      for (const Node* kid : gen::children(*n)) ++refs[kid];
    }
    for (const auto& [n, count] : refs) {
      if (count < 2) continue;
      EXPECT_NE(n->kind, Kind::PickleBuffer) << v;
      EXPECT_NE(n->kind, Kind::PersId) << v;
      EXPECT_FALSE(n->kind == Kind::Tuple && n->items.empty()) << v;
    }
  }
}

TEST(Generators, OneNodePerValueWhereIdentityIsByValue) {
  for (const auto& v : sample(gen::value(gen::default_config()), 10)) {
    std::map<std::string, const Node*> by_value;
    for (const Node* n : nodes_of(v.root)) {
      std::string key;
      if (n->kind == Kind::Global) {
        key = "global " + std::string(n->payload()) + "." + n->name();
      } else if (n->kind == Kind::Module) {
        key = "module " + n->name();
      } else if (gen::is_singleton(*n)) {
        key = std::string(serialcheck::kind_name(n->kind)) + " " + std::string(n->payload());
      } else {
        continue;
      }
      auto [it, fresh] = by_value.emplace(key, n);
      EXPECT_EQ(it->second, n) << "two nodes for " << key << " in " << v;
    }
  }
}

TEST(Generators, ProtocolZeroValuesFitProtocolZero) {
  for (const auto& v : sample(gen::value(config_at(0)), 6)) {
    for (const Node* n : nodes_of(v.root)) {
      if (n->kind == Kind::Float && std::isnan(n->f)) {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(n->f), 0x7ff8000000000000ULL) << v;
      }
      if (n->kind == Kind::PersId) {
        const Node* pid = n->items.at(0);
        ASSERT_EQ(pid->kind, Kind::Str) << v;
        for (char ch : pid->payload()) EXPECT_TRUE(ch >= 32 && ch < 127) << v;
      }
    }
  }
}

TEST(Generators, PythonSafePresetKeepsToRealPythonValues) {
  std::set<std::pair<std::string, std::string>> real;
  for (const auto& [m, n] : gen::real_global_names()) real.emplace(m, n);
  std::map<std::string, int> singletons_seen;
  for (const auto& v : sample(gen::value(gen::python_safe_config()), 7)) {
    std::map<std::string, const Node*> singleton_node;
    for (const Node* n : nodes_of(v.root)) {
      EXPECT_NE(n->kind, Kind::PersId) << v;
      EXPECT_NE(n->kind, Kind::Object) << v;
      if (n->kind == Kind::Global) {
        EXPECT_TRUE(real.count({std::string(n->payload()), n->name()})) << v;
      }
      // CPython keeps one object per one-character str: so does the value.
      if (n->kind == Kind::Str && n->payload().size() <= 1) {
        const std::string key(n->payload());
        auto [it, fresh] = singleton_node.emplace(key, n);
        EXPECT_EQ(it->second, n) << "two nodes for the str '" << key << "' in " << v;
        singletons_seen[key] += fresh;
      }
    }
  }
  EXPECT_FALSE(singletons_seen.empty());
}

TEST(Generators, ShrinkingSimplifiesContainers) {
  // A container plan's shrinks include None (the first alternative) and,
  // when it has items, a plan with fewer items.
  int containers = 0;
  rc::Random random(8);
  const auto g = gen::plan(gen::small_config());
  for (int i = 0; i < 200 && containers < 20; ++i) {
    const auto shrinkable = g(random.split(), 100);
    const gen::Plan root = shrinkable.value();
    if (root.kind != Kind::List || root.items.empty()) continue;
    ++containers;
    bool to_none = false, fewer = false;
    auto shrinks = shrinkable.shrinks();
    for (int n = 0; n < 500; ++n) {
      auto next = shrinks.next();
      if (!next) break;
      const gen::Plan s = next->value();
      to_none = to_none || (s.tag == gen::PlanTag::Value && s.kind == Kind::None);
      fewer = fewer || (s.kind == Kind::List && s.items.size() < root.items.size());
    }
    EXPECT_TRUE(to_none);
    EXPECT_TRUE(fewer);
  }
  EXPECT_GT(containers, 0);
}

TEST(Generators, HostileStreamsSometimesDecode) {
  // decode.total is only worth running if its inputs reach past the first
  // opcode: some hostile streams decode, some fail.
  int decoded = 0, failed = 0;
  for (const auto& s : sample(gen::hostileStream(gen::small_config()), 9, 300)) {
    serialcheck::Graph g;
    try {
      serialcheck::pickle::decode(s.bytes, g);
      ++decoded;
    } catch (const serialcheck::pickle::PickleError&) {
      ++failed;
    }
  }
  EXPECT_GT(decoded, 0);
  EXPECT_GT(failed, 0);
}
