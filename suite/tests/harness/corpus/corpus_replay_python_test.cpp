// Replays every saved failing case under corpus/failing with the same
// subjects as `serialcheck`: the reference and the embedded Python subjects
// (Python starts only in the workers). Cases of subjects this machine does
// not have are skipped with the reason.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include <Python.h>

#include "harness/subjects/python_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/python_test.h"
#include "suite/tests/support/replay.h"

namespace serialcheck {
namespace {

std::vector<SubjectFactory> factories() {
  std::vector<SubjectFactory> out;
  out.push_back({"reference", [] { return std::make_unique<ReferenceSubject>(); }});
  for (auto& factory : python_subject_factories()) out.push_back(std::move(factory));
  return out;
}

TEST(CorpusReplayPython, EverySavedCaseStillFailsAsRecorded) {
  // The replay's workers are forks of this process. After an earlier test
  // here imported dill, which adds to pure-Python pickle's dispatch table,
  // a saved cpython-py case would load in a changed pickle and could pass.
  // ctest runs this test in a process of its own, where that cannot happen.
  if (Py_IsInitialized() && test_support::python_truth("'dill' in __import__('sys').modules")) {
    GTEST_SKIP() << "an earlier test in this process imported dill, which changes pure-Python "
                    "pickle in the forked workers; run this test alone (ctest does)";
  }
  test_support::replay_failing_corpus(factories());
}

}  // namespace
}  // namespace serialcheck
