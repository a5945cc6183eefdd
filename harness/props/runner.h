// The gate's runner: checks (subject, property) cells in worker processes so
// that a subject that crashes or hangs cannot take the run down.
//
// The parent forks (no exec) one worker per subject; the worker makes its
// subject (a Python subject starts the interpreter there, never in the
// parent), drives each of its cells with RapidCheck and streams JSON lines
// back over a pipe, announcing each case before running it. The parent
// enforces the per-case timeout and notices crashes; a crash or hang is
// charged to the announced case, which the parent then shrinks greedily
// (shrink.h), running each candidate in a fresh forked worker, before a new
// worker takes over the subject's remaining cells. At most `jobs` workers
// run at once.
#pragma once

#include <chrono>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/props/case.h"
#include "harness/report/results.h"
#include "harness/subjects/interpreters.h"
#include "harness/subjects/subject.h"

namespace serialcheck {

// How to make a subject. `make` runs in worker processes only.
struct SubjectFactory {
  std::string name;
  std::function<std::unique_ptr<Subject>()> make;
};

struct CellId {
  std::string subject;
  std::string property;
};

// Every (subject, property) pair in matrix order, subjects outer; shard I of
// N keeps the cells whose index is I modulo N.
std::vector<CellId> plan_cells(const std::vector<std::string>& subjects,
                               const std::vector<std::string>& properties, int shard_index,
                               int shard_count);

// Which producer x consumer pairs of cross.matrix, and of the other pair
// families (gate_props.h, PairFamily), a run checks (docs/versions.md, "The
// version matrix"). `groups` maps a subject to its matrix group
// (TesteeConfig::group; absent: the main one). The reference and cpython
// write for and read from everyone; a producer in kInterpreterGroup
// (harness/subjects/interpreters.h: the interpreters' other presets; also
// the reference@X.Y targets) writes for no one (its cross.load cell has the
// reference and cpython read it); otherwise producer and consumer share a
// group. Cells of other properties are always planned.
bool matrix_pair_planned(const CellId& cell, const std::map<std::string, std::string>& groups);

// The RapidCheck seed of one cell: the run seed mixed with the cell's names,
// so a cell's cases do not depend on which other cells run.
std::uint64_t cell_seed(std::uint64_t run_seed, const std::string& subject,
                        const std::string& property);

struct RunEvent {
  enum class Kind { CellStarted, CaseStarted, CellFinished, Shrinking };
  Kind kind = Kind::CellStarted;
  std::string subject;
  std::string property;
  int cases = 0;                       // CaseStarted: cases so far in the cell
  const CellResult* result = nullptr;  // CellFinished
  int finished = 0;                    // cells finished so far
  int total = 0;                       // cells in this run
};

// The worker key `serialcheck run` uses (RunOptions::worker_key): a
// subject in `shared` runs in the worker it names (the interpreters' shared
// workers), any other in a worker of its own; and a pair cell
// (cross.matrix/P and the other pair families) whose producer P is one of
// `testees` and whose consumer is not goes to P's worker, where P's process
// is running anyway. Otherwise every in-process consumer's worker would
// start each testee producer once more, and a testee takes seconds to start
// where an in-process consumer takes milliseconds. Which worker runs a cell
// does not change its cases (cell_seed).
std::function<std::string(const CellId&)> worker_key_for(std::map<std::string, std::string> shared,
                                                         std::set<std::string> testees);

struct RunOptions {
  // Every subject the build has; the properties find helper subjects
  // ("reference", "cpython") here too.
  std::vector<SubjectFactory> factories;
  std::vector<CellId> cells;  // what to run (plan_cells)
  int cases = 100;
  int max_size = 100;
  std::uint64_t seed = 0;
  double time_budget_s = 0;  // 0: unlimited
  int jobs = 1;
  double case_timeout_s = 20;
  std::optional<std::filesystem::path> corpus_dir;  // where failing cases go; nullopt: nowhere
  int shrink_attempts = 150;                        // probes per crash (each a fresh worker)
  int shrink_attempts_timeout = 6;  // probes per hang (each may take case_timeout_s)
  std::function<void(const RunEvent&)> on_event;
  // Cells with one key run in one worker, in order, each subject made once
  // there (default: the cell's subject, one worker per subject). A group of
  // external subjects that read each other's pickles (the version matrix)
  // shares workers, so each interpreter starts once per worker rather than
  // once in every consumer's worker.
  std::function<std::string(const CellId&)> worker_key;
  // The fingerprints the known-failures file lists for a cell, handed to
  // its property (PropertyEnv::listed); none when unset.
  std::function<std::vector<std::string>(const CellId&)> listed;
  // Pass over cases that fail only with a listed fingerprint, counting them
  // (CellsJob::look_past_listed; `run --look-past-known`).
  bool look_past_listed = false;
};

struct RunOutput {
  std::vector<CellResult> cells;  // in options.cells order; verdicts Pass, Fail or Skip
  Coverage coverage;              // opcodes and header keys; `missing` left empty
};

RunOutput run_cells(const RunOptions& options);

// The result of one case run in a fresh forked worker.
struct ProbeResult {
  enum class Kind { Ran, Crashed, TimedOut, Skipped };
  Kind kind = Kind::Ran;
  Outcome outcome;     // Ran
  std::string reason;  // Crashed: "crash:SIGSEGV"...; TimedOut: "timeout"; Skipped: why
};

// Runs `property` on `c` for `subject` in a fresh worker and waits for it.
// `fingerprint`: a saved case's, when it is one being replayed
// (PropertyEnv::replaying).
ProbeResult probe_case(const std::vector<SubjectFactory>& factories, const std::string& subject,
                       const std::string& property, const TestCase& c, double timeout_s,
                       const std::string& fingerprint = {});

struct ProbeRequest {
  std::string subject;
  std::string property;
  const TestCase* test = nullptr;
  std::string fingerprint;  // a saved case's (PropertyEnv::replaying); may be empty
};

// Runs many probes as probe_case runs one, but the requests of one subject
// share a worker, the subject (a testee, an interpreter) made once there,
// and up to `jobs` workers run at once. A request whose worker dies or runs
// past `timeout_s` is Crashed or TimedOut as with probe_case, and that
// subject's remaining requests go on in a fresh worker. `on_result` is
// called as each request ends (in no set order); the results come back in
// request order.
std::vector<ProbeResult> probe_cases(
    const std::vector<SubjectFactory>& factories, const std::vector<ProbeRequest>& requests,
    double timeout_s, int jobs,
    const std::function<void(std::size_t, const ProbeResult&)>& on_result = {});

// Dumps `c` with `subject` in a fresh forked worker, so that the calling
// process never starts Python. nullopt, with `why_not`, when the subject is
// missing or unavailable, raises, crashes or hangs.
std::optional<Message> dump_in_worker(const std::vector<SubjectFactory>& factories,
                                      const std::string& subject, const TestCase& c,
                                      double timeout_s, std::string* why_not = nullptr);

// "crash:SIGSEGV" for a worker killed by a signal, "crash:exit-3" for one
// that exited early.
std::string crash_fingerprint(int wait_status);

}  // namespace serialcheck
