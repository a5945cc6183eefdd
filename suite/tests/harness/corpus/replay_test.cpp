// Replaying a saved case (harness/corpus/replay.h): the verdict follows the
// recorded fingerprint (still failing, changed, fixed, skipped, invalid).
#include "harness/corpus/replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>

#include "harness/corpus/corpus.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::make_case;
using test_support::misbehaving_factories;
using test_support::MisbehavingSubject;
using test_support::scratch_dir;

namespace fs = std::filesystem;

TEST(Replay, VerdictsFollowTheRecordedFingerprint) {
  auto dir = scratch_dir("gate-replay");
  auto factories = misbehaving_factories(MisbehavingSubject::Mode::Abort);
  auto write = [&](const std::string& subject, const std::string& fp, std::string_view value) {
    CaseRecord r;
    r.subject = subject;
    r.property = "roundtrip.equal";
    r.fingerprint = fp;
    r.test = make_case(value);
    return save_case(dir, r);
  };
  auto still = write("misbehaving", "crash:SIGABRT", R"({"list": [1, 2]})");
  auto changed = write("misbehaving", "timeout", R"({"list": [3, 4]})");
  auto fixed = write("reference", "mismatch:kind", R"({"list": [1, 2]})");
  auto absent = write("cloudpickle-9", "mismatch:kind", "null");
  std::ofstream(dir / "broken.json") << "{not json";
  EXPECT_EQ(replay_file(still, factories, 30).verdict, ReplayVerdict::StillFailing);
  auto r = replay_file(changed, factories, 30);
  EXPECT_EQ(r.verdict, ReplayVerdict::Changed);
  EXPECT_EQ(r.observed, "crash:SIGABRT");
  EXPECT_EQ(replay_file(fixed, factories, 30).verdict, ReplayVerdict::Fixed);
  EXPECT_EQ(replay_file(absent, factories, 30).verdict, ReplayVerdict::Skipped);
  EXPECT_EQ(replay_file(dir / "broken.json", factories, 30).verdict, ReplayVerdict::Invalid);
  EXPECT_TRUE(replay_verdict_fails(ReplayVerdict::Fixed));
  EXPECT_FALSE(replay_verdict_fails(ReplayVerdict::StillFailing));
  EXPECT_FALSE(replay_verdict_fails(ReplayVerdict::Skipped));
  fs::remove_all(dir);
}

}  // namespace
}  // namespace serialcheck
