#include "harness/corpus/replay.h"

#include <algorithm>
#include <optional>

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

namespace {

// The case file read, and the verdict that needs no run (invalid, or a
// subject this build does not know); nullopt when the case must run.
std::optional<ReplayResult> before_running(const std::filesystem::path& path,
                                           const std::vector<SubjectFactory>& factories,
                                           CaseRecord& record, ReplayResult& r) {
  r.path = path;
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
  return std::nullopt;
}

// The verdict of a run against the record `r` holds.
ReplayResult judge(ReplayResult r, const ProbeResult& p) {
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

}  // namespace

ReplayResult replay_file(const std::filesystem::path& path,
                         const std::vector<SubjectFactory>& factories, double timeout_s) {
  ReplayResult r;
  CaseRecord record;
  if (auto done = before_running(path, factories, record, r)) return *done;
  return judge(r, probe_case(factories, record.subject, record.property, record.test, timeout_s,
                             record.fingerprint));
}

std::vector<ReplayResult> replay_files(const std::vector<std::filesystem::path>& paths,
                                       const std::vector<SubjectFactory>& factories,
                                       double timeout_s, int jobs,
                                       const std::function<void(const ReplayResult&)>& on_result) {
  std::vector<ReplayResult> results(paths.size());
  std::vector<CaseRecord> records(paths.size());
  std::vector<bool> known(paths.size(), false);
  std::vector<ProbeRequest> requests;
  std::vector<std::size_t> request_of_path(paths.size(), 0);
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (auto done = before_running(paths[i], factories, records[i], results[i])) {
      results[i] = *done;
      known[i] = true;
      continue;
    }
    request_of_path[i] = requests.size();
    requests.push_back(
        {records[i].subject, records[i].property, &records[i].test, records[i].fingerprint});
  }
  std::vector<std::size_t> path_of_request(requests.size());
  for (std::size_t i = 0; i < paths.size(); ++i) {
    if (!known[i]) path_of_request[request_of_path[i]] = i;
  }
  // Results go out in path order: each as soon as every one before it is known.
  std::size_t reported = 0;
  auto report_ready = [&] {
    while (reported < paths.size() && known[reported]) {
      if (on_result) on_result(results[reported]);
      ++reported;
    }
  };
  report_ready();
  probe_cases(factories, requests, timeout_s, jobs, [&](std::size_t k, const ProbeResult& p) {
    const std::size_t i = path_of_request[k];
    results[i] = judge(results[i], p);
    if (results[i].verdict != ReplayVerdict::StillFailing &&
        results[i].verdict != ReplayVerdict::Skipped) {
      // Alone in a fresh worker, as replay_file runs it: what ran before
      // it in the shared worker cannot have made the difference.
      ReplayResult alone = results[i];
      alone.verdict = ReplayVerdict::Invalid;
      alone.observed.clear();
      alone.detail.clear();
      results[i] = judge(alone, probe_case(factories, records[i].subject, records[i].property,
                                           records[i].test, timeout_s, records[i].fingerprint));
    }
    known[i] = true;
    report_ready();
  });
  return results;
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
