// serialcheck_bench: the Google Benchmark runner behind `serialcheck bench`.
//
//   serialcheck_bench [--quick] [--default-malloc] [Google Benchmark flags...]
//
// Benchmarks are named <operation>/<workload>/<subject>: dumps and loads of
// every workload (workloads.h) by every subject (timed.h), and
// memcpy/copy_<size>/{warm,cold}, the physical limit for the buffer
// workloads: warm copies into one destination reused by every iteration,
// cold into a fresh malloc'd one (so it pays the page faults a fresh output
// buffer pays). result/<workload>/string, for the pyperformance workloads:
// a fresh std::string of the workload's pickle size, copied from a buffer
// and freed, what handing back the bytes costs any dumps whose result owns
// them (the reference's EncodeResult holds such a string; the C pickler
// makes a bytes object). Before a benchmark is timed its subject's output
// is checked; a wrong output is reported as the benchmark's error, never as
// a time.
//
// Each benchmark runs for at least 0.25 s of CPU time (0.01 s with --quick),
// unless --benchmark_min_time says otherwise; --quick also takes fewer sizes.
//
// Output memory: by default the process keeps the memory it frees (glibc's
// malloc without mmap and without trimming), so after the first iteration
// every subject's output, however large, lands in pages already mapped: the
// steady state of a server that reuses its buffers. With glibc's defaults a
// block above 32 MiB is a fresh mmap each time and freeing the top of the
// heap returns it to the kernel, so a benchmark would time page faults more
// than serialization. memcpy/.../cold shows what those faults cost: its
// destination is a fresh mmap each iteration. --default-malloc keeps glibc's
// defaults.
#include <benchmark/benchmark.h>
#include <malloc.h>
#include <sys/mman.h>

#include <climits>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "harness/python/interpreter.h"
#include "harness/subjects/subject.h"
#include "harness/subjects/subjects_file.h"
#include "suite/bench/external_timed.h"
#include "suite/bench/timed.h"
#include "suite/bench/workloads.h"

namespace serialcheck::bench {
namespace {

// The prepared subjects of one workload at a time: moving to another
// workload drops the previous one (its buffers may be 256 MiB each).
class Store {
 public:
  struct Case {
    std::unique_ptr<TimedSubject> subject;
    std::string error;  // non-empty: the benchmark reports this instead of a time
  };

  Case& get(std::size_t workload, const std::string& subject) {
    if (workload != current_) switch_to(workload);
    auto found = cases_.find(subject);
    if (found != cases_.end()) return found->second;
    Case c;
    if (!workload_error_.empty()) {
      c.error = workload_error_;
    } else {
      c = prepare(subject);
    }
    return cases_.emplace(subject, std::move(c)).first->second;
  }

  const Workload& current() const { return *workload_; }

  void clear() {
    cases_.clear();
    workload_.reset();
    current_ = static_cast<std::size_t>(-1);
  }

 private:
  void switch_to(std::size_t index) {
    cases_.clear();
    workload_.reset();
    workload_error_.clear();
    current_ = index;
    try {
      workload_ = build_workload(workload_specs()[index]);
    } catch (const std::exception& e) {
      workload_error_ = std::string("cannot build the workload: ") + e.what();
    }
  }

  Case prepare(const std::string& name) {
    Case c;
    c.subject = make_timed_subject(name, *workload_->spec);
    if (!c.subject) {
      c.error = name + " does not run " + workload_->spec->name;
      return c;
    }
    try {
      c.subject->prepare(*workload_);
    } catch (const CheckFailed& e) {
      c.error = "wrong output: " + std::string(e.what());
      return c;
    } catch (const SubjectError& e) {
      // What a subject cannot express, a testee whose runtime is missing
      // here, or one that fails on the workload (the gate judges that), is
      // not a wrong output: "not run" benchmarks do not fail the run.
      const bool not_run = e.kind() == kUnsupported || c.subject->self_timed();
      c.error = (not_run ? "not run: " : "") + name + " cannot run: " + e.what();
      return c;
    } catch (const std::exception& e) {
      c.error = "preparing failed: " + std::string(e.what());
      return c;
    }
    // Byte identity with the C pickler, where the subject claims it: a
    // benchmark that timed other bytes would compare different work.
    if (c.subject->writes_cpython_bytes() && workload_->spec->same_bytes) {
      Case& cpython = get(current_, "cpython");
      if (!cpython.error.empty()) {
        c.error = "not checked: the C pickler, whose bytes it must equal, failed: " +
                  cpython.error;
        return c;
      }
      try {
        check_cpython_bytes(*c.subject, *cpython.subject);
      } catch (const CheckFailed& e) {
        c.error = "wrong output: " + std::string(e.what());
      }
    }
    return c;
  }

  std::size_t current_ = static_cast<std::size_t>(-1);
  std::unique_ptr<Workload> workload_;
  std::string workload_error_;
  std::map<std::string, Case> cases_;
};

Store& store() {
  static Store s;
  return s;
}

}  // namespace

void release_all() {
  store().clear();
}

namespace {

void set_counters(benchmark::State& state, std::size_t bytes, std::size_t items) {
  auto n = static_cast<std::int64_t>(state.iterations());
  state.SetBytesProcessed(n * static_cast<std::int64_t>(bytes));
  state.SetItemsProcessed(n * static_cast<std::int64_t>(items));
  state.counters["payload_bytes"] = static_cast<double>(bytes);
  state.counters["objects"] = static_cast<double>(items);
}

// One loads request to an external subject, timed from outside: what the
// testee protocol costs on top of the testee's own loads.
void run_request(benchmark::State& state, std::size_t workload, const std::string& subject) {
  Store::Case& c = store().get(workload, subject);
  if (!c.error.empty()) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  try {
    for (auto _ : state) state.SetIterationTime(c.subject->request_seconds());
  } catch (const SubjectError& e) {
    std::string why = (e.kind() == kUnsupported ? "not run: " : "failed while timed: ") +
                      std::string(e.what());
    state.SkipWithError(why.c_str());
    return;
  }
  const Workload& w = store().current();
  set_counters(state, w.bytes, w.items);
}

void run_case(benchmark::State& state, std::size_t workload, const std::string& subject,
              bool dumps) {
  Store::Case& c = store().get(workload, subject);
  if (!c.error.empty()) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  if (c.subject->self_timed()) {
    try {
      const double per_op = c.subject->seconds_per_op(dumps);
      for (auto _ : state) state.SetIterationTime(per_op);
    } catch (const SubjectError& e) {
      std::string why = (e.kind() == kUnsupported ? "not run: " : "failed while timed: ") +
                        std::string(e.what());
      state.SkipWithError(why.c_str());
      return;
    } catch (const std::exception& e) {
      state.SkipWithError((std::string("failed while timed: ") + e.what()).c_str());
      return;
    }
    const Workload& w = store().current();
    set_counters(state, w.bytes, w.items);
    return;
  }
  try {
    std::optional<python::Gil> gil;
    if (c.subject->needs_gil()) gil.emplace();
    if (dumps) {
      for (auto _ : state) c.subject->dumps();
    } else {
      for (auto _ : state) c.subject->loads();
    }
  } catch (const std::exception& e) {
    state.SkipWithError((std::string("failed while timed: ") + e.what()).c_str());
    return;
  }
  const Workload& w = store().current();
  set_counters(state, w.bytes, w.items);
}

// A pattern, so no page is the kernel's shared zero page.
std::unique_ptr<char[]> filled(std::size_t size) {
  std::unique_ptr<char[]> p(new char[size]);
  for (std::size_t i = 0; i < size; ++i) p[i] = static_cast<char>(i * 131 + 7);
  return p;
}

void run_memcpy(benchmark::State& state, std::size_t size, bool warm) {
  auto source = filled(size);
  if (warm) {
    auto target = filled(size);
    for (auto _ : state) {
      std::memcpy(target.get(), source.get(), size);
      benchmark::ClobberMemory();
    }
  } else {
    for (auto _ : state) {
      void* target =
          ::mmap(nullptr, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (target == MAP_FAILED) {
        state.SkipWithError("out of memory");
        break;
      }
      std::memcpy(target, source.get(), size);
      benchmark::DoNotOptimize(target);
      benchmark::ClobberMemory();
      ::munmap(target, size);
    }
  }
  set_counters(state, size, 1);
}

// result/<workload>/string: the bytes of the workload's pickle size made
// into a fresh string and freed (the reference's dumps does this once).
void run_result_string(benchmark::State& state, std::size_t workload) {
  Store::Case& c = store().get(workload, "reference");
  if (!c.error.empty()) {
    state.SkipWithError(c.error.c_str());
    return;
  }
  const std::size_t size = store().current().bytes;
  auto source = filled(size);
  for (auto _ : state) {
    std::string bytes(source.get(), size);
    benchmark::DoNotOptimize(bytes.data());
    benchmark::ClobberMemory();
  }
  set_counters(state, size, 1);
}

void register_all(bool quick) {
  const auto& specs = workload_specs();
  for (std::size_t w = 0; w < specs.size(); ++w) {
    if (quick && !specs[w].quick) continue;
    for (const std::string& subject : subject_names()) {
      if (!make_timed_subject(subject, specs[w])) continue;  // not this subject's workload
      for (bool dumps : {true, false}) {
        std::string name = std::string(dumps ? "dumps/" : "loads/") + specs[w].name + "/" + subject;
        benchmark::RegisterBenchmark(name.c_str(), [w, subject, dumps](benchmark::State& state) {
          run_case(state, w, subject, dumps);
        });
      }
    }
  }
  // External subjects time themselves (external_timed.h).
  for (std::size_t w = 0; w < specs.size(); ++w) {
    if (quick && !specs[w].quick) continue;
    for (const TesteeConfig& testee : external_subjects()) {
      if (!external_runs(specs[w])) continue;
      for (bool dumps : {true, false}) {
        std::string name =
            std::string(dumps ? "dumps/" : "loads/") + specs[w].name + "/" + testee.name;
        std::string subject = testee.name;
        benchmark::RegisterBenchmark(name.c_str(),
                                     [w, subject, dumps](benchmark::State& state) {
                                       run_case(state, w, subject, dumps);
                                     })
            ->UseManualTime();
      }
      std::string name = "request/" + specs[w].name + "/" + testee.name;
      std::string subject = testee.name;
      benchmark::RegisterBenchmark(name.c_str(), [w, subject](benchmark::State& state) {
        run_request(state, w, subject);
      })->UseManualTime();
    }
  }
  for (std::size_t w = 0; w < specs.size(); ++w) {
    if ((quick && !specs[w].quick) || specs[w].group != "pyperf") continue;
    std::string name = "result/" + specs[w].name + "/string";
    benchmark::RegisterBenchmark(name.c_str(),
                                 [w](benchmark::State& state) { run_result_string(state, w); });
  }
  for (std::size_t size : buffer_sizes(quick)) {
    for (bool warm : {true, false}) {
      std::string name = "memcpy/copy_" + size_name(size) + (warm ? "/warm" : "/cold");
      benchmark::RegisterBenchmark(
          name.c_str(), [size, warm](benchmark::State& state) { run_memcpy(state, size, warm); });
    }
  }
}

}  // namespace
}  // namespace serialcheck::bench

int main(int argc, char** argv) {
  bool quick = false;
  bool default_malloc = false;
  bool min_time_given = false;
  std::vector<char*> args;
  std::vector<serialcheck::TesteeConfig> testees;
  for (int i = 0; i < argc; ++i) {
    // External subjects, as `serialcheck bench` passes them on.
    if (i > 0 && std::strncmp(argv[i], "--testee=", 9) == 0) {
      try {
        auto t = serialcheck::parse_testee_argument(argv[i] + 9);
        std::erase_if(testees, [&](const auto& e) { return e.name == t.name; });
        testees.push_back(std::move(t));
      } catch (const std::exception& e) {
        std::fprintf(stderr, "serialcheck_bench: %s\n", e.what());
        return 2;
      }
      continue;
    }
    if (i > 0 && std::strncmp(argv[i], "--subjects-file=", 16) == 0) {
      try {
        for (auto& t : serialcheck::read_subjects_file(argv[i] + 16)) testees.push_back(t);
      } catch (const std::exception& e) {
        std::fprintf(stderr, "serialcheck_bench: %s\n", e.what());
        return 2;
      }
      continue;
    }
    if (i > 0 && std::strcmp(argv[i], "--quick") == 0) {
      quick = true;
      continue;
    }
    if (i > 0 && std::strcmp(argv[i], "--default-malloc") == 0) {
      default_malloc = true;
      continue;
    }
    if (std::strncmp(argv[i], "--benchmark_min_time", 20) == 0) min_time_given = true;
    args.push_back(argv[i]);
  }
  static char quick_min_time[] = "--benchmark_min_time=0.01";
  static char full_min_time[] = "--benchmark_min_time=0.25";
  if (!min_time_given) args.push_back(quick ? quick_min_time : full_min_time);
  int count = static_cast<int>(args.size());
  args.push_back(nullptr);
  benchmark::Initialize(&count, args.data());
  if (benchmark::ReportUnrecognizedArguments(count, args.data())) return 2;
  if (!default_malloc) {
    mallopt(M_MMAP_MAX, 0);              // every block from the heap...
    mallopt(M_TRIM_THRESHOLD, INT_MAX);  // ...which is never given back
  }
  serialcheck::bench::set_external_subjects(std::move(testees));
  serialcheck::bench::register_all(quick);
  benchmark::AddCustomContext("serialcheck.quick", quick ? "true" : "false");
  benchmark::AddCustomContext("serialcheck.malloc",
                              default_malloc ? "glibc defaults" : "reused heap (no mmap, no trim)");
  benchmark::RunSpecifiedBenchmarks();
  serialcheck::bench::release_all();
  benchmark::Shutdown();
  return 0;
}
