// callable.class-life in the embedded interpreter: hand-written cases, one
// per situation, on an honest by-value pickler (cloudpickle, but a class
// loaded where it was pickled is the live class: serialcheck_live_classes),
// on cloudpickle itself, and on the broken picklers that are the
// property's negative controls, each failing with its own fingerprint.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/gen/function_gen.h"
#include "harness/props/gate_props.h"
#include "harness/python/byvalue.h"
#include "harness/subjects/mutant_subjects.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/negative_controls.h"

namespace serialcheck {
namespace {

// A class whose run reads a class attribute, a global and a method, and a
// _change() that changes all three.
constexpr const char* kClass = R"(G0 = 5
class subject(object):
    K0 = 3
    def __init__(self, a, b=2):
        self.x = a + b
    def run(self, a, b=2):
        return self.x + self.K0 + G0 + self.m0(a)
    def m0(self, x):
        return x * 2
def _change():
    global G0
    G0 = 7
    subject.K0 = 11
    subject.m0 = lambda self, x: 100
)";

// A function with a default, and a _change() that changes it and a global.
constexpr const char* kFunction = R"(G0 = 5
def subject(a, b=2):
    return a + b + G0
def _change():
    global G0
    G0 = 9
    subject.__defaults__ = (4,)
)";

constexpr const char* kInputs = R"([[[1],{}],[[2,3],{}]])";

Outcome check(Subject& subject, const std::string& source, const std::string& situation) {
  python::install_by_value_runner();
  const GateProperty* property = find_property("callable.class-life");
  EXPECT_NE(property, nullptr);
  TestCase c;
  c.graph = std::make_shared<Graph>();
  Graph& g = *c.graph;
  c.value = g.root = g.list({g.str(source), g.str(kInputs), g.str(situation)});
  PropertyEnv env = test_support::env_with({});
  return check_case(*property, subject, c, env);
}

void expect_passes(Subject& subject, const std::string& source,
                   const std::vector<std::string>& situations) {
  for (const std::string& situation : situations) {
    const Outcome o = check(subject, source, situation);
    EXPECT_EQ(o.status, Outcome::Status::Pass)
        << situation << ": " << o.fingerprint << ": " << o.message;
  }
}

TEST(ClassLife, EverySituationPassesOnAnHonestPickler) {
  test_support::LiveClassesStandIn honest;
  expect_passes(honest, kClass, gen::life_situations());
  expect_passes(honest, kFunction, {"changed-fresh", "changed-here", "loaded-twice"});
}

TEST(ClassLife, ForgettingLoadedClassesBreaksIdentityAndInstances) {
  std::unique_ptr<Subject> forgets = make_mutant_subject("forgets-classes");
  ASSERT_NE(forgets, nullptr);
  Outcome o = check(*forgets, kClass, "loaded-twice");
  EXPECT_EQ(o.fingerprint, "classlife:identity@loaded-twice") << o.message;
  o = check(*forgets, kClass, "two-pickles");
  EXPECT_EQ(o.fingerprint, "classlife:instance-class@two-pickles") << o.message;
  // A function has no identity to keep.
  EXPECT_EQ(check(*forgets, kFunction, "loaded-twice").status, Outcome::Status::Pass);
}

TEST(ClassLife, WritingTheClassBackOnLoadChangesTheOriginal) {
  std::unique_ptr<Subject> writes_back = make_mutant_subject("writes-back-on-load");
  ASSERT_NE(writes_back, nullptr);
  const Outcome o = check(*writes_back, kClass, "changed-here");
  EXPECT_EQ(o.fingerprint, "classlife:original@changed-here") << o.message;
  EXPECT_NE(o.message.find("changed the original"), std::string::npos) << o.message;
  // In a fresh process there is nothing live to write over.
  EXPECT_EQ(check(*writes_back, kClass, "changed-fresh").status, Outcome::Status::Pass);
}

TEST(ClassLife, LostDefaultsChangeTheResult) {
  std::unique_ptr<Subject> drops = make_mutant_subject("drops-defaults");
  ASSERT_NE(drops, nullptr);
  const Outcome o = check(*drops, kFunction, "changed-fresh");
  EXPECT_EQ(o.fingerprint, "classlife:result@changed-fresh") << o.message;
  EXPECT_NE(o.message.find("called with [[1],{}]"), std::string::npos) << o.message;
}

// What cloudpickle 2.2 does (known-failures.txt): a class loaded in the
// process that pickled it is the live class, with the pickled attributes
// written back over it.
TEST(ClassLife, CloudpickleWritesTheClassBackWhereItWasPickled) {
  test_support::CloudpickleStandIn cloudpickle;
  const Outcome o = check(cloudpickle, kClass, "changed-here");
  EXPECT_EQ(o.fingerprint, "classlife:original@changed-here") << o.message;
  for (const std::string situation : {"changed-fresh", "loaded-twice", "two-pickles"}) {
    EXPECT_EQ(check(cloudpickle, kClass, situation).status, Outcome::Status::Pass) << situation;
  }
}

// The class's facts: cloudpickle 2.2 drops a made class's __qualname__,
// and a class's __module__ when it is the same str as its base's; the
// honest pickler keeps both.
constexpr const char* kMadeClass = R"(def _make():
    class subject(object):
        def __init__(self, a):
            self.x = a
        def run(self, a):
            return self.x
    return subject
subject = _make()
def _change():
    pass
)";

constexpr const char* kOnABase = R"(class _Base(object):
    B0 = 0
class subject(_Base):
    def __init__(self, a):
        self.x = a
    def run(self, a):
        return self.x + self.B0
def _change():
    pass
)";

TEST(ClassLife, TheLoadedClassSaysWhatTheClassSaid) {
  test_support::CloudpickleStandIn cloudpickle;
  Outcome o = check(cloudpickle, kMadeClass, "changed-fresh");
  EXPECT_EQ(o.fingerprint, "classlife:class:__qualname__") << o.message;
  EXPECT_NE(o.message.find("\"_make.<locals>.subject\""), std::string::npos) << o.message;
  o = check(cloudpickle, kOnABase, "loaded-twice");
  EXPECT_EQ(o.fingerprint, "classlife:class:__module__") << o.message;
  test_support::LiveClassesStandIn honest;
  expect_passes(honest, kMadeClass, gen::life_situations());
  expect_passes(honest, kOnABase, gen::life_situations());
}

TEST(ClassLife, AClassOnlySituationOnAFunctionIsTheHarnesssDefect) {
  test_support::LiveClassesStandIn honest;
  const Outcome o = check(honest, kFunction, "two-pickles");
  EXPECT_EQ(o.fingerprint, "byvalue:define@harness") << o.message;
}

}  // namespace
}  // namespace serialcheck
