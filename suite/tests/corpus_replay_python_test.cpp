// Replays every saved failing case under corpus/failing with the same
// subjects as `serialcheck`: the reference and the embedded Python subjects
// (Python starts only in the workers). Cases of subjects this machine does
// not have are skipped with the reason.
#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <vector>

#include "harness/subjects/python_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/replay.h"

namespace serialcheck {
namespace {

std::vector<SubjectFactory> factories() {
  std::vector<SubjectFactory> out;
  out.push_back({"reference", [] { return std::make_unique<ReferenceSubject>(); }});
  for (const auto& s : make_python_subjects()) {
    std::string name = s->name();
    out.push_back({name, [name]() -> std::unique_ptr<Subject> {
                     for (auto& made : make_python_subjects()) {
                       if (made->name() == name) return std::move(made);
                     }
                     return nullptr;
                   }});
  }
  return out;
}

TEST(CorpusReplayPython, EverySavedCaseStillFailsAsRecorded) {
  test_support::replay_failing_corpus(factories());
}

}  // namespace
}  // namespace serialcheck
