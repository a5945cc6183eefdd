// callable.by-value: the generated sources run, cover the grammar, and the
// property tells cloudpickle from a pickler that pickles by reference.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "harness/gen/function_gen.h"
#include "harness/props/gate_props.h"
#include "harness/subjects/reference_subject.h"

#ifdef SERIALCHECK_HAVE_PYTHON
#include "harness/python/byvalue.h"
#endif

namespace serialcheck {
namespace {

bool contains(const std::string& s, const char* what) { return s.find(what) != std::string::npos; }

TEST(ByValue, SourcesCoverTheGrammar) {
  rc::Gen<gen::CallableSource> gen = gen::callableSource();
  rc::Random random(20261129);
  int defs = 0, lambdas = 0, classes = 0, made = 0, recursive = 0, nested = 0, kwonly = 0,
      annotated = 0, globals = 0, fixture_bases = 0;
  for (int i = 0; i < 400; ++i) {
    gen::CallableSource c = gen(random.split(), i % 101).value();
    ASSERT_TRUE(contains(c.source, "subject")) << c.source;
    ASSERT_TRUE(c.inputs.is_array() && !c.inputs.empty());
    if (std::getenv("SERIALCHECK_SHOW_SOURCES") != nullptr && i < 12) {
      std::cout << c.source << "inputs: " << c.inputs.dump() << "\n\n";
    }
    defs += contains(c.source, "def subject(");
    lambdas += contains(c.source, "subject = lambda");
    classes += contains(c.source, "class subject(");
    made += contains(c.source, "subject = _make()");
    recursive += contains(c.source, "+ subject(");
    nested += contains(c.source, "inner(") || contains(c.source, "(lambda x:");
    kwonly += contains(c.source, ", *, ") || contains(c.source, "(*, ");
    annotated += contains(c.source, ": int");
    globals += contains(c.source, "G0 = ");
    fixture_bases += contains(c.source, "(serialcheck_fixtures.");
  }
  for (int n : {defs, lambdas, classes, made, recursive, nested, kwonly, annotated, globals,
                fixture_bases}) {
    EXPECT_GT(n, 10);
  }
}

#ifdef SERIALCHECK_HAVE_PYTHON

class WithPickler : public ReferenceSubject {
 public:
  explicit WithPickler(std::string module) : module_(std::move(module)) {}
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.by_value_pickler = module_;
    return c;
  }

 private:
  std::string module_;
};

// Runs `cases` cases of the property's own plan; the first failure, or nullopt.
std::optional<Outcome> run(Subject& subject, int cases, int* ran = nullptr) {
  python::install_by_value_runner();
  const GateProperty* property = find_property("callable.by-value");
  EXPECT_NE(property, nullptr);
  PropertyEnv env;
  env.subject = [](const std::string&, std::string* why) -> Subject* {
    if (why != nullptr) *why = "not in this test";
    return nullptr;
  };
  Applicability a = applicability(*property, subject, env);
  EXPECT_EQ(a.skip_reason, "");
  rc::Gen<TestCase> gen = case_generator(a.plan);
  rc::Random random(7);
  for (int i = 0; i < cases; ++i) {
    TestCase c = gen(random.split(), i % 101).value();
    Outcome o = check_case(*property, subject, c, env);
    EXPECT_NE(o.status, Outcome::Status::Discard) << o.message;
    if (ran != nullptr) ++*ran;
    if (o.failed()) return o;
  }
  return std::nullopt;
}

TEST(ByValue, CloudpicklePasses) {
  WithPickler cloudpickle("cloudpickle");
  int ran = 0;
  auto failure = run(cloudpickle, 40, &ran);
  EXPECT_FALSE(failure.has_value()) << failure->fingerprint << ": " << failure->message << "\n"
                                    << failure->explanation;
  EXPECT_EQ(ran, 40);
}

TEST(ByValue, DillPasses) {
  WithPickler dill("dill");
  auto failure = run(dill, 20);
  EXPECT_FALSE(failure.has_value()) << failure->fingerprint << ": " << failure->message << "\n"
                                    << failure->explanation;
}

TEST(ByValue, PicklingByReferenceFailsInTheFreshProcess) {
  WithPickler by_reference("serialcheck_by_reference");
  auto failure = run(by_reference, 20);
  ASSERT_TRUE(failure.has_value());
  EXPECT_EQ(failure->fingerprint.rfind("byvalue:load:", 0), 0u) << failure->fingerprint;
  EXPECT_TRUE(contains(failure->message, "ModuleNotFoundError")) << failure->message;
}

TEST(ByValue, OnlySubjectsThatPickleByValue) {
  ReferenceSubject reference;
  PropertyEnv env;
  Applicability a = applicability(*find_property("callable.by-value"), reference, env);
  EXPECT_TRUE(contains(a.skip_reason, "by value")) << a.skip_reason;
}

#endif

}  // namespace
}  // namespace serialcheck
