#include "harness/report/results.h"

#include <algorithm>

namespace serialcheck {

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Pass: return "pass";
    case Verdict::Fail: return "fail";
    case Verdict::ExpectedFail: return "expected-fail";
    case Verdict::UnexpectedPass: return "unexpected-pass";
    case Verdict::Skip: return "skip";
  }
  return "unknown";
}

int CellResult::discarded_cases() const {
  int total = 0;
  for (const auto& [reason, count] : discarded) total += count;
  return total;
}

std::string CellResult::discard_summary() const {
  std::string out;
  for (std::string_view reason : kDiscardReasons) {
    auto it = discarded.find(std::string(reason));
    if (it == discarded.end() || it->second == 0) continue;
    out += (out.empty() ? "" : ", ") + std::to_string(it->second) + " " + std::string(reason);
  }
  return out;
}

void Coverage::merge(const nlohmann::json& j) {
  if (!j.is_object()) return;
  if (j.contains("opcodes") && j["opcodes"].is_object()) {
    for (const auto& [name, protocols] : j["opcodes"].items()) {
      auto& seen = opcodes[name];
      for (const auto& p : protocols) {
        if (p.is_number_integer()) seen.insert(p.get<int>());
      }
    }
  }
  if (j.contains("header_keys") && j["header_keys"].is_array()) {
    for (const auto& k : j["header_keys"]) {
      if (k.is_string()) header_keys.insert(k.get<std::string>());
    }
  }
}

nlohmann::json Coverage::to_json() const {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [name, protocols] : opcodes) ops[name] = protocols;
  return {{"opcodes", std::move(ops)},
          {"header_keys", header_keys},
          {"missing", missing},
          {"enforced", enforced}};
}

std::map<std::string, int> RunReport::summary() const {
  std::map<std::string, int> counts;
  for (Verdict v : {Verdict::Pass, Verdict::Fail, Verdict::ExpectedFail, Verdict::UnexpectedPass,
                    Verdict::Skip}) {
    counts[verdict_name(v)] = 0;
  }
  for (const auto& c : cells) ++counts[verdict_name(c.verdict)];
  counts["not-run"] = cells_not_run();
  return counts;
}

int RunReport::cells_not_run() const {
  int n = 0;
  for (const auto& c : cells) n += c.not_run() ? 1 : 0;
  return n;
}

std::string RunReport::verdict_word() const {
  if (ok()) return "PASSED";
  bool failed = !lines_to_remove.empty() || (coverage.enforced && !coverage.missing.empty());
  for (const auto& c : cells) {
    failed = failed || c.verdict == Verdict::Fail || c.verdict == Verdict::UnexpectedPass;
  }
  return failed ? "FAILED" : "INCOMPLETE";
}

std::vector<std::string> RunReport::failure_reasons() const {
  std::vector<std::string> why;
  int failed = 0;
  int unexpected = 0;
  for (const auto& c : cells) {
    failed += c.verdict == Verdict::Fail ? 1 : 0;
    unexpected += c.verdict == Verdict::UnexpectedPass ? 1 : 0;
  }
  if (failed > 0) why.push_back(std::to_string(failed) + " unlisted failure(s)");
  if (unexpected > 0) why.push_back(std::to_string(unexpected) + " unexpected pass(es)");
  if (!lines_to_remove.empty()) {
    why.push_back(std::to_string(lines_to_remove.size()) + " stale known-failures line(s)");
  }
  if (coverage.enforced && !coverage.missing.empty()) {
    why.push_back(std::to_string(coverage.missing.size()) + " reference opcode(s) never emitted");
  }
  if (int missed = cells_not_run(); missed > 0) {
    why.push_back("only " + std::to_string(cells.size() - static_cast<std::size_t>(missed)) +
                  " of " + std::to_string(cells.size()) +
                  " cells ran: the time budget ran out before " + std::to_string(missed) +
                  " started");
  }
  return why;
}

bool RunReport::ok() const {
  for (const auto& c : cells) {
    if (c.verdict == Verdict::Fail || c.verdict == Verdict::UnexpectedPass) return false;
  }
  if (!lines_to_remove.empty()) return false;
  if (coverage.enforced && !coverage.missing.empty()) return false;
  return complete();
}

}  // namespace serialcheck
