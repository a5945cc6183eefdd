// Replays every saved failing case under corpus/failing with the reference
// (the cases of the Python subjects replay in serialcheck_python_tests,
// corpus_replay_python_test.cpp). Cases of other subjects are skipped with
// the reason.
#include <gtest/gtest.h>

#include <memory>
#include <vector>

#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/replay.h"

namespace serialcheck {
namespace {

TEST(CorpusReplay, EverySavedCaseStillFailsAsRecorded) {
  test_support::replay_failing_corpus(
      {{"reference", [] { return std::make_unique<ReferenceSubject>(); }}});
}

}  // namespace
}  // namespace serialcheck
