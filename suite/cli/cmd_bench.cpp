// `serialcheck bench`: runs the benchmarks (serialcheck_bench, Google
// Benchmark) and writes the report: bench.json (Google Benchmark's JSON),
// perf.md (ratios to the C pickler, fractions of memcpy) and plots, made by
// scripts/plot-bench; --compare compares each benchmark's time relative to
// the C pickler (or memcpy) in this run with the same ratio in an earlier
// bench.json. docs/perf.md, docs/cli.md.
#include <regex.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <memory>
#include <nlohmann/json.hpp>
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

// Google Benchmark reads --benchmark_filter as a POSIX extended regex
// (regcomp on this platform); a filter it cannot compile is a usage error
// here, before anything runs.
std::string filter_error(const std::string& filter) {
  regex_t re;
  int rc = ::regcomp(&re, filter.c_str(), REG_EXTENDED | REG_NOSUB);
  if (rc == 0) {
    ::regfree(&re);
    return "";
  }
  char why[256];
  ::regerror(rc, &re, why, sizeof why);
  return "--filter '" + filter + "' is not a regular expression (" + why + ")";
}

// An earlier bench.json: Google Benchmark's JSON with at least one
// benchmark. Anything else is named here, before anything runs.
std::string compare_file_error(const std::string& path) {
  std::string text;
  try {
    text = read_input(path);
  } catch (const InputError& e) {
    return e.what();
  }
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  const std::string what = "--compare " + path + " is not a bench.json written by serialcheck bench";
  if (doc.is_discarded()) return what + " (not JSON)";
  if (!doc.is_object() || !doc.contains("benchmarks") || !doc["benchmarks"].is_array()) {
    return what + " (no \"benchmarks\" list)";
  }
  if (doc["benchmarks"].empty()) return what + " (its \"benchmarks\" list is empty)";
  for (const auto& b : doc["benchmarks"]) {
    if (!b.is_object() || !b.contains("name") || !b["name"].is_string()) {
      return what + " (a benchmark without a name)";
    }
  }
  return "";
}

// Runs argv with stdout read into `out` and stderr discarded: its exit
// status, or -1.
int capture_program(const std::vector<std::string>& argv, std::string& out) {
  int fds[2];
  if (::pipe(fds) != 0) return -1;
  std::vector<char*> args;
  for (const auto& x : argv) args.push_back(const_cast<char*>(x.c_str()));
  args.push_back(nullptr);
  std::cout.flush();
  const pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    return -1;
  }
  if (pid == 0) {
    ::dup2(fds[1], 1);
    ::close(fds[0]);
    ::close(fds[1]);
    if (std::FILE* null = std::freopen("/dev/null", "w", stderr); null == nullptr) ::_exit(127);
    ::execv(args[0], args.data());
    ::_exit(127);
  }
  ::close(fds[1]);
  char buf[4096];
  for (;;) {
    const ssize_t n = ::read(fds[0], buf, sizeof buf);
    if (n > 0) {
      out.append(buf, static_cast<std::size_t>(n));
    } else if (n == 0 || errno != EINTR) {
      break;
    }
  }
  ::close(fds[0]);
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int usage_error(const std::string& what) {
  std::cerr << "serialcheck: " << what << " (see serialcheck bench --help)\n";
  return kExitUsage;
}

int bench(const BenchArgs& a) {
  if (!a.filter.empty()) {
    if (const std::string e = filter_error(a.filter); !e.empty()) return usage_error(e);
  }
  if (!a.compare.empty()) {
    if (const std::string e = compare_file_error(a.compare); !e.empty()) return fail(e);
  }
#ifndef SERIALCHECK_BENCH_RUNNER
  (void)a;
  return fail("this build has no benchmarks (they need Google Benchmark and the embedded Python)");
#else
  namespace fs = std::filesystem;
  const std::string runner = SERIALCHECK_BENCH_RUNNER;
  const std::string plot = SERIALCHECK_PLOT_BENCH;
  if (!fs::exists(runner)) return fail("the benchmark runner is not built: " + runner);
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
  if (!a.filter.empty()) {
    // A filter that matches nothing would leave no report to write: say so.
    std::vector<std::string> list = run;
    list.push_back("--benchmark_list_tests=true");
    std::string names;
    const int listed = capture_program(list, names);
    if (listed == 0 && names.find_first_not_of(" \n") == std::string::npos) {
      return usage_error("--filter '" + a.filter + "' matches no benchmark");
    }
  }
  run.push_back("--benchmark_out=" + json);
  run.push_back("--benchmark_out_format=json");
  run.insert(run.end(), a.extra.begin(), a.extra.end());
  int rc = run_program(run);
  if (rc != 0) return fail("the benchmark runner failed (exit status " + std::to_string(rc) + ")");

  std::vector<std::string> report = {SERIALCHECK_PYTHON_EXECUTABLE, plot, json, "--out",
                                     a.report_dir};
  if (!a.compare.empty()) report.insert(report.end(), {"--compare", a.compare});
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
                  "An earlier bench.json: compare each benchmark's time relative to the C "
                  "pickler in each run (compare.txt)");
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
