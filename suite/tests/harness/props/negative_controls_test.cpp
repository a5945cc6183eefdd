// Every gate property fails on its negative control
// (harness/subjects/mutant_subjects.h): the property runs, with its own
// applicability and case generator as the gate runs it, on a subject with
// one bug, and must fail within the gate's 100 cases with the failure the
// bug causes. A property that passes its control could pass anything.
// The helper subjects are stand-ins (suite/tests/support/negative_controls.h),
// so this runs without Python; callable.by-value and cross.stdlib, whose
// functions and values live in the embedded interpreter, have their
// controls in negative_controls_python_test.cpp.
#include "suite/tests/support/negative_controls.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

#include "harness/props/gate_props.h"
#include "harness/subjects/mutant_subjects.h"
#include "harness/subjects/reference_subject.h"

namespace serialcheck {
namespace {

using test_support::CellRun;
using test_support::Env;
using test_support::property_for;
using test_support::run_cell;

constexpr std::string_view kByValue = "callable.by-value";
constexpr std::string_view kClassLife = "callable.class-life";
constexpr std::string_view kStdlib = "cross.stdlib/*";

std::vector<NegativeControl> controls_without_python() {
  std::vector<NegativeControl> out;
  for (const NegativeControl& c : negative_controls()) {
    if (c.property != kByValue && c.property != kClassLife && c.property != kStdlib) {
      out.push_back(c);
    }
  }
  return out;
}

class NegativeControls : public ::testing::TestWithParam<NegativeControl> {};

// An honest reader of protocols 0-4, which refuses 5 naming it: the
// consumer protocol.negotiated/<producer> negotiates with (a reader of
// every protocol the producer writes has nothing to negotiate).
class ReadsUpTo4 : public ReferenceSubject {
 public:
  std::string name() const override { return "reads-up-to-4"; }
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.read_max_protocol = 4;
    return c;
  }
  Node* loads(const Message& m, Graph& graph, const LoadOptions& options) override {
    if (!m.frames.empty() && m.frames[0].size >= 2 && m.frames[0].data[0] == 0x80 &&
        m.frames[0].data[1] > 4) {
      throw SubjectError("ValueError",
                         "unsupported pickle protocol: " + std::to_string(m.frames[0].data[1]));
    }
    return ReferenceSubject::loads(m, graph, options);
  }
};

TEST_P(NegativeControls, ThePropertyFailsOnItsControl) {
  test_support::expect_fails_on_control(GetParam());
}

INSTANTIATE_TEST_SUITE_P(EveryProperty, NegativeControls,
                         ::testing::ValuesIn(controls_without_python()),
                         test_support::control_test_name);

// The controls prove the properties, not the reverse: the same cells pass on
// the honest reference, so a control's failure is its bug's.
TEST(NegativeControls, TheHonestReferencePassesTheSameCells) {
  std::set<std::string> seen;
  for (const NegativeControl& c : negative_controls()) {
    const std::string id = property_for(c);
    const bool python2 = id.rfind("cross.py2/", 0) == 0;
    // The reference is the oracle's stand-in here; a peer's honest twin is
    // not, except cross.py2's, whose consumer is a stand-in of its own.
    if (id == "bytes.match-cpython" || (c.role == NegativeControl::Role::Peer && !python2)) {
      continue;
    }
    if (!seen.insert(id).second) continue;
    Env e;
    Subject* subject = &e.reference;
    // A pair family needs a consumer that is not the producer.
    ReferenceSubject consumer;
    ReadsUpTo4 older;
    if (parse_pair_id(id)) subject = &consumer;
    if (id.rfind("protocol.negotiated/", 0) == 0) subject = &older;
    if (python2) subject = &test_support::honest_consumer(id, e);
    // callable.by-value's and cross.stdlib's honest twins run in the
    // embedded interpreter (negative_controls_python_test.cpp).
    if (id == kByValue || id == kClassLife || c.property == kStdlib) continue;
    const GateProperty* property = find_property(id);
    ASSERT_NE(property, nullptr) << id;
    CellRun v = run_cell(*property, *subject, e, 20261129);
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
  EXPECT_NE(find_negative_control("cross.stdlib/anything"), nullptr);
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
  for (const char* id :
       {"zerocopy.device", "protocol.negotiated", "wire.distributed", "wire.packed"}) {
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
