// Replaying saved cases: each case runs again, in a fresh forked worker
// (crashes and hangs reproduce as such), and its result is compared with
// what the file records. docs/cli.md defines the verdicts.
#pragma once

#include <filesystem>
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

ReplayResult replay_file(const std::filesystem::path& path,
                         const std::vector<SubjectFactory>& factories, double timeout_s);

// One line per result: "fixed  corpus/failing/...json  (reference roundtrip.equal: ...)".
std::string format_replay(const ReplayResult& r);

}  // namespace serialcheck
