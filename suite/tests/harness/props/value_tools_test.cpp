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

// Below protocol 4 a nested class and a bound method are both written as
// getattr(<global>, '<name>'). Compared, every such call is the global it
// names; written again, only a class NEWOBJ names becomes one (globals are
// memoized by name, so two distinct calls made globals would be one).
TEST(Values, GetattrCallsAsGlobals) {
  Graph g;
  Node* value = from_json(R"({"list": [
      {"object": {"callable": {"id": 1, "global": ["builtins", "getattr"]},
                  "args": {"tuple": [{"id": 2, "global": ["m", "Outer"]}, "method"]}}},
      {"object": {"callable": {"ref": 1}, "args": {"tuple": [{"ref": 2}, "method"]}}},
      {"object": {"callable": {"global": ["copyreg", "__newobj__"]},
                  "args": {"tuple": [
                      {"object": {"callable": {"ref": 1},
                                  "args": {"tuple": [
                                      {"object": {"callable": {"ref": 1},
                                                  "args": {"tuple": [{"ref": 2}, "Mid"]}}},
                                      "Inner"]}}}]}}}]})",
                          g);
  Graph everywhere;
  const Node* all = getattr_as_globals(value, everywhere);
  EXPECT_EQ(to_json(all->items[0]), R"({"global":["m","Outer.method"]})");
  EXPECT_EQ(to_json(all->items[1]), R"({"global":["m","Outer.method"]})");
  EXPECT_EQ(to_json(all->items[2]->obj()->args->items[0]), R"({"global":["m","Outer.Mid.Inner"]})");
  Graph classes;
  const Node* some = getattr_as_globals(value, classes, GetattrScope::ClassPositions);
  EXPECT_EQ(some->items[0]->kind, Kind::Object);
  EXPECT_EQ(some->items[1]->kind, Kind::Object);
  EXPECT_NE(some->items[0], some->items[1]);
  EXPECT_EQ(to_json(some->items[2]->obj()->args->items[0]),
            R"({"global":["m","Outer.Mid.Inner"]})");
  // Nothing to change: the value itself.
  Graph none;
  Node* plain = from_json(R"({"list": [1, "getattr"]})", g);
  EXPECT_EQ(getattr_as_globals(plain, none, GetattrScope::ClassPositions), plain);
}

}  // namespace
}  // namespace serialcheck
