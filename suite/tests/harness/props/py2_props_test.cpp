// cross.py2 without Python: which pairs and choices apply (every other one
// is skipped with its reason), the reference decoder's reading of what the
// real CPython 2.7 wrote (corpus/python2) with each encoding, and the
// stand-ins' cells (the negative controls are in negative_controls_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "harness/props/gate_props.h"
#include "harness/subjects/mutant_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/negative_controls.h"
#include "suite/tests/support/python2_corpus.h"

namespace serialcheck {
namespace {

using test_support::Env;

const GateProperty& property(const std::string& id) {
  const GateProperty* p = find_property(id);
  EXPECT_NE(p, nullptr) << id;
  static GateProperty none;
  return p != nullptr ? *p : none;
}

std::string skip_reason(const std::string& id, Subject& consumer, Env& e) {
  return applicability(property(id), consumer, e.env).skip_reason;
}

TEST(Python2Cells, EveryChoiceIsACellOfItsOwn) {
  const std::vector<std::string> ids = pair_property_ids({"cpython-2.7"});
  for (const char* choice : {"ascii", "latin1", "bytes", "no-fix-imports", "write-fix-imports",
                             "write-no-fix-imports"}) {
    const std::string id = std::string("cross.py2/cpython-2.7@") + choice;
    EXPECT_NE(std::find(ids.begin(), ids.end(), id), ids.end()) << id;
    auto pair = parse_pair_id(id);
    ASSERT_TRUE(pair.has_value()) << id;
    EXPECT_EQ(pair->producer, "cpython-2.7");
    EXPECT_EQ(pair->choice, choice);
  }
  EXPECT_FALSE(parse_pair_id("cross.py2/cpython-2.7@utf-16").has_value());
  EXPECT_FALSE(parse_pair_id("cross.py2/cpython-2.7").has_value());
}

TEST(Python2Cells, ReadChoicesApplyFromPython2ToAPython3ThatTakesThem) {
  Env e;
  Subject& python2 = *e.python2;
  Subject& python3 = *e.python3;
  e.peers["another-python-2"] = make_python_stand_in(2, "another-python-2");
  EXPECT_EQ(skip_reason("cross.py2/python-2@latin1", python3, e), "");
  EXPECT_EQ(skip_reason("cross.py2/python-2@no-fix-imports", python3, e), "");
  // The reference reads Python 2's strs with every encoding, but imports
  // nothing that could fail.
  EXPECT_EQ(skip_reason("cross.py2/python-2@bytes", e.reference, e), "");
  EXPECT_NE(
      skip_reason("cross.py2/python-2@no-fix-imports", e.reference, e).find("imports nothing"),
      std::string::npos);
  // Python 3 to Python 3, Python 2 to Python 2: no choice to make.
  EXPECT_NE(skip_reason("cross.py2/reference@latin1", python3, e).find("what Python 2 writes"),
            std::string::npos);
  std::unique_ptr<Subject> other2 = make_python_stand_in(2, "another-python-2");
  EXPECT_NE(skip_reason("cross.py2/python-2@latin1", *other2, e).find("Python 2 too"),
            std::string::npos);
  EXPECT_NE(skip_reason("cross.py2/python-2@latin1", python2, e).find("own pickles"),
            std::string::npos);
  // A reader without the choices (an older testee, cloudpickle).
  class NoChoices : public ReferenceSubject {
   public:
    Capabilities capabilities() const override {
      Capabilities c = ReferenceSubject::capabilities();
      c.python2_choices = false;
      return c;
    }
  } no_choices;
  EXPECT_NE(skip_reason("cross.py2/python-2@ascii", no_choices, e).find("no python2_choices"),
            std::string::npos);
}

TEST(Python2Cells, WriteChoicesApplyFromAPython3ThatTakesThemToPython2) {
  Env e;
  EXPECT_EQ(skip_reason("cross.py2/reference@write-fix-imports", *e.python2, e), "");
  EXPECT_EQ(skip_reason("cross.py2/python-3@write-no-fix-imports", *e.python2, e), "");
  EXPECT_NE(skip_reason("cross.py2/reference@write-fix-imports", *e.python3, e)
                .find("for a Python 2 reader"),
            std::string::npos);
  e.peers["another-python-2"] = make_python_stand_in(2, "another-python-2");
  EXPECT_NE(skip_reason("cross.py2/another-python-2@write-fix-imports", *e.python2, e)
                .find("Python 2 too"),
            std::string::npos);
  EXPECT_NE(skip_reason("cross.py2/no-such-producer@write-fix-imports", *e.python2, e)
                .find("no-such-producer"),
            std::string::npos);
}

TEST(Python2Cells, ProtocolsAreThoseBelowThree) {
  Env e;
  Applicability a =
      applicability(property("cross.py2/reference@write-fix-imports"), *e.python2, e.env);
  ASSERT_EQ(a.skip_reason, "");
  EXPECT_EQ(a.plan.min_protocol, 0);
  EXPECT_EQ(a.plan.max_protocol, 2);
  EXPECT_FALSE(a.plan.out_of_band);
}

// What CPython 2.7 wrote, read by the reference with each encoding it
// takes: every pickle passes the choice's rule but one. 2.7 writes a
// bytearray as bytearray(u'...', 'latin-1'), whose 'latin-1' loads as bytes
// with encoding="bytes": a call the reference keeps as it is (it knows the
// form with a str encoding only) and Python 3 refuses
// (py2_props_python_test.cpp; docs/versions.md, "Python 2 and 3").
TEST(Python2Cells, TheReferenceReadsWhatPython27WroteWithEachEncoding) {
  auto corpus = test_support::load_python2_corpus();
  ASSERT_TRUE(corpus.has_value());
  ASSERT_FALSE(corpus->pickles.empty());
  Env e;
  e.peers["cpython-2.7"] = std::make_unique<test_support::Python2CorpusSubject>(*corpus);
  std::set<std::string> failed;
  for (const char* choice : {"ascii", "latin1", "bytes"}) {
    const GateProperty& p = property(std::string("cross.py2/cpython-2.7@") + choice);
    ASSERT_EQ(applicability(p, e.reference, e.env).skip_reason, "") << choice;
    int passed = 0;
    for (const auto& pickled : corpus->pickles) {
      Outcome o = check_case(p, e.reference, pickled.c, e.env);
      if (o.status == Outcome::Status::Pass) ++passed;
      if (!o.failed()) continue;
      failed.insert(std::string(choice) + " " + pickled.name);
      EXPECT_EQ(o.fingerprint, "mismatch:kind@loads/any->object") << o.message;
    }
    // Every pickle of the corpus is one 2.7 wrote: none is discarded.
    EXPECT_EQ(passed + (choice == std::string("bytes") ? 3 : 0),
              static_cast<int>(corpus->pickles.size()))
        << choice;
  }
  EXPECT_EQ(failed, (std::set<std::string>{"bytes bytearray"}));
}

// Every choice's cell passes between the honest stand-ins, on cases it
// checks (the controls' cells, negative_controls_test.cpp, fail).
TEST(Python2Cells, TheHonestStandInsPassEveryChoice) {
  for (const char* name : {"ascii", "latin1", "bytes", "no-fix-imports", "write-fix-imports",
                           "write-no-fix-imports"}) {
    const std::string choice = name;
    Env e;
    const bool write = choice.rfind("write-", 0) == 0;
    const std::string id =
        std::string("cross.py2/") + (write ? "python-3" : "python-2") + "@" + choice;
    Subject& consumer = write ? *e.python2 : *e.python3;
    test_support::CellRun v = test_support::run_cell(property(id), consumer, e, 20261129);
    EXPECT_FALSE(v.failure.has_value())
        << id << ": " << v.failure->fingerprint << ": " << v.failure->message;
    EXPECT_GE(v.ran, test_support::kCases / 2) << id;
  }
}

}  // namespace
}  // namespace serialcheck
