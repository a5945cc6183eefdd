// Every gate property fails on its negative control
// (harness/subjects/mutant_subjects.h): the property runs, with its own
// applicability and case generator as the gate runs it, on a subject with
// one bug, and must fail within the gate's 100 cases with the failure the
// bug causes. A property that passes its control could pass anything.
//
// The helper subjects the properties consult are stand-ins, so this runs
// without Python: the reference, under the name "cpython" the reference
// again (byte-identical to the C pickler by design, and rejecting what the
// C pickler's loader rejects, with its error type), and under the name
// "distributed" the reference's families (distributed's wire schema, read
// as distributed reads it: a buffer's writability from the header's
// "writeable" when it has one, else from the frame as it arrives).
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
#include "reference/frames/family.h"
#ifdef SERIALCHECK_HAVE_PYTHON
#include "harness/python/byvalue.h"
#endif

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

// The distributed subject's stand-in: serialize() and deserialize() with
// the builtin families.
class DistributedStandIn : public ReferenceSubject {
 public:
  std::string name() const override { return "distributed"; }
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.families = {"dask", "pickle"};
    c.pickle_format = false;
    c.limit_loader = false;
    c.native_codec = false;
    return c;
  }
  Message dumps(const Node* value, const DumpOptions&) override {
    return families::serialize(value, {});
  }
  Node* loads(const Message& m, Graph& graph, const LoadOptions&) override {
    return families::deserialize(m, graph);
  }
};

// callable.by-value runs on a subject's by_value_pickler alone: the
// reference with cloudpickle's.
class CloudpickleStandIn : public ReferenceSubject {
 public:
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.by_value_pickler = "cloudpickle";
    return c;
  }
};

struct Env {
  ReferenceSubject reference;
  OracleStandIn cpython;
  DistributedStandIn distributed;
  std::map<std::string, std::unique_ptr<Subject>> peers;
  PropertyEnv env;
  Env() {
#ifdef SERIALCHECK_HAVE_PYTHON
    // callable.by-value defines, dumps and calls in the embedded interpreter.
    python::install_by_value_runner();
#endif
    env.subject = [this](const std::string& name, std::string* why) -> Subject* {
      if (auto it = peers.find(name); it != peers.end()) return it->second.get();
      if (name == "reference") return &reference;
      if (name == "cpython") return &cpython;
      if (name == "distributed") return &distributed;
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
#ifndef SERIALCHECK_HAVE_PYTHON
  if (c.property == "callable.by-value") GTEST_SKIP() << "needs the embedded interpreter";
#endif
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
                           // The property, and the mutant when the property has several.
                           std::string name(row.param.property);
                           if (negative_control_for(row.param.property).find("; ") !=
                               std::string::npos) {
                             name += "_" + std::string(row.param.mutant);
                           }
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
    // The reference is the oracle's stand-in here; a peer's honest twin is not.
    if (id == "bytes.match-cpython" || c.role == NegativeControl::Role::Peer) continue;
    if (!seen.insert(id).second) continue;
    Env e;
    Subject* subject = &e.reference;
    // The matrix needs a consumer that is not the producer.
    ReferenceSubject consumer;
    if (id.rfind("cross.matrix/", 0) == 0) subject = &consumer;
    // callable.by-value's honest twin: the same capabilities with cloudpickle.
    CloudpickleStandIn by_value;
    if (id == "callable.by-value") {
#ifndef SERIALCHECK_HAVE_PYTHON
      continue;
#endif
      subject = &by_value;
    }
    const GateProperty* property = find_property(id);
    ASSERT_NE(property, nullptr) << id;
    Verdict v = run_cell(*property, *subject, e, 20261129);
    EXPECT_FALSE(v.failure.has_value())
        << id << ": " << v.failure->fingerprint << ": " << v.failure->message;
  }
}

TEST(NegativeControls, EveryGatePropertyHasOne) {
  for (const GateProperty& p : gate_properties()) {
    EXPECT_NE(find_negative_control(p.id), nullptr) << p.id;
    EXPECT_NE(negative_control_for(p.id), "") << p.id;
  }
  EXPECT_NE(find_negative_control("cross.matrix/anything"), nullptr);
  EXPECT_EQ(negative_control_for("no.such-property"), "");
  EXPECT_EQ(make_mutant_subject("no-such-mutant"), nullptr);
  // A property with two controls names both.
  EXPECT_EQ(negative_control_for("wire.distributed"),
            "distributed-drops-grad (as distributed): a distributed stand-in that loads tensors "
            "without their grad; drops-writeable: its pickle family leaves \"writeable\" out of "
            "the header, so a loader takes the buffers' writability from however the frames "
            "arrive");
}

// The properties of the families run on the subject's own family registry;
// a subject without one is skipped with a reason, never passed.
class NoFamilies : public ReferenceSubject {
 public:
  const families::FamilyRegistry* family_registry() const override { return nullptr; }
};

TEST(NegativeControls, FamilyPropertiesSkipASubjectWithoutFamilies) {
  Env e;
  NoFamilies subject;
  for (const char* id : {"zerocopy.device", "protocol.negotiated", "wire.distributed"}) {
    const GateProperty* property = find_property(id);
    ASSERT_NE(property, nullptr) << id;
    EXPECT_NE(
        applicability(*property, subject, e.env).skip_reason.find("no serialization families"),
        std::string::npos)
        << id;
    EXPECT_EQ(applicability(*property, e.reference, e.env).skip_reason, "") << id;
  }
}

}  // namespace
}  // namespace serialcheck
