// Test support: the saved failing cases under corpus/failing replayed with a
// given set of subjects, as `serialcheck replay` does. Each must still fail
// the way its file records (a fixed case should be removed or promoted, a
// changed one re-examined); cases of subjects not in the set are skipped.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <iostream>
#include <string>
#include <vector>

#include "harness/corpus/corpus.h"
#include "harness/corpus/replay.h"

namespace serialcheck::test_support {

// Replays every case of the source tree's corpus/failing with `subjects`;
// skips the calling test when none of them could run. Needs
// SERIALCHECK_SOURCE_DIR.
inline void replay_failing_corpus(const std::vector<SubjectFactory>& subjects) {
  auto dir = std::filesystem::path(SERIALCHECK_SOURCE_DIR) / "corpus" / "failing";
  if (!std::filesystem::exists(dir)) GTEST_SKIP() << "no corpus/failing directory";
  auto files = list_cases({dir});
  if (files.empty()) GTEST_SKIP() << "corpus/failing holds no cases";
  int ran = 0;
  std::vector<std::string> skipped;
  // One worker for each subject's cases, one at a time (ctest runs other
  // tests beside this one).
  for (const ReplayResult& r : replay_files(files, subjects, 60, 1)) {
    if (r.verdict == ReplayVerdict::Skipped) {
      skipped.push_back(r.path.filename().string() + ": " + r.detail);
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

}  // namespace serialcheck::test_support
