// What one load records beside a value (the memory supplied for an
// out-of-band buffer, which strs were the interned names of globals) stays
// with the load: bytes.match hands a subject the oracle's pickle as the
// reference reads it, and that value must carry neither mark, since a
// testee's JSON reader need not know them.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "harness/props/case.h"
#include "harness/props/gate_props.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/python_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "harness/subjects/subject.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/python_test.h"

namespace serialcheck {
namespace {

// A subject that refuses, as a testee whose JSON reader does not know them
// would, a value holding either mark.
class RefusesLoadMarks : public ReferenceSubject {
 public:
  std::string name() const override { return "refuses-load-marks"; }
  Message dumps(const Node* value, const DumpOptions& options) override {
    const std::string json = to_json(value);
    for (const char* mark : {"supplied-readonly", "interned"}) {
      if (json.find(mark) != std::string::npos) {
        throw SubjectError("testee-protocol", std::string("member '") + mark + "' is not allowed");
      }
    }
    return ReferenceSubject::dumps(value, options);
  }
};

using LoadMarks = test_support::PythonTest;

TEST_F(LoadMarks, BytesMatchHandsTheSubjectTheValueWithoutThem) {
  RefusesLoadMarks subject;
  test_support::BytesMatchCpython bytes_match;
  ASSERT_NE(bytes_match.property, nullptr);
  // A set, so that the subject is given the value as the reference reads
  // the oracle's pickle; a buffer sent out of band, so that the read records
  // the memory it was supplied; a str that is also a global's module name.
  TestCase c;
  c.graph = std::make_shared<Graph>();
  Graph& g = *c.graph;
  c.value = g.list({g.set({g.str("a1"), g.str("b2")}), g.pickle_buffer("xy", false),
                    g.str("collections"), g.global("collections", "OrderedDict")});
  c.protocol = 5;
  c.out_of_band = true;
  Outcome o = bytes_match.check(c, &subject);
  EXPECT_EQ(o.status, Outcome::Status::Pass) << o.fingerprint << ": " << o.message;

  // Negative control: the same value with both marks, given directly, is
  // refused, so the pass above means the marks were dropped.
  Node* marked = g.list({g.str("collections"), g.pickle_buffer("xy", false)});
  marked->items[0]->flag = true;
  marked->items[1]->supplied = Supplied::ReadOnly;
  EXPECT_THROW(subject.dumps(marked, DumpOptions{}), SubjectError);
}

}  // namespace
}  // namespace serialcheck
