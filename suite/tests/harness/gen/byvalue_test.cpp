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

bool contains(const std::string& s, const char* what) {
  return s.find(what) != std::string::npos;
}

bool contains_any(const std::string& s, const std::vector<const char*>& what) {
  for (const char* w : what) {
    if (contains(s, w)) return true;
  }
  return false;
}

// A shape of the grammar, and the texts (any one of) that show it in a source.
struct Shape {
  const char* name;
  std::vector<const char*> shown_by;
};

const std::vector<Shape>& shapes() {
  static const std::vector<Shape> k = {
      // Functions.
      {"def", {"def subject("}},
      {"lambda", {"subject = lambda"}},
      {"made by a function", {"subject = _make()"}},
      {"recursive", {"+ subject("}},
      {"nested", {"inner(", "(lambda x:"}},
      {"keyword-only", {", *, ", "(*, "}},
      {"default", {"=0", "= 0", "=1", "= 1"}},
      {"annotated", {": int"}},
      {"generic annotation", {": list[int]", ": int | None"}},
      {"return annotation", {") -> "}},
      {"global", {"G0 = "}},
      {"closure", {"    c0 = "}},
      {"list state", {"acc.append("}},
      {"nonlocal counter", {"nonlocal n\n"}},
      {"cell shared by two functions", {"def bump(d):"}},
      {"state undone", {"finally:"}},
      {"set shown sorted", {"sorted(map(repr, "}},
      {"annotations shown", {"subject.__annotations__"}},
      // Values, as literals (their types are counted in the interpreter).
      {"bytes", {"b'"}},
      {"escaped non-ASCII", {"\\u", "\\U"}},
      {"raw non-ASCII", {"\xc3", "\xe6", "\xf0"}},
      {"big int",
       {"9223372036854775808", "18446744073709551617", "1267650600228229401496703205376"}},
      {"float", {"e+300", "5e-324", "3.141592653589793", "0.5"}},
      {"frozenset", {"frozenset("}},
      // Classes.
      {"class", {"class subject("}},
      {"class on a fixture", {"(serialcheck_fixtures."}},
      {"class in a function", {"    class subject("}},
      {"class attribute", {"    K0 = "}},
      {"read through self", {"self.K0"}},
      {"read through type(self)", {"type(self).K0"}},
      {"read through the class's name", {"subject.K0"}},
      {"read through cls", {"cls.K0"}},
      {"methods calling each other", {"self.m1(x)"}},
      {"staticmethod", {"@staticmethod"}},
      {"classmethod", {"@classmethod"}},
      {"super().__init__ with arguments", {"super().__init__(("}},
      {"super().method()", {"super().method()"}},
      {"instance attribute", {"self.v = ", "'v', "}},
      // What people pickle by value beyond a plain class.
      {"base by value", {"class _Base(object):", "class _Base(abc.ABC):"}},
      {"__init_subclass__", {"def __init_subclass__(cls, **kwargs):"}},
      {"abstract base with a registered class", {"_Base.register(tuple)"}},
      {"property", {"@property"}},
      {"__slots__", {"__slots__ = ('x', 'v')"}},
      {"metaclass", {"metaclass=_Meta"}},
      {"typing.Generic and a TypeVar", {"typing.Generic[T]"}},
      {"dataclass", {"@dataclasses.dataclass\n"}},
      {"frozen dataclass", {"@dataclasses.dataclass(frozen=True)"}},
      {"class and function closing over each other", {"def helper():"}},
      {"enum", {"(enum.Enum):", "(enum.IntEnum):"}},
      {"flag", {"(enum.Flag):", "(enum.IntFlag):"}},
  };
  return k;
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
    for (const Shape& shape : shapes()) count(shape.name, contains_any(s, shape.shown_by));
    // The class's own B0 beside its by-value base's.
    const std::size_t first_b0 = s.find("B0 = ");
    count("attribute over the base's",
          first_b0 != std::string::npos && s.find("B0 = ", first_b0 + 1) != std::string::npos);
    count("class closing over a value",
          contains(s, "    class subject(") && contains(s, "    c0 = "));
    // The result reads the list and the counter, whatever else it reads.
    if (contains(s, "acc.append(")) {
      EXPECT_TRUE(contains(s, " + len(acc))")) << s;
    }
    if (contains(s, "nonlocal n\n")) {
      EXPECT_TRUE(contains(s, " + n)")) << s;
    }
  }
  for (const auto& [shape, n] : seen) EXPECT_GT(n, 10) << shape;
  EXPECT_EQ(seen.size(), 52u);
}

}  // namespace
}  // namespace serialcheck
