#include "harness/corpus/replay.h"

#include <algorithm>

#include "harness/corpus/corpus.h"

namespace serialcheck {

std::string replay_verdict_name(ReplayVerdict v) {
  switch (v) {
    case ReplayVerdict::StillFailing: return "still-failing";
    case ReplayVerdict::Fixed: return "fixed";
    case ReplayVerdict::Changed: return "changed";
    case ReplayVerdict::Skipped: return "skipped";
    case ReplayVerdict::Invalid: return "invalid";
  }
  return "unknown";
}

bool replay_verdict_fails(ReplayVerdict v) {
  return v == ReplayVerdict::Fixed || v == ReplayVerdict::Changed || v == ReplayVerdict::Invalid;
}

ReplayResult replay_file(const std::filesystem::path& path,
                         const std::vector<SubjectFactory>& factories, double timeout_s) {
  ReplayResult r;
  r.path = path;
  CaseRecord record;
  try {
    record = load_case(path);
  } catch (const std::exception& e) {
    r.verdict = ReplayVerdict::Invalid;
    r.detail = e.what();
    return r;
  }
  r.subject = record.subject;
  r.property = record.property;
  r.recorded = record.fingerprint;
  bool known = std::any_of(factories.begin(), factories.end(),
                           [&](const SubjectFactory& f) { return f.name == record.subject; });
  if (!known) {
    r.verdict = ReplayVerdict::Skipped;
    r.detail = "subject \"" + record.subject +
               "\" is not known here (external subjects come from subjects.json or --testee)";
    return r;
  }
  ProbeResult p = probe_case(factories, record.subject, record.property, record.test, timeout_s);
  switch (p.kind) {
    case ProbeResult::Kind::Skipped:
      r.verdict = ReplayVerdict::Skipped;
      r.detail = p.reason;
      return r;
    case ProbeResult::Kind::Crashed:
    case ProbeResult::Kind::TimedOut:
      r.observed = p.reason;
      r.detail = p.kind == ProbeResult::Kind::TimedOut ? "the case timed out" : "the worker died";
      break;
    case ProbeResult::Kind::Ran:
      if (p.outcome.status == Outcome::Status::Pass) {
        r.verdict = ReplayVerdict::Fixed;
        r.detail = "passes now";
        return r;
      }
      if (p.outcome.status == Outcome::Status::Discard) {
        r.verdict = ReplayVerdict::Changed;
        r.detail = "no longer a valid case: " + p.outcome.message;
        return r;
      }
      r.observed = p.outcome.fingerprint;
      r.detail = p.outcome.message;
      break;
  }
  r.verdict = r.observed == r.recorded ? ReplayVerdict::StillFailing : ReplayVerdict::Changed;
  return r;
}

std::string format_replay(const ReplayResult& r) {
  std::string line = replay_verdict_name(r.verdict);
  line.resize(std::max<std::size_t>(line.size(), 14), ' ');
  line += r.path.string();
  if (!r.subject.empty()) line += "  (" + r.subject + " " + r.property + ")";
  switch (r.verdict) {
    case ReplayVerdict::StillFailing: line += "\n    " + r.recorded; break;
    case ReplayVerdict::Changed:
      line += "\n    recorded " + r.recorded + ", now " +
              (r.observed.empty() ? std::string("-") : r.observed);
      break;
    default: break;
  }
  if (!r.detail.empty()) {
    std::string detail = r.detail;
    if (detail.size() > 300) detail = detail.substr(0, 297) + "...";
    line += "\n    " + detail;
  }
  return line;
}

}  // namespace serialcheck
