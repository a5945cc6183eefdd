#include "harness/report/json_report.h"

#include "harness/report/version_matrix.h"
#include "harness/subjects/mutant_subjects.h"

namespace serialcheck {
namespace {

nlohmann::json cell_to_json(const CellResult& c) {
  nlohmann::json j = {{"subject", c.subject},
                      {"property", c.property},
                      {"verdict", verdict_name(c.verdict)},
                      {"cases", c.cases},
                      {"seconds", c.seconds}};
  // Every reason, so that a reader sees a cell's 0 as well as its 90.
  nlohmann::json discarded = nlohmann::json::object();
  for (std::string_view reason : kDiscardReasons) discarded[std::string(reason)] = 0;
  for (const auto& [reason, count] : c.discarded) discarded[reason] = count;
  j["discarded"] = std::move(discarded);
  if (!c.passed_over.empty()) j["passed_over"] = c.passed_over;
  // Where the cell's seconds went (docs/perf.md, "Where a case's time goes").
  if (!c.phases.empty()) {
    nlohmann::json time = nlohmann::json::object();
    for (const auto& [phase, spent] : c.phases) time[phase] = spent;
    j["time"] = std::move(time);
  }
  if (c.verdict == Verdict::Skip) j["skip_reason"] = c.skip_reason;
  if (!c.fingerprint.empty()) j["fingerprint"] = c.fingerprint;
  if (!c.message.empty()) j["message"] = c.message;
  if (!c.explanation.empty()) j["explanation"] = c.explanation;
  if (!c.minimal_case.is_null()) j["case"] = c.minimal_case;
  if (!c.failing_message.is_null()) j["failing_message"] = c.failing_message;
  if (!c.case_file.empty()) {
    j["case_file"] = c.case_file;
    j["replay"] = "serialcheck replay " + c.case_file;
  }
  if (!c.known_reason.empty()) j["known_reason"] = c.known_reason;
  // The broken subject the property was proven to fail on (docs/conformance.md).
  if (auto control = negative_control_for(c.property); !control.empty()) {
    j["negative_control"] = std::move(control);
  }
  return j;
}

}  // namespace

nlohmann::json report_to_json(const RunReport& report) {
  nlohmann::json cells = nlohmann::json::array();
  for (const auto& c : report.cells) cells.push_back(cell_to_json(c));
  nlohmann::json j = {
      {"tool", "serialcheck"},
      {"version", report.version},
      {"seed", report.seed},
      {"cases", report.cases},
      {"max_size", report.max_size},
      {"shard", {{"index", report.shard_index}, {"count", report.shard_count}}},
      {"seconds", report.seconds},
      {"subjects", report.subjects},
      {"properties", report.properties},
      // Which CPython each subject is, and where that was learned
      // (version_matrix.h); the version matrix's rows and columns, or null.
      {"python_versions", python_versions_json(report)},
      {"version_matrix", version_matrix_json(report)},
      {"cells", std::move(cells)},
      {"coverage", report.coverage.to_json()},
      {"known_failures",
       {{"file", report.known_failures_file},
        {"add", report.lines_to_add},
        {"remove", report.lines_to_remove}}},
      {"summary", report.summary()},
      {"repeat", report.repeat_command},
      {"ok", report.ok()},
      // "passed", "failed" or "incomplete"; a partial run is never ok.
      {"verdict", [&] {
         std::string w = report.verdict_word();
         for (char& ch : w) ch = static_cast<char>(ch - 'A' + 'a');
         return w;
       }()},
      {"complete", report.complete()},
      {"cells_run", report.cells.size() - static_cast<std::size_t>(report.cells_not_run())},
      {"cells_planned", report.cells.size()},
  };
  return j;
}

}  // namespace serialcheck
