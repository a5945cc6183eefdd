// callable.by-value's negative control, and its honest twin, in the embedded
// interpreter, where the property defines, dumps and calls the functions it
// draws (the other controls: negative_controls_test.cpp).
#include <gtest/gtest.h>

#include <vector>

#include "harness/props/gate_props.h"
#include "harness/python/byvalue.h"
#include "harness/subjects/mutant_subjects.h"
#include "suite/tests/support/negative_controls.h"

namespace serialcheck {
namespace {

constexpr std::string_view kByValue = "callable.by-value";

std::vector<NegativeControl> by_value_controls() {
  std::vector<NegativeControl> out;
  for (const NegativeControl& c : negative_controls()) {
    if (c.property == kByValue) out.push_back(c);
  }
  return out;
}

class NegativeControls : public ::testing::TestWithParam<NegativeControl> {
 protected:
  void SetUp() override { python::install_by_value_runner(); }
};

TEST_P(NegativeControls, ThePropertyFailsOnItsControl) {
  test_support::expect_fails_on_control(GetParam());
}

INSTANTIATE_TEST_SUITE_P(ByValue, NegativeControls, ::testing::ValuesIn(by_value_controls()),
                         test_support::control_test_name);

// The same cell passes on the honest twin: the reference with cloudpickle's
// by-value pickler, so the control's failure is its bug's.
TEST(NegativeControlsHonest, CallableByValuePassesWithCloudpickle) {
  python::install_by_value_runner();
  test_support::Env e;
  test_support::CloudpickleStandIn by_value;
  const GateProperty* property = find_property(std::string(kByValue));
  ASSERT_NE(property, nullptr);
  test_support::CellRun v = test_support::run_cell(*property, by_value, e, 20261129);
  EXPECT_FALSE(v.failure.has_value()) << v.failure->fingerprint << ": " << v.failure->message;
}

}  // namespace
}  // namespace serialcheck
