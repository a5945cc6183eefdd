// Replaying saved cases: each case runs again in a forked worker (crashes
// and hangs reproduce as such), and its result is compared with what the
// file records. docs/cli.md defines the verdicts.
#pragma once

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

#include "harness/props/case.h"
#include "harness/props/runner.h"

namespace serialcheck {

enum class ReplayVerdict {
  StillFailing,  // fails with the recorded fingerprint
  Fixed,         // passes now
  Changed,       // fails another way, or the case no longer applies
  Skipped,       // the subject (or a subject the property needs) is not available here
  Invalid,       // the file cannot be read as a case
};

std::string replay_verdict_name(ReplayVerdict v);  // "still-failing", "fixed", ...

// True for the verdicts that make `serialcheck replay` exit 1.
bool replay_verdict_fails(ReplayVerdict v);

struct ReplayResult {
  std::filesystem::path path;
  ReplayVerdict verdict = ReplayVerdict::Invalid;
  std::string subject;
  std::string property;
  std::string recorded;  // the recorded fingerprint
  std::string observed;  // the fingerprint now ("" when it passed or was skipped)
  std::string detail;    // the message now, or why it was skipped or invalid
};

// One case, in a fresh worker of its own.
ReplayResult replay_file(const std::filesystem::path& path,
                         const std::vector<SubjectFactory>& factories, double timeout_s);

// Many cases: the cases of one subject run one after another in one worker,
// the subject made once (probe_cases), up to `jobs` workers at once. A case
// whose verdict there is not still-failing runs again alone in a fresh
// worker, as replay_file runs it, and that run decides: a verdict never
// depends on the cases that ran before it. `on_result` is called in `paths`
// order as the results become known; the results come back in that order.
std::vector<ReplayResult> replay_files(
    const std::vector<std::filesystem::path>& paths, const std::vector<SubjectFactory>& factories,
    double timeout_s, int jobs, const std::function<void(const ReplayResult&)>& on_result = {});

// One line per result: "fixed  corpus/failing/...json  (reference roundtrip.equal: ...)".
std::string format_replay(const ReplayResult& r);

}  // namespace serialcheck
