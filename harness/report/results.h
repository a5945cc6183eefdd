// The results of one gate run: a verdict per (subject, property) cell, the
// opcode coverage of the reference encoder, and the known-failures
// bookkeeping. The runner fills it, known_failures.h judges it, and the
// writers (json_report.h, markdown_report.h, junit_report.h) print it.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace serialcheck {

enum class Verdict {
  Pass,
  Fail,            // a failure the known-failures file does not list
  ExpectedFail,    // listed with the same fingerprint
  UnexpectedPass,  // listed by exact subject and property, but passed
  Skip,            // capability missing, subject unavailable, time budget
};

std::string verdict_name(Verdict v);  // "pass", "fail", "expected-fail", ...

// How the skip reason of a cell the time budget kept from running starts
// (the runner writes it; the reports count such cells as not run).
inline constexpr std::string_view kTimeBudgetSkip = "the time budget of ";

// Why a case was discarded, neither passed nor failed (the keys of
// CellResult::discarded): the cell's subject answered "unsupported" (an
// external testee's `unsupported` answer, docs/testee-protocol.md), the
// value holds a kind the subject's capabilities do not list, or the
// property's own reason (a helper subject such as the reference or cpython
// cannot do its part, the value is outside the property's domain).
inline constexpr std::string_view kDiscardUnsupported = "unsupported";
inline constexpr std::string_view kDiscardInexpressible = "inexpressible";
inline constexpr std::string_view kDiscardProperty = "property";
inline constexpr std::array<std::string_view, 3> kDiscardReasons = {
    kDiscardUnsupported, kDiscardInexpressible, kDiscardProperty};

struct CellResult {
  std::string subject;
  std::string property;
  Verdict verdict = Verdict::Pass;
  int cases = 0;  // cases checked (including the failing one); discarded ones are not counted
  // Cases discarded while the cell ran (before any failure), by reason
  // (kDiscardReasons); a reason with none is absent.
  std::map<std::string, int> discarded;
  // With `run --look-past-known`: the cases that failed only with a
  // fingerprint the known-failures file lists for the cell, by fingerprint.
  // They count among `cases`; the cell went on drawing past them.
  std::map<std::string, int> passed_over;
  double seconds = 0;
  // Where the worker spent the cell's time, by phase (kPhaseNames of
  // harness/subjects/phase_clock.h, and "other": the worker's time for the
  // cell that no phase took); empty when the worker sent none (a crash, a
  // cell skipped before it started). Measured in the worker, so their sum
  // can differ from `seconds`, the runner's, by the pipe's latency.
  std::map<std::string, double> phases;
  std::string skip_reason;

  // When the cell failed (verdict Fail or ExpectedFail):
  std::string fingerprint;
  std::string message;
  std::string explanation;
  nlohmann::json minimal_case;     // {"value", "protocol", "options"}, or null
  nlohmann::json failing_message;  // {"header", "frames"}, or null
  std::string case_file;           // where the case was saved ("" when not saved)
  std::string known_reason;        // the known-failures reason, for ExpectedFail

  bool failed() const { return verdict == Verdict::Fail || verdict == Verdict::ExpectedFail; }
  int discarded_cases() const;
  // "90 unsupported, 3 property" in kDiscardReasons order; "" when none.
  std::string discard_summary() const;
  // Skipped because the time budget ran out: not checked at all.
  bool not_run() const {
    return verdict == Verdict::Skip && skip_reason.rfind(kTimeBudgetSkip, 0) == 0;
  }
};

// Opcodes the reference encoder emitted, by the protocol it was asked for,
// and the message header keys it wrote.
struct Coverage {
  std::map<std::string, std::set<int>> opcodes;  // opcode name -> protocols
  std::set<std::string> header_keys;
  std::vector<std::string> missing;  // emittable opcodes never seen
  bool enforced = false;             // missing opcodes fail the run

  void merge(const nlohmann::json& j);  // the worker's {"opcodes", "header_keys"}
  nlohmann::json to_json() const;
};

struct RunReport {
  std::string version;
  std::uint64_t seed = 0;
  int cases = 0;
  int max_size = 0;
  int shard_index = 0;
  int shard_count = 1;
  double seconds = 0;
  std::vector<std::string> subjects;
  std::vector<std::string> properties;
  // Which CPython each subject is (its Capabilities::python_version,
  // "3.7.16"), where the run knows it without starting the subject; the
  // version matrix falls back on the subject's name (version_matrix.h).
  std::map<std::string, std::string> python_versions;
  std::vector<CellResult> cells;
  Coverage coverage;
  std::string known_failures_file;
  std::vector<std::string> lines_to_add;     // known-failures lines for new failures
  std::vector<std::string> lines_to_remove;  // stale entries and unexpected passes
  std::string repeat_command;                // how to repeat this run

  // Counts per verdict name, and "not-run" (the skips of not_run() cells,
  // which "skip" counts too).
  std::map<std::string, int> summary() const;
  // Cells the time budget kept from running.
  int cells_not_run() const;
  // Every planned cell ran (or was skipped for a capability, not for time).
  bool complete() const { return cells_not_run() == 0; }
  // True when nothing fails the gate and the run was complete: a partial run
  // is never a pass.
  bool ok() const;
  // "PASSED", "FAILED", or "INCOMPLETE" (nothing failed, but not every cell ran).
  std::string verdict_word() const;
  // Why the gate fails, one short phrase each (empty when ok()).
  std::vector<std::string> failure_reasons() const;
};

}  // namespace serialcheck
