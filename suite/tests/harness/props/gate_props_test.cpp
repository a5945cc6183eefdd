// The gate's properties (harness/props/gate_props.h) on the reference: the
// round trips and loads.pure pass on a fixed case, in band and out of band,
// and a property that needs cpython is skipped with the reason.
#include "harness/props/gate_props.h"

#include <gtest/gtest.h>

#include <iostream>
#include <map>
#include <set>

#include "harness/props/value_tools.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::make_case;

TEST(GateProperties, AllPassOnTheReferenceForFixedCases) {
  ReferenceSubject subject;
  ReferenceSubject helper;
  PropertyEnv env = test_support::env_with({{"reference", &helper}});
  TestCase c = make_case(R"({"list": [{"id": 1, "list": [{"ref": 1}, "a"]}, {"ref": 1},
                             {"buffer": "0102", "readonly": false}]})",
                         5);
  for (bool oob : {false, true}) {
    c.out_of_band = oob;
    for (const char* id : {"roundtrip.equal", "roundtrip.identity", "loads.pure"}) {
      Outcome o = check_case(*find_property(id), subject, c, env);
      EXPECT_EQ(o.status, Outcome::Status::Pass) << id << ": " << o.fingerprint << " " << o.message;
    }
  }
  c.max_protocol = 3;
  Outcome o = check_case(*find_property("protocol.mismatch"), subject, c, env);
  EXPECT_EQ(o.status, Outcome::Status::Pass) << o.message;
  // Without cpython, the properties that need it are skipped with a reason.
  auto a = find_property("bytes.match-cpython")->applies(subject, env);
  EXPECT_NE(a.skip_reason.find("cpython"), std::string::npos);
}

// A subject whose interpreter has neither numpy nor torch: its kinds leave
// out ndarray and tensor, as the Python adapter's hello does there.
class WithoutNumpy : public ReferenceSubject {
 public:
  std::string name() const override { return "without-numpy"; }
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.kinds = {"none", "bool",  "int",  "float", "str",       "bytes", "bytearray",
               "list", "tuple", "dict", "set",   "frozenset", "global"};
    return c;
  }
};

// How many of `n` cases of the plan hold each kind at least once; a tensor
// with a grad counts under kTensorWithGrad.
constexpr int kTensorWithGrad = -1;
std::map<int, int> cases_holding(const CasePlan& plan, int n) {
  rc::Gen<TestCase> gen = case_generator(plan);
  rc::Random random(20261129);
  std::map<int, int> count;
  for (int i = 0; i < n; ++i) {
    TestCase c = gen(random.split(), i % 101).value();
    std::set<int> seen;
    for (const Node* node : reachable(c.value)) {
      seen.insert(static_cast<int>(node->kind));
      if (node->kind == Kind::Tensor && node->array() && node->array()->grad) {
        seen.insert(kTensorWithGrad);
      }
    }
    for (int k : seen) ++count[k];
  }
  return count;
}

// The properties that compare with CPython draw arrays and tensors where
// every subject of the cell takes them (docs/conformance.md, "Arrays and
// tensors against CPython"), tensors never with a grad, and no tensors
// where bytes are compared.
TEST(GateProperties, ArraysAndTensorsWhereEverySubjectTakesThem) {
  ReferenceSubject reference;
  ReferenceSubject oracle;
  WithoutNumpy lean;
  PropertyEnv env = test_support::env_with({{"reference", &reference}, {"cpython", &oracle}});
  constexpr int kCases = 400;
  const int ndarray = static_cast<int>(Kind::NDArray);
  const int tensor = static_cast<int>(Kind::Tensor);

  Applicability load = applicability(*find_property("cross.load"), reference, env);
  ASSERT_EQ(load.skip_reason, "");
  EXPECT_TRUE(load.plan.ndarrays && load.plan.tensors);
  std::map<int, int> drawn = cases_holding(load.plan, kCases);
  EXPECT_GT(drawn[ndarray], kCases / 20);
  EXPECT_GT(drawn[tensor], kCases / 20);
  EXPECT_EQ(drawn[kTensorWithGrad], 0);
  std::cout << "cross.load: " << drawn[ndarray] << " of " << kCases << " cases hold an array, "
            << drawn[tensor] << " a tensor\n";

  for (const char* id : {"bytes.match-cpython", "bytes.reencode"}) {
    Applicability bytes = applicability(*find_property(id), reference, env);
    ASSERT_EQ(bytes.skip_reason, "") << id;
    EXPECT_TRUE(bytes.plan.ndarrays) << id;
    EXPECT_FALSE(bytes.plan.tensors) << id;
    drawn = cases_holding(bytes.plan, kCases);
    EXPECT_GT(drawn[ndarray], kCases / 20) << id;
    EXPECT_EQ(drawn[tensor], 0) << id;
    std::cout << id << ": " << drawn[ndarray] << " of " << kCases << " cases hold an array\n";
  }

  // A subject without numpy and torch gets builtin values, as consumer and
  // as producer.
  for (const char* id : {"cross.load", "cross.matrix/reference"}) {
    Applicability a = applicability(*find_property(id), lean, env);
    ASSERT_EQ(a.skip_reason, "") << id;
    EXPECT_FALSE(a.plan.ndarrays || a.plan.tensors) << id;
    drawn = cases_holding(a.plan, kCases);
    EXPECT_EQ(drawn[ndarray] + drawn[tensor], 0) << id;
  }
  env = test_support::env_with(
      {{"reference", &reference}, {"cpython", &oracle}, {"without-numpy", &lean}});
  Applicability from_lean =
      applicability(*find_property("cross.matrix/without-numpy"), reference, env);
  ASSERT_EQ(from_lean.skip_reason, "");
  EXPECT_FALSE(from_lean.plan.ndarrays || from_lean.plan.tensors);
  Applicability both = applicability(*find_property("cross.matrix/cpython"), reference, env);
  ASSERT_EQ(both.skip_reason, "");
  EXPECT_TRUE(both.plan.ndarrays && both.plan.tensors);
}

}  // namespace
}  // namespace serialcheck
