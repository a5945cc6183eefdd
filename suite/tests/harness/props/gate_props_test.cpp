// The gate's properties (harness/props/gate_props.h) on the reference: the
// round trips and loads.pure pass on a fixed case, in band and out of band,
// and a property that needs cpython is skipped with the reason.
#include "harness/props/gate_props.h"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace serialcheck
