// callable.by-value: the generated sources cover the grammar (running them,
// and the property against cloudpickle and dill, is in
// byvalue_python_test.cpp).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdint>
#include <cstdlib>
#include <exception>
#include <initializer_list>
#include <iostream>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/gen/function_gen.h"
#include "harness/props/gate_props.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/callable_sources.h"

namespace serialcheck {
namespace {

using test_support::callable_draws;

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

bool contains_any(const std::string& s, std::initializer_list<const char*> what) {
  for (const char* w : what) {
    if (contains(s, w)) return true;
  }
  return false;
}

TEST(ByValue, SourcesCoverTheGrammar) {
  std::map<std::string, int> seen;
  auto count = [&](const char* shape, bool drawn) { seen[shape] += drawn ? 1 : 0; };
  int i = 0;
  for (const gen::CallableSource& c : callable_draws(600)) {
    const std::string& s = c.source;
    ASSERT_TRUE(contains(s, "subject")) << s;
    ASSERT_TRUE(c.inputs.is_array() && !c.inputs.empty());
    if (std::getenv("SERIALCHECK_SHOW_SOURCES") != nullptr && i++ < 40) {
      std::cout << s << "inputs: " << c.inputs.dump() << "\n\n";
    }
    // Functions.
    count("def", contains(s, "def subject("));
    count("lambda", contains(s, "subject = lambda"));
    count("made by a function", contains(s, "subject = _make()"));
    count("recursive", contains(s, "+ subject("));
    count("nested", contains_any(s, {"inner(", "(lambda x:"}));
    count("keyword-only", contains_any(s, {", *, ", "(*, "}));
    count("default", contains_any(s, {"=0", "= 0", "=1", "= 1"}));
    count("annotated", contains(s, ": int"));
    count("generic annotation", contains_any(s, {": list[int]", ": int | None"}));
    count("return annotation", contains(s, ") -> "));
    count("global", contains(s, "G0 = "));
    count("closure", contains(s, "    c0 = "));
    count("list state", contains(s, "acc.append("));
    count("nonlocal counter", contains(s, "nonlocal n\n"));
    count("cell shared by two functions", contains(s, "def bump(d):"));
    count("state undone", contains(s, "finally:"));
    // The result reads the list and the counter, whatever else it reads.
    if (contains(s, "acc.append(")) {
      EXPECT_TRUE(contains(s, " + len(acc))")) << s;
    }
    if (contains(s, "nonlocal n\n")) {
      EXPECT_TRUE(contains(s, " + n)")) << s;
    }
    count("set shown sorted", contains(s, "sorted(map(repr, "));
    count("annotations shown", contains(s, "subject.__annotations__"));
    // Values, as literals (their types are counted in the interpreter).
    count("bytes", contains(s, "b'"));
    count("escaped non-ASCII", contains_any(s, {"\\u", "\\U"}));
    count("raw non-ASCII", contains_any(s, {"\xc3", "\xe6", "\xf0"}));
    count("big int", contains_any(s, {"9223372036854775808", "18446744073709551617",
                                      "1267650600228229401496703205376"}));
    count("float", contains_any(s, {"e+300", "5e-324", "3.141592653589793", "0.5"}));
    count("frozenset", contains(s, "frozenset("));
    // Classes.
    count("class", contains(s, "class subject("));
    count("class on a fixture", contains(s, "(serialcheck_fixtures."));
    count("class in a function", contains(s, "    class subject("));
    count("class closing over a value",
          contains(s, "    class subject(") && contains(s, "    c0 = "));
    count("class attribute", contains(s, "    K0 = "));
    count("read through self", contains(s, "self.K0"));
    count("read through type(self)", contains(s, "type(self).K0"));
    count("read through the class's name", contains(s, "subject.K0"));
    count("read through cls", contains(s, "cls.K0"));
    count("methods calling each other", contains(s, "self.m1(x)"));
    count("staticmethod", contains(s, "@staticmethod"));
    count("classmethod", contains(s, "@classmethod"));
    count("super().__init__ with arguments", contains(s, "super().__init__(("));
    count("super().method()", contains(s, "super().method()"));
    count("instance attribute", contains(s, "self.v = "));
  }
  for (const auto& [shape, n] : seen) EXPECT_GT(n, 10) << shape;
  EXPECT_EQ(seen.size(), 39u);
}

}  // namespace
}  // namespace serialcheck
