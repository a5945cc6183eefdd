// Replaying a saved case (harness/corpus/replay.h): the verdict follows the
// recorded fingerprint (still failing, changed, fixed, skipped, invalid).
#include "harness/corpus/replay.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

#include "harness/subjects/reference_subject.h"

#include "harness/corpus/corpus.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::make_case;
using test_support::misbehaving_factories;
using test_support::MisbehavingSubject;
using test_support::scratch_dir;

namespace fs = std::filesystem;

// A roundtrip.equal case of `subject` saved under `dir`, recorded as
// failing with `fingerprint`.
fs::path write_case(const fs::path& dir, const std::string& subject,
                    const std::string& fingerprint, std::string_view value) {
  CaseRecord r;
  r.subject = subject;
  r.property = "roundtrip.equal";
  r.fingerprint = fingerprint;
  r.test = make_case(value);
  return save_case(dir, r);
}

TEST(Replay, VerdictsFollowTheRecordedFingerprint) {
  auto dir = scratch_dir("gate-replay");
  auto factories = misbehaving_factories(MisbehavingSubject::Mode::Abort);
  auto write = [&](const std::string& subject, const std::string& fp, std::string_view value) {
    return write_case(dir, subject, fp, value);
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

// The same cases through replay_files, in shared workers, two at once:
// the same verdicts in the same order.
TEST(Replay, ManyCasesGetTheVerdictsEachGetsAlone) {
  auto dir = scratch_dir("gate-replay-many");
  auto factories = misbehaving_factories(MisbehavingSubject::Mode::Abort);
  auto write = [&](const std::string& subject, const std::string& fp, std::string_view value) {
    return write_case(dir, subject, fp, value);
  };
  std::vector<fs::path> paths = {
      write("misbehaving", "crash:SIGABRT", R"({"list": [1, 2]})"),
      write("misbehaving", "timeout", R"({"list": [3, 4]})"),
      write("reference", "mismatch:kind", R"({"list": [1, 2]})"),
      write("misbehaving", "crash:SIGABRT", R"({"list": [5, 6, 7]})"),
      write("misbehaving", "mismatch:kind", R"({"list": [8]})"),
      write("cloudpickle-9", "mismatch:kind", "null"),
      dir / "broken.json",
      write("reference", "mismatch:kind", R"({"list": []})"),
  };
  std::ofstream(dir / "broken.json") << "{not json";
  std::vector<ReplayResult> streamed;
  auto results = replay_files(paths, factories, 30, 2,
                              [&](const ReplayResult& r) { streamed.push_back(r); });
  ASSERT_EQ(results.size(), paths.size());
  ASSERT_EQ(streamed.size(), paths.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const ReplayResult alone = replay_file(paths[i], factories, 30);
    EXPECT_EQ(results[i].path, paths[i]);
    EXPECT_EQ(streamed[i].path, paths[i]) << "reported in the order given";
    EXPECT_EQ(results[i].verdict, alone.verdict) << paths[i] << ": " << results[i].detail;
    EXPECT_EQ(results[i].observed, alone.observed) << paths[i];
  }
  EXPECT_EQ(results[0].verdict, ReplayVerdict::StillFailing);
  EXPECT_EQ(results[1].verdict, ReplayVerdict::Changed);
  EXPECT_EQ(results[4].verdict, ReplayVerdict::Fixed);
  EXPECT_EQ(results[6].verdict, ReplayVerdict::Invalid);
  fs::remove_all(dir);
}

// A subject that loads its first value right and every later one in the
// same process as None: only state that one case leaves for the next can
// make it fail.
class ForgetfulSubject : public ReferenceSubject {
 public:
  std::string name() const override { return "forgetful"; }
  Node* loads(const Message& message, Graph& graph, const LoadOptions& options) override {
    if (++loads_ > 1) {
      graph.root = graph.none();
      return graph.root;
    }
    return ReferenceSubject::loads(message, graph, options);
  }

 private:
  int loads_ = 0;
};

// In a shared worker the second case fails only because of the first: run
// again alone, it passes, and that is its verdict (fixed), as replay_file
// says. The control: the shared worker's own answer for it is a failure.
TEST(Replay, ACaseThatDiffersInASharedWorkerIsJudgedAlone) {
  auto dir = scratch_dir("gate-replay-alone");
  std::vector<SubjectFactory> factories = {
      {"reference", [] { return std::make_unique<ReferenceSubject>(); }},
      {"forgetful", [] { return std::make_unique<ForgetfulSubject>(); }}};
  auto write = [&](std::string_view value) {
    return write_case(dir, "forgetful", "crash:SIGSEGV", value);
  };
  std::vector<fs::path> paths = {write("1"), write(R"({"list": [2]})")};
  auto results = replay_files(paths, factories, 30, 1);
  ASSERT_EQ(results.size(), 2u);
  for (const auto& r : results) EXPECT_EQ(r.verdict, ReplayVerdict::Fixed) << r.path << r.detail;

  CaseRecord first = load_case(paths[0]);
  CaseRecord second = load_case(paths[1]);
  auto shared = probe_cases(factories,
                            {{"forgetful", "roundtrip.equal", &first.test},
                             {"forgetful", "roundtrip.equal", &second.test}},
                            30, 1);
  ASSERT_EQ(shared.size(), 2u);
  EXPECT_EQ(shared[0].kind, ProbeResult::Kind::Ran);
  EXPECT_EQ(shared[0].outcome.status, Outcome::Status::Pass);
  EXPECT_TRUE(shared[1].outcome.failed()) << "one worker: the second load is the forgetful one";
  fs::remove_all(dir);
}

}  // namespace
}  // namespace serialcheck
