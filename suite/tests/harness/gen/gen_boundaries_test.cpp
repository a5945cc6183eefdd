// The value generators reach the format's boundaries within what a gate
// cell draws (100 cases), so the gate itself, not only the golden files,
// meets the places where the encoding switches: the 64 KiB frame target
// (payloads that fill a frame exactly, or reach the size written outside
// frames), containers around the batch size of 1000 (and with them memo
// indexes past 255, where BINPUT gives way to LONG_BINPUT), the 255/256-byte
// length switches, and ints at each width where CPython changes opcode.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <string>

#include "harness/gen/config.h"
#include "harness/gen/value.h"
#include "harness/props/value_tools.h"
#include "reference/value/numeric.h"

namespace serialcheck {
namespace {

constexpr std::size_t kFrameSizeTarget = 64 * 1024;

// Which boundaries a value reaches.
std::map<std::string, bool> boundaries_of(const Node* root) {
  std::map<std::string, bool> out;
  for (const Node* n : reachable(root)) {
    switch (n->kind) {
      case Kind::Bytes:
      case Kind::ByteArray:
      case Kind::Str:
      case Kind::PickleBuffer: {
        const std::size_t size = n->payload().size();
        if (size == 255) out["payload of 255 bytes"] = true;
        if (size == 256) out["payload of 256 bytes"] = true;
        if (size + 24 >= kFrameSizeTarget && size <= kFrameSizeTarget + 2) {
          out["payload within 24 bytes below the frame target"] = true;
        }
        if (size == kFrameSizeTarget) out["payload of exactly 64 KiB"] = true;
        if (root->kind == Kind::List && root->items.size() > 20 && n == root->items.front() &&
            size + 64 >= kFrameSizeTarget && size < kFrameSizeTarget) {
          out["a list that fills a frame to 64 KiB with small ints"] = true;
        }
        break;
      }
      case Kind::List:
      case Kind::Set:
      case Kind::Dict: {
        const std::size_t items = n->kind == Kind::Dict ? n->items.size() / 2 : n->items.size();
        if (items == 999) out["container of 999 items"] = true;
        if (items == 1000) out["container of 1000 items"] = true;
        if (items == 1001) out["container of 1001 items"] = true;
        break;
      }
      case Kind::Int: {
        const std::string twos =
            n->big ? minimal_twos_le(n->payload()) : int64_to_twos_le(n->small());
        if (twos.size() == 255) out["int of 255 bytes (largest LONG1)"] = true;
        if (twos.size() == 256) out["int of 256 bytes (smallest LONG4)"] = true;
        if (!n->big) {
          const std::int64_t v = n->small();
          if (v == 255 || v == 256) out["int at BININT1's end"] = true;
          if (v == 65535 || v == 65536) out["int at BININT2's end"] = true;
          if (v == 2147483647 || v == 2147483648 || v == -2147483648LL || v == -2147483649LL) {
            out["int at BININT's end (2**31)"] = true;
          }
        } else if (twos.size() == 9) {
          out["int just beyond int64"] = true;
        }
        break;
      }
      default: break;
    }
  }
  return out;
}

std::map<std::string, int> census(const gen::GenConfig& config, std::uint64_t seed, int count) {
  rc::Gen<gen::GeneratedValue> g = gen::value(config);
  rc::Random random(seed);
  std::map<std::string, int> cases;
  for (int i = 0; i < count; ++i) {
    gen::GeneratedValue v = g(random.split(), i % 101).value();
    for (const auto& [what, hit] : boundaries_of(v.root)) cases[what] += hit ? 1 : 0;
  }
  return cases;
}

const char* const kBoundaries[] = {
    "payload of 255 bytes",
    "payload of 256 bytes",
    "payload within 24 bytes below the frame target",
    "payload of exactly 64 KiB",
    "a list that fills a frame to 64 KiB with small ints",
    "container of 999 items",
    "container of 1000 items",
    "container of 1001 items",
    "int of 255 bytes (largest LONG1)",
    "int of 256 bytes (smallest LONG4)",
    "int at BININT1's end",
    "int at BININT2's end",
    "int at BININT's end (2**31)",
    "int just beyond int64",
};

// Two gate cells' worth of cases, as the cross-subject properties draw them
// (python_safe) and as the reference's own do.
TEST(GenBoundaries, EveryBoundaryIsReachedWithinTwoCells) {
  const std::pair<const char*, gen::GenConfig> configs[] = {
      {"python_safe", gen::python_safe_config()}, {"default", gen::default_config()}};
  for (const auto& [name, config] : configs) {
    SCOPED_TRACE(name);
    std::map<std::string, int> cases = census(config, 20261129, 200);
    for (const char* b : kBoundaries) {
      EXPECT_GE(cases[b], 1) << b;
      RecordProperty(std::string(name) + ": " + b, cases[b]);
    }
  }
}

// Cheap enough for a gate of ~400 cells: values with a payload near a frame
// or a container near a batch stay under one in five (about one in six, at
// a cost measured on the whole gate of well under a fifth of its time).
TEST(GenBoundaries, LargeValuesStayRare) {
  rc::Gen<gen::GeneratedValue> g = gen::value(gen::python_safe_config());
  rc::Random random(7);
  int large = 0;
  constexpr int kCount = 400;
  for (int i = 0; i < kCount; ++i) {
    gen::GeneratedValue v = g(random.split(), i % 101).value();
    bool is_large = false;
    for (const Node* n : reachable(v.root)) {
      is_large = is_large || n->payload().size() >= 60000 || n->items.size() >= 900;
    }
    large += is_large ? 1 : 0;
  }
  RecordProperty("large values in 400", large);
  EXPECT_LE(large, kCount / 5) << "values with a payload of 60,000 bytes or 900 items or more";
}

}  // namespace
}  // namespace serialcheck
