// The shrinker (harness/props/shrink.h): greedy shrinking to the smallest
// failing case within a probe budget, and candidates that are smaller, keep
// cycles valid and leave set items and dict keys alone.
#include "harness/props/shrink.h"

#include <gtest/gtest.h>

#include <string>

#include "harness/props/value_tools.h"
#include "reference/value/json.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::make_case;

bool contains_boom(const TestCase& c) {
  for (const Node* n : reachable(c.value)) {
    if (n->kind == Kind::Str && n->payload().rfind("boom", 0) == 0) return true;
  }
  return false;
}

TEST(Shrinker, FindsTheSmallestCaseThatStillFails) {
  TestCase c = make_case(
      R"({"list": [1, {"tuple": [{"float": "2.5"}, "boom!", {"dict": [["k", {"list": [3, 4]}]]}]},
                            {"set": [7, 8]}, {"bytes": "00ff"}]})");
  int attempts = 0;
  TestCase small = shrink_greedily(c, contains_boom, 500, &attempts);
  EXPECT_GT(attempts, 0);
  ASSERT_EQ(small.value->kind, Kind::Str);
  EXPECT_EQ(small.value->payload(), "boom!");
}

TEST(Shrinker, AWideContainerShrinksWithinACrashsProbeBudget) {
  // A thousand strs, failing while the list holds two or more items: the
  // runner's crash shrinker has 150 probes.
  std::string json = R"({"list": [)";
  for (int i = 0; i < 1000; ++i) json += (i ? ", \"k" : "\"k") + std::to_string(i) + "\"";
  json += "]}";
  TestCase c = make_case(json);
  auto two_or_more = [](const TestCase& t) {
    return t.value->kind == Kind::List && t.value->items.size() >= 2;
  };
  int attempts = 0;
  TestCase small = shrink_greedily(c, two_or_more, 150, &attempts);
  ASSERT_EQ(small.value->kind, Kind::List);
  EXPECT_EQ(small.value->items.size(), 2u);
  EXPECT_LT(attempts, 150);
}

TEST(Shrinker, EveryCandidateIsSmallerAndKeepsCyclesValid) {
  TestCase c = make_case(
      R"({"list": [{"id": 1, "list": [{"ref": 1}, "abc", 5]}, {"ref": 1},
                {"tuple": [true, {"float": "1.5"}]}]})",
      5);
  c.out_of_band = true;
  const std::string before = to_json(c.value);
  auto candidates = shrink_candidates(c);
  ASSERT_GT(candidates.size(), 5u);
  EXPECT_FALSE(candidates[0].out_of_band);  // first: the same value, buffers in band
  for (const auto& cand : candidates) {
    EXPECT_LT(case_size(cand), case_size(c)) << to_json(cand.value);
    EXPECT_NO_THROW(to_json(cand.value));
  }
  // Candidates are copies: the case itself is untouched.
  EXPECT_EQ(to_json(c.value), before);
}

TEST(Shrinker, LeavesSetItemsAndDictKeysAlone) {
  TestCase c = make_case(R"({"list": [{"set": [1, 2]}, {"dict": [[3, 4]]}]})");
  for (const auto& cand : shrink_candidates(c)) {
    for (const Node* n : reachable(cand.value)) {
      if (n->kind == Kind::Set && n->items.size() == 2) {
        EXPECT_FALSE(n->items[0]->small() == n->items[1]->small()) << to_json(cand.value);
      }
    }
  }
}

}  // namespace
}  // namespace serialcheck
