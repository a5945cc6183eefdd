// callable.by-value over external Python testees (harness/testees/python):
// the case goes through the testee protocol (define-dumps in the testee,
// load-call in a fresh instance of it), so the testee's own pickler and
// interpreter are what is checked. Two broken picklers served by the same
// adapter are the negative controls, and `serialcheck testee-check` says
// what a by-value testee does.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "harness/gen/function_gen.h"
#include "harness/props/gate_props.h"
#include "harness/subjects/external_subject.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/listed.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;

std::string adapter(const std::string& args) {
  return std::string("/usr/bin/python3 '") + SERIALCHECK_SOURCE_DIR +
         "/harness/testees/python/serialcheck_testee.py' " + args;
}

TesteeConfig testee(const std::string& name, const std::string& args) {
  TesteeConfig c;
  c.name = name;
  c.command = adapter(args);
  c.timeout_s = 20;
  c.start_timeout_s = 30;
  c.origin = "test";
  return c;
}

bool contains(const std::string& s, const std::string& what) {
  return s.find(what) != std::string::npos;
}

// Skips the test when the adapter cannot serve this preset here.
#define SKIP_UNLESS_AVAILABLE(subject)                                   \
  do {                                                                   \
    if (auto why = (subject).unavailable_reason()) GTEST_SKIP() << *why; \
  } while (false)

struct CellRun {
  int checked = 0;
  int discarded = 0;
  std::optional<Outcome> failure;
};

// The property on `subject` as a gate cell runs it, up to `cases` cases or
// the first failure (the first whose fingerprint starts with `wanted`, when
// given: a broken pickler may fail a case in more than one way).
CellRun run_cell(Subject& subject, int cases, const std::string& wanted = {},
                 std::uint64_t seed = 20261129, std::vector<std::string> listed = {}) {
  const GateProperty* property = find_property("callable.by-value");
  EXPECT_NE(property, nullptr);
  PropertyEnv env = test_support::env_with({});
  env.listed = std::move(listed);  // as the gate passes them (PropertyEnv::listed)
  CellRun run;
  Applicability a = applicability(*property, subject, env);
  EXPECT_EQ(a.skip_reason, "") << subject.name();
  if (!a.skip_reason.empty()) return run;
  rc::Gen<TestCase> gen = case_generator(a.plan);
  rc::Random random(seed);
  for (int i = 0; i < cases; ++i) {
    TestCase c = gen(random.split(), i % 101).value();
    Outcome o = check_case(*property, subject, c, env);
    if (o.status == Outcome::Status::Discard) {
      ++run.discarded;
      continue;
    }
    ++run.checked;
    if (o.failed() && o.fingerprint.rfind(wanted, 0) == 0) {
      run.failure = std::move(o);
      return run;
    }
  }
  return run;
}

TestCase callable_case(const std::string& source, const std::string& inputs, int protocol = 5) {
  TestCase c;
  c.graph = std::make_shared<Graph>();
  Graph& g = *c.graph;
  Node* root = g.list({g.str(source), g.str(inputs)});
  g.root = root;
  c.value = root;
  c.protocol = protocol;
  return c;
}

Outcome check_one(Subject& subject, const TestCase& c) {
  PropertyEnv env;
  return check_case(*find_property("callable.by-value"), subject, c, env);
}

class ByValuePresets : public ::testing::TestWithParam<const char*> {};

// dill 0.3.6 and cloudpickle 2.2 pass but for their known failures, which
// the cell passes as the gate does (named as subjects.json names them, so
// that the lines of known-failures.txt apply).
TEST_P(ByValuePresets, PassThroughTheProtocol) {
  const std::string preset = GetParam();
  const std::string name = preset == "cloudpickle" ? "cloudpickle-testee" : preset;
  ExternalSubject subject(testee(name, "--preset " + preset));
  SKIP_UNLESS_AVAILABLE(subject);
  const Capabilities caps = subject.capabilities();
  EXPECT_TRUE(caps.by_value);
  EXPECT_EQ(caps.by_value_pickler, "")
      << "the harness's own Python must not stand in for the testee";
  std::vector<std::string> listed;
  for (const KnownFailure& k : test_support::known_failures_file()) {
    if (k.matches(name, "callable.by-value")) listed.push_back(k.fingerprint);
  }
  EXPECT_FALSE(listed.empty()) << "known-failures.txt lists nothing for " << name;
  const CellRun run = run_cell(subject, 25, {}, 20261129, listed);
  EXPECT_FALSE(run.failure.has_value())
      << run.failure->fingerprint << ": " << run.failure->message << "\n"
      << run.failure->explanation;
  EXPECT_EQ(run.checked, 25);
  EXPECT_EQ(subject.starts(), 1) << "the defining testee was restarted";
}

INSTANTIATE_TEST_SUITE_P(Adapter, ByValuePresets, ::testing::Values("dill", "cloudpickle"));

// Negative control: dumps pickles the function or class by reference to its
// module, which exists in the defining testee only.
TEST(ByValueTestee, PicklingByReferenceFailsInTheFreshInstance) {
  ExternalSubject subject(testee(
      "by-reference", "--dumps serialcheck_by_reference:dumps --loads pickle:loads --by-value"));
  SKIP_UNLESS_AVAILABLE(subject);
  const CellRun run = run_cell(subject, 100, "byvalue:load:");
  ASSERT_TRUE(run.failure.has_value()) << "no load failed in " << run.checked << " cases";
  EXPECT_EQ(run.failure->fingerprint, "byvalue:load:ModuleNotFoundError") << run.failure->message;
  EXPECT_TRUE(
      contains(run.failure->message, "a fresh instance of the testee by-reference cannot load it"))
      << run.failure->message;
}

// Negative control: cloudpickle, but a function loses its defaults.
TEST(ByValueTestee, LostDefaultsChangeTheResults) {
  ExternalSubject subject(
      testee("drops-defaults",
             "--dumps serialcheck_drops_defaults:dumps --loads pickle:loads --by-value"));
  SKIP_UNLESS_AVAILABLE(subject);
  const CellRun run = run_cell(subject, 100, "byvalue:result");
  ASSERT_TRUE(run.failure.has_value()) << "no result differed in " << run.checked << " cases";
}

TEST(ByValueTestee, ATesteeWithoutByValueIsSkippedEvenWithAByValuePickler) {
  // The pickle preset does not pickle callables by value.
  ExternalSubject subject(testee("pickle", "--preset pickle --without-kinds ndarray,tensor"));
  SKIP_UNLESS_AVAILABLE(subject);
  PropertyEnv env;
  const Applicability a = applicability(*find_property("callable.by-value"), subject, env);
  EXPECT_TRUE(contains(a.skip_reason, "by_value")) << a.skip_reason;
  try {
    subject.by_value(
        ByValueCase{"def subject():\n    return 1\n", nlohmann::json::parse("[[[],{}]]"), 5});
    ADD_FAILURE() << "no error";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), kUnsupported);
  }
  // An older hello's by_value_pickler alone does not make a subject take part.
  const Capabilities caps =
      capabilities_from_json(nlohmann::json::parse(R"({"by_value_pickler": "dill"})"));
  EXPECT_FALSE(caps.pickles_by_value());
  EXPECT_TRUE(capabilities_from_json(nlohmann::json::parse(R"({"by_value": true})")).by_value);
}

TEST(ByValueTestee, EachStageOfAFailureIsKept) {
  ExternalSubject subject(testee("dill", "--preset dill --quiet"));
  SKIP_UNLESS_AVAILABLE(subject);
  const nlohmann::json one = nlohmann::json::parse("[[[],{}]]");
  // The source does not run in the testee: the defining stage.
  ByValueOutcome out = subject.by_value(ByValueCase{"subject = no_such_name\n", one, 5});
  EXPECT_EQ(out.stage, "define");
  EXPECT_EQ(out.kind, "NameError");
  // ...which the property discards: the testee's interpreter may be older.
  Outcome o = check_one(subject, callable_case("subject = no_such_name\n", "[[[],{}]]"));
  EXPECT_EQ(o.status, Outcome::Status::Discard) << o.fingerprint;
  EXPECT_TRUE(contains(o.message, "NameError")) << o.message;
  // dill cannot pickle a generator: the dumps stage, with the error's type.
  out = subject.by_value(
      ByValueCase{"subject = (i for i in range(3))\n", nlohmann::json::array(), 5});
  EXPECT_EQ(out.stage, "dumps");
  EXPECT_EQ(out.kind, "TypeError") << out.error;
  o = check_one(subject, callable_case("subject = (i for i in range(3))\n", "[]"));
  EXPECT_EQ(o.fingerprint.rfind("exception:TypeError@dumps", 0), 0u) << o.fingerprint;
  // Through: the results of both processes.
  out = subject.by_value(ByValueCase{"def subject(a=2):\n    return a * 3\n",
                                     nlohmann::json::parse(R"([[[],{}],[[1,2],{}]])"), 2});
  EXPECT_EQ(out.stage, "") << out.kind << ": " << out.error;
  EXPECT_EQ(out.original, nlohmann::json::parse(R"([["value","6"],["raises","TypeError"]])"));
  EXPECT_EQ(out.loaded, out.original);
  EXPECT_EQ(subject.starts(), 1);
}

TEST(ByValueTestee, AFreshInstanceThatCrashesFailsTheLoadStage) {
  const fs::path dir =
      fs::temp_directory_path() / ("sc-byvalue-crash-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  std::ofstream(dir / "crashy.py") << "import os, sys\nimport dill\n"
                                      "dumps = dill.dumps\n"
                                      "def loads(data):\n"
                                      "    sys.stderr.write('crashy: giving up\\n')\n"
                                      "    sys.stderr.flush()\n"
                                      "    os._exit(3)\n";
  ExternalSubject subject(
      testee("crashy", "--path '" + dir.string() +
                           "' --dumps crashy:dumps --loads crashy:loads --by-value "
                           "--without-kinds ndarray,tensor"));
  if (auto why = subject.unavailable_reason()) {
    fs::remove_all(dir);
    GTEST_SKIP() << *why;
  }
  const Outcome o =
      check_one(subject, callable_case("def subject():\n    return 1\n", "[[[],{}]]"));
  EXPECT_EQ(o.fingerprint.rfind("byvalue:load:testee-crash", 0), 0u) << o.fingerprint;
  EXPECT_TRUE(contains(o.message, "exited with status 3")) << o.message;
  EXPECT_TRUE(contains(o.explanation, "crashy: giving up")) << o.explanation;
  fs::remove_all(dir);
}

// ---- serialcheck testee-check ----------------------------------------------------------

std::string testee_check(const std::string& adapter_args, int* status) {
  const std::string cmd =
      std::string("'") + SERIALCHECK_CLI + "' testee-check -- " + adapter(adapter_args) + " 2>&1";
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return out;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
  const int s = pclose(p);
  *status = WIFEXITED(s) ? WEXITSTATUS(s) : -1;
  return out;
}

TEST(ByValueTesteeCheck, ByValueTesteeGetsDefineDumpsAndLoadCall) {
  int status = -1;
  std::string out = testee_check("--preset cloudpickle --without-kinds ndarray,tensor", &status);
  if (contains(out, "unavailable")) GTEST_SKIP() << out;
  EXPECT_TRUE(
      contains(out, "ok   define-dumps protocol 5: 2 callables called as expected and dumped"))
      << out;
  EXPECT_TRUE(
      contains(out, "ok   load-call in a fresh instance: 2 callables loaded and called as before"))
      << out;
  EXPECT_TRUE(contains(out,
                       "ok   life-here and life-fresh: the 5 situations answered, each observation "
                       "beside its expectation"))
      << out;
  EXPECT_EQ(status, 0) << out;

  out = testee_check(
      "--dumps serialcheck_by_reference:dumps --loads pickle:loads --by-value "
      "--without-kinds ndarray,tensor",
      &status);
  EXPECT_EQ(status, 1) << out;
  EXPECT_TRUE(
      contains(out,
               "FAIL load-call in a fresh instance: a class: ModuleNotFoundError: No module "
               "named 'sc_byvalue_"))
      << out;

  out = testee_check("--preset pickle --without-kinds ndarray,tensor", &status);
  EXPECT_TRUE(contains(out, "skip define-dumps: the testee does not claim by_value")) << out;
  EXPECT_TRUE(contains(out, "skip load-call: the testee does not claim by_value")) << out;
  EXPECT_TRUE(contains(out, "skip life-here and life-fresh: the testee does not claim by_value"))
      << out;
}

// callable.class-life through the protocol: life-here in the testee,
// life-fresh in a fresh instance. dill makes a new class at each load;
// cloudpickle keeps one class per process but writes the pickled class
// back over the live one; serialcheck_live_classes (cloudpickle, but the
// live class untouched) passes.
constexpr const char* kLifeClass = R"(G0 = 5
class subject(object):
    K0 = 3
    def __init__(self, a):
        self.x = a
    def run(self, a):
        return self.x + self.K0 + G0
def _change():
    subject.K0 = 11
)";

ClassLifeOutcome life(ExternalSubject& subject, const std::string& situation) {
  return subject.class_life(
      ClassLifeCase{kLifeClass, nlohmann::json::parse("[[[1],{}],[[2],{}]]"), situation, 5});
}

// The first check whose observation differs from the expectation, or "".
std::string first_difference(const ClassLifeOutcome& o) {
  for (const char* check : {"identity", "instance-class", "original", "result"}) {
    if (o.expect.contains(check) && o.expect[check] != o.observed.value(check, nlohmann::json()))
      return check;
  }
  return "";
}

TEST(ClassLifeTestee, TheSituationsRunThroughTheProtocol) {
  ExternalSubject dill(testee("dill", "--preset dill --without-kinds ndarray,tensor"));
  SKIP_UNLESS_AVAILABLE(dill);
  EXPECT_TRUE(dill.capabilities().class_life);
  ClassLifeOutcome o = life(dill, "loaded-twice");
  ASSERT_EQ(o.stage, "") << o.error;
  EXPECT_EQ(first_difference(o), "identity") << o.observed.dump();
  o = life(dill, "changed-fresh");
  ASSERT_EQ(o.stage, "") << o.error;
  EXPECT_EQ(first_difference(o), "") << o.expect.dump() << " " << o.observed.dump();

  ExternalSubject cloudpickle(
      testee("cloudpickle", "--preset cloudpickle --without-kinds ndarray,tensor"));
  SKIP_UNLESS_AVAILABLE(cloudpickle);
  o = life(cloudpickle, "changed-here");
  ASSERT_EQ(o.stage, "") << o.error;
  EXPECT_EQ(first_difference(o), "original") << o.expect.dump() << " " << o.observed.dump();

  ExternalSubject honest(testee(
      "live-classes", "--dumps serialcheck_live_classes:dumps --loads pickle:loads --by-value"));
  SKIP_UNLESS_AVAILABLE(honest);
  for (const std::string& situation : gen::life_situations()) {
    o = life(honest, situation);
    ASSERT_EQ(o.stage, "") << situation << ": " << o.error;
    EXPECT_EQ(first_difference(o), "") << situation << ": " << o.observed.dump();
  }
}

TEST(ClassLifeTestee, AnUnknownSituationIsARequestTheTesteeRefuses) {
  ExternalSubject subject(
      testee("cloudpickle", "--preset cloudpickle --without-kinds ndarray,tensor"));
  SKIP_UNLESS_AVAILABLE(subject);
  const ClassLifeOutcome o = life(subject, "changed-sideways");
  EXPECT_EQ(o.stage, "dumps");
  EXPECT_EQ(o.kind, "testee-protocol") << o.error;  // the request was the harness's mistake
  EXPECT_TRUE(contains(o.error, "changed-fresh")) << o.error;
}

}  // namespace
}  // namespace serialcheck
