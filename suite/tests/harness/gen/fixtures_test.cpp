// Objects of the Python fixtures module in generated values
// (harness/gen/fixtures.h): the generator draws every shape at the
// protocols Python pickles it, and request nodes are recognised. Against the
// real objects in the embedded interpreter: fixtures_python_test.cpp.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <map>
#include <unordered_map>
#include <set>
#include <string>
#include <vector>

#include "harness/gen/config.h"
#include "harness/gen/fixtures.h"
#include "harness/gen/plan.h"
#include "harness/gen/value.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/value_tools.h"

namespace serialcheck {
namespace {

void count_requests(const gen::Plan& p, std::map<std::string, int>& seen) {
  if (p.kind == Kind::Object && p.module == gen::kFixturesModule &&
      p.name == gen::kFixtureMaker) {
    ++seen[p.text];
  }
  for (const auto* list : {&p.items, &p.state, &p.listitems, &p.dictitems}) {
    for (const gen::Plan& child : *list) count_requests(child, seen);
  }
}

// The fixture requests of plans drawn at `protocol`: at least `min_draws`,
// then on until every kind allowed at the protocol was drawn, or
// `max_draws`. *draws says how many were drawn.
std::map<std::string, int> census(int protocol, int min_draws, int max_draws, int* draws) {
  gen::GenConfig config = gen::python_safe_config();
  config.allow_fixtures = true;
  config.min_protocol = protocol;
  rc::Gen<gen::Plan> plans = gen::plan(config);
  rc::Random random(20261203 + static_cast<std::uint64_t>(protocol));
  std::map<std::string, int> seen;
  auto all_seen = [&] {
    for (const gen::FixtureKind& k : gen::fixture_kinds()) {
      if (k.min_protocol <= protocol && seen.count(std::string(k.name)) == 0) return false;
    }
    return true;
  };
  int i = 0;
  while (i < max_draws && (i < min_draws || !all_seen())) {
    count_requests(plans(random.split(), 50).value(), seen);
    ++i;
  }
  *draws = i;
  return seen;
}

// Every shape is drawn at the protocols that can pickle it (within 3000
// draws), and none below its minimum (in at least 600).
TEST(Fixtures, GeneratorDrawsEveryShapeAtTheProtocolsPythonPicklesIt) {
  for (int protocol : {0, 2, 4}) {
    int draws = 0;
    std::map<std::string, int> seen = census(protocol, 600, 3000, &draws);
    RecordProperty("draws_at_protocol_" + std::to_string(protocol), draws);
    for (const gen::FixtureKind& k : gen::fixture_kinds()) {
      const std::string name(k.name);
      if (k.min_protocol <= protocol) {
        EXPECT_GT(seen[name], 0) << name << " never drawn at protocol " << protocol;
      } else {
        EXPECT_EQ(seen[name], 0) << name << " drawn at protocol " << protocol
                                 << ", below its minimum " << k.min_protocol;
      }
    }
  }
}

// 600 draws with fixtures allowed show every kind (the test above), so 600
// without show none.
TEST(Fixtures, OffUnlessAsked) {
  rc::Gen<gen::Plan> plans = gen::plan(gen::python_safe_config());
  rc::Random random(7);
  std::map<std::string, int> seen;
  for (int i = 0; i < 600; ++i) count_requests(plans(random.split(), 50).value(), seen);
  EXPECT_TRUE(seen.empty());
}

TEST(Fixtures, RequestNodesAreRecognised) {
  Graph g;
  Node* request = g.object(g.global(std::string(gen::kFixturesModule), "make"),
                           g.tuple({g.str("plain"), g.integer(1)}));
  EXPECT_EQ(gen::fixture_request_kind(request), "plain");
  EXPECT_TRUE(gen::has_fixture_requests(g.list({g.none(), request})));
  Node* other = g.object(g.global("builtins", "make"), g.tuple({g.str("plain")}));
  EXPECT_EQ(gen::fixture_request_kind(other), "");
  EXPECT_FALSE(gen::has_fixture_requests(g.list({other})));
}

// Below protocol 4 CPython writes the nested name M.A.b as getattr(M.A, 'b'):
// through Python the two are one object, to the value model two values.
TEST(Fixtures, GetattrOfAGlobalIsTheNestedGlobalThroughPython) {
  Graph g;
  Node* dotted = g.global("m", "A.B.c");
  Node* getattr = g.global("builtins", "getattr");
  Node* inner = g.object(getattr, g.tuple({g.global("m", "A"), g.str("B")}));
  Node* call = g.object(getattr, g.tuple({inner, g.str("c")}));
  EXPECT_TRUE(props::same_value(g.list({dotted}), g.list({call}), true, nullptr));
  EXPECT_FALSE(props::same_value(g.list({dotted}), g.list({call}), false, nullptr));
  // With state it is a call, not a name.
  Node* with_state = g.object(getattr, g.tuple({g.global("m", "A.B"), g.str("c")}));
  with_state->obj()->state = g.dict();
  EXPECT_FALSE(props::same_value(dotted, with_state, true, nullptr));
}

}  // namespace
}  // namespace serialcheck
