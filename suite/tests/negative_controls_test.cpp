// Every gate property fails on its negative control
// (harness/subjects/mutant_subjects.h): the property runs, with its own
// applicability and case generator as the gate runs it, on a subject with
// one bug, and must fail within the gate's 100 cases with the failure the
// bug causes. A property that passes its control could pass anything.
//
// The helper subjects the properties consult are stand-ins, so this runs
// without Python: the reference, and under the name "cpython" the reference
// again (byte-identical to the C pickler by design, and rejecting what the
// C pickler's loader rejects, with its error type).
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cctype>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>

#include "harness/props/gate_props.h"
#include "harness/subjects/mutant_subjects.h"
#include "harness/subjects/reference_subject.h"

namespace serialcheck {
namespace {

// The cpython subject's stand-in: the reference under another name, whose
// load errors carry the exception type CPython's loader raises.
class OracleStandIn : public ReferenceSubject {
 public:
  std::string name() const override { return "cpython"; }
  Node* loads(const Message& m, Graph& graph, const LoadOptions& options) override {
    try {
      return ReferenceSubject::loads(m, graph, options);
    } catch (const std::exception& e) {
      throw SubjectError("UnpicklingError", e.what());
    }
  }
};

struct Env {
  ReferenceSubject reference;
  OracleStandIn cpython;
  std::map<std::string, std::unique_ptr<Subject>> peers;
  PropertyEnv env;
  Env() {
    env.subject = [this](const std::string& name, std::string* why) -> Subject* {
      if (auto it = peers.find(name); it != peers.end()) return it->second.get();
      if (name == "reference") return &reference;
      if (name == "cpython") return &cpython;
      if (why != nullptr) *why = "not in this test";
      return nullptr;
    };
  }
};

constexpr int kCases = 100;  // what the gate runs per cell

struct Verdict {
  int ran = 0;  // cases checked (not discarded)
  std::optional<Outcome> failure;
};

// The property on `subject` as a gate cell would run it, up to the first failure.
Verdict run_cell(const GateProperty& property, Subject& subject, Env& e, std::uint64_t seed) {
  Applicability a = applicability(property, subject, e.env);
  EXPECT_EQ(a.skip_reason, "") << property.id << " on " << subject.name();
  Verdict v;
  if (!a.skip_reason.empty()) return v;
  rc::Gen<TestCase> gen = case_generator(a.plan);
  rc::Random random(seed);
  for (int i = 0; i < kCases; ++i) {
    TestCase c = gen(random.split(), i % 101).value();
    Outcome o = check_case(property, subject, c, e.env);
    if (o.status == Outcome::Status::Discard) continue;
    ++v.ran;
    if (o.failed()) {
      v.failure = std::move(o);
      return v;
    }
  }
  return v;
}

std::string property_for(const NegativeControl& c) {
  // Any producer name: the matrix property is made for it on demand.
  return c.property == "cross.matrix/*" ? "cross.matrix/reference" : std::string(c.property);
}

class NegativeControls : public ::testing::TestWithParam<NegativeControl> {};

TEST_P(NegativeControls, ThePropertyFailsOnItsControl) {
  const NegativeControl& c = GetParam();
  const GateProperty* property = find_property(property_for(c));
  ASSERT_NE(property, nullptr) << c.property;
  Env e;
  std::unique_ptr<Subject> mutant = make_mutant_subject(c.mutant);
  ASSERT_NE(mutant, nullptr) << c.mutant;
  Subject* subject = mutant.get();
  if (c.role == NegativeControl::Role::Peer) {
    e.peers[std::string(c.peer)] = std::move(mutant);
    subject = &e.reference;
  }
  Verdict v = run_cell(*property, *subject, e, 20261129);
  RecordProperty("cases_until_failure", v.ran);
  ASSERT_TRUE(v.failure.has_value())
      << property->id << " passed " << v.ran << " cases on its control " << c.mutant << " ("
      << c.bug << ")";
  EXPECT_EQ(v.failure->fingerprint.rfind(c.fingerprint_prefix, 0), 0u)
      << "failed, but not because of the bug: " << v.failure->fingerprint << ": "
      << v.failure->message;
}

INSTANTIATE_TEST_SUITE_P(EveryProperty, NegativeControls, ::testing::ValuesIn(negative_controls()),
                         [](const ::testing::TestParamInfo<NegativeControl>& row) {
                           std::string name(row.param.property);
                           for (char& ch : name) {
                             if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
                           }
                           return name;
                         });

// The controls prove the properties, not the reverse: the same cells pass on
// the honest reference, so a control's failure is its bug's.
TEST(NegativeControls, TheHonestReferencePassesTheSameCells) {
  std::set<std::string> seen;
  for (const NegativeControl& c : negative_controls()) {
    const std::string id = property_for(c);
    if (!seen.insert(id).second) continue;
    // The reference is the oracle's stand-in here; a peer's honest twin is not.
    if (id == "bytes.match-cpython" || c.role == NegativeControl::Role::Peer) continue;
    Env e;
    Subject* subject = &e.reference;
    // The matrix needs a consumer that is not the producer.
    ReferenceSubject consumer;
    if (id.rfind("cross.matrix/", 0) == 0) subject = &consumer;
    const GateProperty* property = find_property(id);
    ASSERT_NE(property, nullptr) << id;
    Verdict v = run_cell(*property, *subject, e, 20261129);
    EXPECT_FALSE(v.failure.has_value())
        << id << ": " << v.failure->fingerprint << ": " << v.failure->message;
  }
}

TEST(NegativeControls, EveryGatePropertyHasOneOrSaysWhyNot) {
  for (const GateProperty& p : gate_properties()) {
    const bool controlled = find_negative_control(p.id) != nullptr;
    bool excused = false;
    for (const auto& u : uncontrolled_properties()) excused = excused || u.property == p.id;
    EXPECT_TRUE(controlled != excused) << p.id;
    EXPECT_EQ(negative_control_for(p.id).empty(), !controlled) << p.id;
  }
  EXPECT_NE(find_negative_control("cross.matrix/anything"), nullptr);
  EXPECT_EQ(negative_control_for("no.such-property"), "");
  EXPECT_EQ(make_mutant_subject("no-such-mutant"), nullptr);
}

}  // namespace
}  // namespace serialcheck
