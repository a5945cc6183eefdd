// Replays every saved failing case under corpus/failing: each must still fail
// the way its file records (a fixed case should be removed or promoted, a
// changed one re-examined). Cases of subjects this build or machine does not
// have are skipped with the reason.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>
#include <vector>

#include "harness/corpus/corpus.h"
#include "harness/corpus/replay.h"
#include "harness/subjects/reference_subject.h"

#ifdef SERIALCHECK_HAVE_PYTHON
#include "harness/subjects/python_subjects.h"
#endif

namespace serialcheck {
namespace {

// The same subjects as `serialcheck`; Python starts only in the workers.
std::vector<SubjectFactory> factories() {
  std::vector<SubjectFactory> out;
  out.push_back({"reference", [] { return std::make_unique<ReferenceSubject>(); }});
#ifdef SERIALCHECK_HAVE_PYTHON
  for (const auto& s : make_python_subjects()) {
    std::string name = s->name();
    out.push_back({name, [name]() -> std::unique_ptr<Subject> {
                     for (auto& made : make_python_subjects()) {
                       if (made->name() == name) return std::move(made);
                     }
                     return nullptr;
                   }});
  }
#endif
  return out;
}

TEST(CorpusReplay, EverySavedCaseStillFailsAsRecorded) {
  auto dir = std::filesystem::path(SERIALCHECK_SOURCE_DIR) / "corpus" / "failing";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no corpus/failing directory";
  auto files = list_cases({dir});
  if (files.empty()) GTEST_SKIP() << "corpus/failing holds no cases";
  auto subjects = factories();
  int ran = 0;
  std::vector<std::string> skipped;
  for (const auto& f : files) {
    ReplayResult r = replay_file(f, subjects, 60);
    if (r.verdict == ReplayVerdict::Skipped) {
      skipped.push_back(f.filename().string() + ": " + r.detail);
      continue;
    }
    ++ran;
    EXPECT_FALSE(replay_verdict_fails(r.verdict)) << format_replay(r);
  }
  for (const auto& s : skipped) std::cout << "skipped " << s << "\n";
  if (ran == 0) {
    GTEST_SKIP() << skipped.size()
                 << " cases skipped, none could run here; first: " << skipped.front();
  }
}

}  // namespace
}  // namespace serialcheck
