// The gate's value tools (harness/props/value_tools.h): equality under the
// sharing rules a property may relax.
#include "harness/props/value_tools.h"

#include <gtest/gtest.h>

#include <string>

#include "reference/value/json.h"

namespace serialcheck {
namespace {

TEST(Values, SharingRules) {
  Graph g1, g2;
  // Two distinct equal strings vs one shared string.
  Node* a = from_json(R"({"list": ["xy", "xy"]})", g1);
  Node* b = from_json(R"({"list": [{"id": 1, "str": "xy"}, {"ref": 1}]})", g2);
  EXPECT_FALSE(equal(a, b));
  EXPECT_FALSE(equal_under(a, b, SharingRule::GlobalsByName));
  EXPECT_TRUE(equal_under(a, b, SharingRule::ImmutablesFree));
  // Shared lists must stay shared under every rule.
  Graph g3, g4;
  Node* c = from_json(R"({"list": [{"id": 1, "list": [1]}, {"ref": 1}]})", g3);
  Node* d = from_json(R"({"list": [{"list": [1]}, {"list": [1]}]})", g4);
  Difference why;
  EXPECT_FALSE(equal_under(c, d, SharingRule::ImmutablesFree, &why));
  EXPECT_NE(why.reason.find("sharing"), std::string::npos) << why.reason;
  // Globals are one object per name.
  Graph g5, g6;
  Node* e = from_json(R"({"list": [{"global": ["m", "f"]}, {"global": ["m", "f"]}]})", g5);
  Node* f = from_json(R"({"list": [{"id": 1, "global": ["m", "f"]}, {"ref": 1}]})", g6);
  EXPECT_FALSE(equal(e, f));
  EXPECT_TRUE(equal_under(e, f, SharingRule::GlobalsByName));
  // Cycles still count.
  Graph g7, g8;
  Node* x = from_json(R"({"id": 1, "list": [{"ref": 1}]})", g7);
  Node* y = from_json(R"({"list": [{"list": []}]})", g8);
  EXPECT_FALSE(equal_under(x, y, SharingRule::ImmutablesFree));
}

}  // namespace
}  // namespace serialcheck
