// The child side of the runner (runner.h): what a forked worker does, and
// the JSON lines it writes to the parent, one object per line:
//   {"t":"cell-start","subject":S,"property":P}
//   {"t":"case","n":N,"property":P,"case":{options, protocol, value}}  before running it,
//    with its keys in this order (the runner reads "n" without parsing the rest)
//   {"t":"cell","subject":S,"property":P,"status":"pass|fail|skip","cases":N,"reason":R,
//    "discarded":{REASON:N,...},"failure":{...outcome..., "case":{...}},"coverage":{...},
//    "time":{PHASE:SECONDS,...,"other":SECONDS}}  (harness/subjects/phase_clock.h)
//   {"t":"outcome","status":"ran|skipped","outcome":{...},"reason":R}  (a probe)
//   {"t":"done"}
// Internal to harness/props.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "harness/props/runner.h"

namespace serialcheck::worker {

using Clock = std::chrono::steady_clock;

struct CellsJob {
  const std::vector<SubjectFactory>* factories = nullptr;
  // In order; usually all of one subject, but a group of subjects shares a
  // worker when RunOptions::worker_key says so (each subject made once).
  std::vector<CellId> cells;
  int cases = 100;
  int max_size = 100;
  std::uint64_t seed = 0;
  std::optional<Clock::time_point> deadline;  // start no cell after it
  double time_budget_s = 0;                   // for the skip reason
  // The fingerprints known-failures.txt lists for a cell (PropertyEnv::listed).
  std::function<std::vector<std::string>(const CellId&)> listed;
  // A case that fails only with a listed fingerprint is passed over: the
  // cell counts it (CellResult::passed_over) and goes on drawing cases, so
  // that a listed failure cannot hide an unlisted one in the same cell.
  bool look_past_listed = false;
};

struct ProbeJob {
  const std::vector<SubjectFactory>* factories = nullptr;
  std::string subject;
  std::string property;
  const TestCase* test = nullptr;
  std::string fingerprint;  // PropertyEnv::replaying
};

// Cases to probe one after another in one worker (probe_cases), each
// subject made once: `indices` into `requests`.
struct ProbesJob {
  const std::vector<SubjectFactory>* factories = nullptr;
  const std::vector<ProbeRequest>* requests = nullptr;
  std::vector<std::size_t> indices;
};

// Run in the child; they write lines to `fd` and never return.
[[noreturn]] void cells_worker(int fd, const CellsJob& job);
[[noreturn]] void probe_worker(int fd, const ProbeJob& job);
// Lines: {"t":"begin","i":I} before request I, then
// {"t":"outcome","i":I,"status":"ran|skipped","outcome":{...},"reason":R}.
[[noreturn]] void probes_worker(int fd, const ProbesJob& job);

struct Child {
  pid_t pid = -1;
  int fd = -1;  // the read end, non-blocking
};

// Forks; the child closes `close_in_child` and runs body(write end).
// Throws std::runtime_error when pipe() or fork() fail.
Child spawn(const std::function<void(int fd)>& body, const std::vector<int>& close_in_child);

// Writes one JSON line, whole, to `fd` (retrying partial writes).
void write_line(int fd, const nlohmann::json& j);
// Writes `text` (a line with its newline) the same way.
void write_text(int fd, const std::string& text);

// Splits buffered bytes into complete lines.
class LineBuffer {
 public:
  void append(const char* data, std::size_t size) { buffer_.append(data, size); }
  // The next complete line, without its newline, or nullopt.
  std::optional<std::string> next();
  bool empty() const { return buffer_.empty(); }

 private:
  std::string buffer_;
  std::size_t start_ = 0;
};

}  // namespace serialcheck::worker
