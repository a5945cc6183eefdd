// External subjects (testees, docs/testee-protocol.md) in the benchmarks.
// A testee times its own loop (the `bench` request), so the pipe between
// the runner and the testee is not what gets measured: each benchmark asks
// for enough iterations to fill about 50 ms, and reports the testee's time
// per operation as the time of every iteration (manual time).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "harness/subjects/external_subject.h"
#include "suite/bench/timed.h"

namespace serialcheck::bench {

// The testees the benchmarks run besides the built-in subjects.
void set_external_subjects(std::vector<TesteeConfig> configs);
const std::vector<TesteeConfig>& external_subjects();

// Workloads a testee runs: pyperformance's and the small in-band buffers
// (the rest are about zero-copy and device memory, which a process behind a
// pipe cannot show).
bool external_runs(const WorkloadSpec& spec);

// nullptr when `name` is not an external subject or does not run `spec`.
std::unique_ptr<TimedSubject> make_external_timed(const std::string& name,
                                                  const WorkloadSpec& spec);

}  // namespace serialcheck::bench
