#include "harness/report/known_failures.h"

#include <fnmatch.h>

#include <algorithm>
#include <sstream>

namespace serialcheck {
namespace {

bool has_glob(std::string_view s) {
  return s.find_first_of("*?[") != std::string_view::npos;
}

// A one-line reason for a suggested entry: the failure message, shortened.
std::string suggested_reason(const CellResult& cell) {
  std::string reason = cell.message.empty() ? "TODO: explain" : cell.message;
  std::replace(reason.begin(), reason.end(), '\n', ' ');
  if (reason.size() > 120) reason = reason.substr(0, 117) + "...";
  return reason;
}

}  // namespace

bool glob_match(std::string_view pattern, std::string_view text) {
  return fnmatch(std::string(pattern).c_str(), std::string(text).c_str(), 0) == 0;
}

bool KnownFailure::exact() const {
  return !has_glob(subject) && !has_glob(property);
}

bool KnownFailure::matches(std::string_view s, std::string_view p) const {
  return glob_match(subject, s) && glob_match(property, p);
}

std::string KnownFailure::text() const {
  if (!raw.empty()) return raw;
  return subject + " " + property + " " + fingerprint + " " + reason;
}

std::vector<KnownFailure> parse_known_failures(std::string_view text) {
  std::vector<KnownFailure> out;
  std::istringstream in{std::string(text)};
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    std::string raw = line;
    // A comment is a whole line; a `#` inside an entry belongs to its reason
    // ("(upstream #123)").
    auto start = line.find_first_not_of(" \t");
    if (start == std::string::npos || line[start] == '#') continue;
    std::istringstream fields(line);
    KnownFailure k;
    k.line = number;
    k.raw = raw;
    if (!(fields >> k.subject)) continue;  // blank or comment-only line
    if (!(fields >> k.property >> k.fingerprint)) {
      throw KnownFailuresError("line " + std::to_string(number) +
                               ": expected SUBJECT PROPERTY FINGERPRINT REASON...");
    }
    std::getline(fields, k.reason);
    auto first = k.reason.find_first_not_of(" \t");
    auto last = k.reason.find_last_not_of(" \t\r");
    k.reason = first == std::string::npos ? "" : k.reason.substr(first, last - first + 1);
    if (k.reason.empty()) {
      throw KnownFailuresError("line " + std::to_string(number) +
                               ": an entry needs a reason after the fingerprint");
    }
    out.push_back(std::move(k));
  }
  return out;
}

Verdict listed_verdict(const std::vector<KnownFailure>& known, const CellResult& cell) {
  if (!cell.failed()) return cell.verdict;
  for (const auto& k : known) {
    if (k.matches(cell.subject, cell.property) && k.fingerprint == cell.fingerprint) {
      return Verdict::ExpectedFail;
    }
  }
  return Verdict::Fail;
}

void apply_known_failures(const std::vector<KnownFailure>& known, RunReport& report,
                          const ConfirmFailure& confirm, const JudgesEntry& judges) {
  std::vector<bool> used(known.size(), false);
  std::vector<std::vector<CellResult*>> matched(known.size());
  for (auto& cell : report.cells) {
    if (cell.verdict == Verdict::Skip) continue;
    bool failed = cell.verdict == Verdict::Fail || cell.verdict == Verdict::ExpectedFail;
    bool listed = false;
    for (std::size_t i = 0; i < known.size(); ++i) {
      if (!known[i].matches(cell.subject, cell.property)) continue;
      if (known[i].exact() || !judges || judges(known[i], cell)) matched[i].push_back(&cell);
      if (failed && known[i].fingerprint == cell.fingerprint) {
        if (!listed) cell.known_reason = known[i].reason;
        listed = true;
        used[i] = true;
      }
      // Looked past (run --look-past-known): the entry's failure showed.
      if (cell.passed_over.count(known[i].fingerprint) != 0) used[i] = true;
    }
    if (failed) {
      cell.verdict = listed ? Verdict::ExpectedFail : Verdict::Fail;
      if (!listed) {
        report.lines_to_add.push_back(cell.subject + " " + cell.property + " " + cell.fingerprint +
                                      " " + suggested_reason(cell));
      }
    }
  }
  // A listed failure this run's cases did not hit is still there when its
  // saved case still fails that way.
  for (std::size_t i = 0; i < known.size() && confirm; ++i) {
    if (used[i]) continue;
    for (CellResult* cell : matched[i]) {
      auto file = confirm(known[i], *cell);
      if (!file) continue;
      used[i] = true;
      if (cell->verdict == Verdict::Pass) {
        cell->verdict = Verdict::ExpectedFail;
        cell->fingerprint = known[i].fingerprint;
        cell->known_reason = known[i].reason;
        cell->message = "not hit by this run's cases; the saved case still fails this way";
        cell->case_file = *file;
      }
      break;
    }
  }
  for (std::size_t i = 0; i < known.size(); ++i) {
    if (used[i] || matched[i].empty()) continue;
    report.lines_to_remove.push_back(known[i].text());
    if (!known[i].exact()) continue;
    for (CellResult* cell : matched[i]) {
      if (cell->verdict != Verdict::Pass) continue;
      cell->verdict = Verdict::UnexpectedPass;
      cell->known_reason = known[i].reason;
    }
  }
}

}  // namespace serialcheck
