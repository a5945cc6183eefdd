// `serialcheck bench`: runs the benchmarks (serialcheck_bench, Google
// Benchmark) and writes the report: bench.json (Google Benchmark's JSON),
// perf.md (ratios to the C pickler, fractions of memcpy) and plots, made by
// scripts/plot-bench; --compare marks regressions against an earlier
// bench.json with Google Benchmark's compare.py. docs/perf.md, docs/cli.md.
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "suite/cli/commands.h"
#include "suite/cli/subjects.h"

#ifndef SERIALCHECK_PYTHON_EXECUTABLE
#define SERIALCHECK_PYTHON_EXECUTABLE "/usr/bin/python3"
#endif

namespace serialcheck::cli {
namespace {

struct BenchArgs {
  bool quick = false;
  std::string filter;
  std::string report_dir = "reports";
  std::string compare;
  std::vector<std::string> extra;  // passed to the runner as they are
  SubjectArgs sources;
};


int bench(const BenchArgs& a) {
#ifndef SERIALCHECK_BENCH_RUNNER
  (void)a;
  return fail("this build has no benchmarks (they need Google Benchmark and the embedded Python)");
#else
  namespace fs = std::filesystem;
  const std::string runner = SERIALCHECK_BENCH_RUNNER;
  const std::string plot = SERIALCHECK_PLOT_BENCH;
  const std::string compare_tool = SERIALCHECK_COMPARE_PY;
  if (!fs::exists(runner)) return fail("the benchmark runner is not built: " + runner);
  if (!a.compare.empty()) {
    if (!fs::exists(a.compare)) return fail("cannot read " + a.compare + ": no such file");
    if (compare_tool.empty()) {
      return fail("--compare needs Google Benchmark's compare.py (Debian: libbenchmark-tools)");
    }
  }
  std::error_code ec;
  fs::create_directories(a.report_dir, ec);
  if (ec) return fail("cannot create " + a.report_dir + ": " + ec.message());
  const std::string json = (fs::path(a.report_dir) / "bench.json").string();

  std::vector<std::string> run = {runner};
  if (a.quick) run.push_back("--quick");
  if (!a.filter.empty()) run.push_back("--benchmark_filter=" + a.filter);
  // The external subjects, checked here so a bad file is a usage error of
  // this command, then handed to the runner as it reads them.
  (void)testee_configs(a.sources);
  if (!a.sources.no_subjects_file) {
    std::string file = a.sources.subjects_file.empty() && fs::exists("subjects.json")
                           ? std::string("subjects.json")
                           : a.sources.subjects_file;
    if (!file.empty()) run.push_back("--subjects-file=" + fs::absolute(file).string());
  }
  for (const auto& t : a.sources.testees) run.push_back("--testee=" + t);
  run.push_back("--benchmark_out=" + json);
  run.push_back("--benchmark_out_format=json");
  run.insert(run.end(), a.extra.begin(), a.extra.end());
  int rc = run_program(run);
  if (rc != 0) return fail("the benchmark runner failed (exit status " + std::to_string(rc) + ")");

  std::vector<std::string> report = {SERIALCHECK_PYTHON_EXECUTABLE, plot, json, "--out",
                                     a.report_dir};
  if (!a.compare.empty()) {
    report.insert(report.end(), {"--compare", a.compare, "--compare-tool", compare_tool});
  }
  rc = run_program(report);
  if (rc < 0 || rc > 1) {
    return fail("writing the report failed (exit status " + std::to_string(rc) + ")");
  }
  // 1: a benchmark's output was wrong (its check failed); the report says which.
  return rc == 0 ? kExitOk : kExitFailed;
#endif
}

}  // namespace

void add_bench(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("bench", "Benchmark every subject against the C pickler");
  auto a = std::make_shared<BenchArgs>();
  cmd->add_flag("--quick", a->quick, "Fewer buffer sizes and short timings (under a minute)");
  cmd->add_option("--filter", a->filter,
                  "Run only benchmarks whose name matches this regex, e.g. 'pyperf|memcpy'");
  cmd->add_option("--report", a->report_dir, "Directory for bench.json, perf.md and plots")
      ->capture_default_str();
  cmd->add_option("--compare", a->compare,
                  "An earlier bench.json: mark regressions (Google Benchmark's compare.py)");
  add_subject_options(cmd, a->sources);
  cmd->add_option("RUNNER_ARGS", a->extra,
                  "After --: Google Benchmark flags for the runner, e.g. "
                  "--benchmark_repetitions=5");
  cmd->footer(
      "Benchmarks are named <operation>/<workload>/<subject>, e.g. dumps/pyperf_dict/reference.\n"
      "Exit codes: 0 report written; 1 a benchmark's output failed its check, or the run or\n"
      "the report failed; 2 usage error. docs/perf.md explains the report.");
  cmd->callback([&action, a] { action = [a] { return bench(*a); }; });
}

}  // namespace serialcheck::cli
