// cross.stdlib with real interpreters: the recipe table agrees with the
// Python module that builds the values, the embedded cpython subject writes
// and reads its own stdlib values at every protocol, the reference takes no
// part, and an older CPython found here writes values the embedded one
// reads. Real interpreters have defects of their own (Debian's 3.11.2
// pickles an IPv6 address without its scope id): a failure passes these
// tests only where known-failures.txt lists it for that cell.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "harness/gen/stdlib_recipes.h"
#include "harness/props/gate_props.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/external_subject.h"
#include "harness/subjects/interpreters.h"
#include "harness/subjects/mutant_subjects.h"
#include "harness/subjects/python_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/listed.h"

namespace serialcheck {
namespace {

// The subjects of a cell by name; nullptr for any other name.
struct Subjects {
  std::map<std::string, Subject*> by_name;
  PropertyEnv env;
  Subjects() {
    env.subject = [this](const std::string& name, std::string* why) -> Subject* {
      if (auto it = by_name.find(name); it != by_name.end()) return it->second;
      if (why != nullptr) *why = "not in this test";
      return nullptr;
    };
  }
};

struct Tally {
  int passed = 0;
  std::map<std::string, int> discarded;  // by reason
  std::vector<Outcome> failures;
};

// Each failure known-failures.txt does not list for the cell.
void expect_listed(const Tally& t, const std::string& consumer, const std::string& property) {
  for (const Outcome& o : t.failures) {
    EXPECT_TRUE(test_support::listed_failure(consumer, property, o.fingerprint))
        << consumer << " " << property << " " << o.fingerprint << ": " << o.message;
  }
}

// `cases` cases of the property on `consumer`, as a gate cell draws them.
Tally run(const GateProperty& property, Subject& consumer, Subjects& s, int cases) {
  Tally t;
  Applicability a = applicability(property, consumer, s.env);
  EXPECT_EQ(a.skip_reason, "") << property.id << " on " << consumer.name();
  if (!a.skip_reason.empty()) return t;
  EXPECT_EQ(a.plan.domain, CaseDomain::Stdlib);
  rc::Gen<TestCase> gen = case_generator(a.plan);
  rc::Random random(20261207);
  for (int i = 0; i < cases; ++i) {
    TestCase c = gen(random.split(), i % 101).value();
    Outcome o = check_case(property, consumer, c, s.env);
    if (o.status == Outcome::Status::Discard) {
      ++t.discarded[o.discard_reason];
    } else if (o.failed()) {
      t.failures.push_back(std::move(o));
    } else {
      ++t.passed;
    }
  }
  return t;
}

TEST(StdlibRecipes, TheTableIsThePythonModulesList) {
  ASSERT_TRUE(python::python_available());
  std::vector<std::string> module;
  {
    python::Gil gil;
    python::PyRef joined = python::eval("'\\n'.join(__import__('serialcheck_stdlib').RECIPES)");
    std::istringstream lines(python::str_of(joined.get()));
    for (std::string line; std::getline(lines, line);) module.push_back(line);
  }
  std::vector<std::string> table(gen::stdlib_recipes().begin(), gen::stdlib_recipes().end());
  EXPECT_EQ(table, module);
  EXPECT_GE(table.size(), 40u);
  EXPECT_TRUE(gen::is_stdlib_recipe("decimal.Decimal:1"));
  EXPECT_FALSE(gen::is_stdlib_recipe("decimal.Decimal"));
  EXPECT_EQ(gen::recipe_kind("itertools.count:0"), "itertools.count");
}

TEST(CrossStdlib, TheEmbeddedCpythonReadsWhatItWrites) {
  auto cpython = make_cpython_subject();
  if (auto why = cpython->unavailable_reason()) GTEST_SKIP() << *why;
  Subjects s;
  s.by_name["cpython"] = cpython.get();
  const GateProperty* property = find_property("cross.stdlib/cpython");
  ASSERT_NE(property, nullptr);
  Tally t = run(*property, *cpython, s, 150);
  expect_listed(t, "cpython", property->id);
  EXPECT_GT(t.passed, 120);
  // The 4301-digit int at protocols 0 and 1, and a fold below protocol 4,
  // cannot be written by 3.11: counted as inexpressible, never failed.
  EXPECT_EQ(t.discarded.count("unsupported"), 0u);
}

TEST(CrossStdlib, ThePurePythonPicklerReadsTheCPicklersValues) {
  auto cpython = make_cpython_subject();
  auto pure = make_cpython_py_subject();
  if (auto why = pure->unavailable_reason()) GTEST_SKIP() << *why;
  Subjects s;
  s.by_name["cpython"] = cpython.get();
  Tally t = run(*find_property("cross.stdlib/cpython"), *pure, s, 100);
  expect_listed(t, "cpython-py", "cross.stdlib/cpython");
  EXPECT_GT(t.passed, 80);
}

TEST(CrossStdlib, TheReferenceTakesNoPart) {
  auto cpython = make_cpython_subject();
  ReferenceSubject reference;
  Subjects s;
  s.by_name["cpython"] = cpython.get();
  s.by_name["reference"] = &reference;
  Applicability as_consumer =
      applicability(*find_property("cross.stdlib/cpython"), reference, s.env);
  EXPECT_NE(as_consumer.skip_reason.find("stdlib_recipes"), std::string::npos)
      << as_consumer.skip_reason;
  Applicability as_producer =
      applicability(*find_property("cross.stdlib/reference"), *cpython, s.env);
  EXPECT_NE(as_producer.skip_reason.find("the producer reference"), std::string::npos)
      << as_producer.skip_reason;
  EXPECT_THROW(reference.dumps_recipe("decimal.Decimal:0", 2), SubjectError);
}

// A recipe the producer cannot build is discarded as inexpressible; a str
// that is no recipe (what the value shrinker makes of one) is the
// property's discard, never a failure.
TEST(CrossStdlib, WhatCannotBeBuiltIsDiscarded) {
  auto cpython = make_cpython_subject();
  if (auto why = cpython->unavailable_reason()) GTEST_SKIP() << *why;
  Subjects s;
  s.by_name["cpython"] = cpython.get();
  const GateProperty* property = find_property("cross.stdlib/cpython");
  TestCase c;
  c.graph = std::make_shared<Graph>();
  c.value = c.graph->str("int:1");  // 4301 digits: no text form in 3.11
  c.protocol = 0;
  Outcome o = check_case(*property, *cpython, c, s.env);
  EXPECT_EQ(o.status, Outcome::Status::Discard);
  EXPECT_EQ(o.discard_reason, "inexpressible") << o.message;
  c.protocol = 2;  // LONG1: no text, no limit
  EXPECT_EQ(check_case(*property, *cpython, c, s.env).status, Outcome::Status::Pass);
  c.value = c.graph->str("int:");
  o = check_case(*property, *cpython, c, s.env);
  EXPECT_EQ(o.status, Outcome::Status::Discard);
  EXPECT_EQ(o.discard_reason, "property");
}

// The first native CPython found here whose series is older than the
// embedded one, as the gate names it ("cpython-3.8"), with its testee.
std::optional<TesteeConfig> older_cpython() {
  InterpreterSettings settings = default_interpreter_settings(SERIALCHECK_SOURCE_DIR);
  settings.search_pyodide = false;
  std::vector<Interpreter> found = find_interpreters(settings);
  const std::string embedded = python_series(embedded_python_version()).value_or("");
  std::optional<TesteeConfig> best;
  std::string best_series;
  for (const TesteeConfig& t : interpreter_testees(settings, found)) {
    if (t.name.rfind("cpython-3.", 0) != 0) continue;
    const std::string series = t.name.substr(std::string("cpython-").size());
    if (!series_less(series, embedded)) continue;
    // The newest of the older ones: the pair people meet most.
    if (!best || series_less(best_series, series)) {
      best = t;
      best_series = series;
    }
  }
  return best;
}

// What an older version writes, the embedded one reads as the value it
// builds itself, except where known-failures.txt lists the difference for
// this pair.
TEST(CrossStdlib, AnOlderCpythonWritesForTheEmbeddedOne) {
  std::optional<TesteeConfig> config = older_cpython();
  if (!config) {
    GTEST_SKIP() << "no native CPython 3.x older than the embedded " << embedded_python_version()
                 << " found here (pyenv, PATH)";
  }
  ExternalSubject older(*config);
  if (auto why = older.unavailable_reason()) GTEST_SKIP() << config->name << ": " << *why;
  auto cpython = make_cpython_subject();
  Subjects s;
  s.by_name["cpython"] = cpython.get();
  s.by_name[config->name] = &older;
  const std::string id = "cross.stdlib/" + config->name;
  Tally t = run(*find_property(id), *cpython, s, 100);
  expect_listed(t, "cpython", id);
  EXPECT_GT(t.passed, 50) << config->name << " -> cpython";
  older.shutdown();
}

// The control's failures are its bug's: among them some that the honest
// embedded pickler, which fails only where known-failures.txt says, does
// not show.
TEST(CrossStdlib, TheControlFailsBeyondTheListedDefects) {
  auto cpython = make_cpython_subject();
  if (auto why = cpython->unavailable_reason()) GTEST_SKIP() << *why;
  std::unique_ptr<Subject> mutant = make_mutant_subject("loads-first-of-kind");
  ASSERT_NE(mutant, nullptr);
  Subjects s;
  s.by_name["cpython"] = cpython.get();
  Tally t = run(*find_property("cross.stdlib/cpython"), *mutant, s, 100);
  int unlisted = 0;
  for (const Outcome& o : t.failures) {
    EXPECT_EQ(o.fingerprint.rfind("stdlib:unequal/", 0), 0u) << o.fingerprint;
    if (!test_support::listed_failure("cpython", "cross.stdlib/cpython", o.fingerprint)) {
      ++unlisted;
    }
  }
  EXPECT_GT(unlisted, 10) << "of " << t.failures.size() << " failures";
}

}  // namespace
}  // namespace serialcheck
