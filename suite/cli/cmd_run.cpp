// `serialcheck run`: the conformance gate. Checks every (subject, property)
// cell in worker processes, prints the matrix, writes reports/ and exits 1
// when something fails that the known-failures file does not list (or the
// file lists something that no longer fails). docs/cli.md and docs/ci.md.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>

#include "harness/corpus/corpus.h"
#include "harness/corpus/replay.h"
#include "harness/props/coverage.h"
#include "harness/props/gate_props.h"
#include "harness/props/runner.h"
#include "harness/report/known_failures.h"
#include "harness/report/markdown_report.h"
#include "harness/report/report_files.h"
#include "suite/cli/commands.h"
#include "suite/cli/subjects.h"

#ifndef SERIALCHECK_PYTHON_EXECUTABLE
#define SERIALCHECK_PYTHON_EXECUTABLE "/usr/bin/python3"
#endif

namespace serialcheck::cli {
namespace {

constexpr int kDefaultCases = 100;
constexpr int kDefaultMaxSize = 100;

struct RunArgs {
  std::string subjects;
  std::string properties;
  int cases = kDefaultCases;
  std::optional<std::uint64_t> seed;
  int max_size = kDefaultMaxSize;
  double time_budget = 0;
  std::string report_dir = "reports";
  std::optional<std::string> known_failures;
  std::string shard;
  int jobs = 0;
  double case_timeout = 20;
  std::string corpus = "corpus/failing";
  bool no_save = false;
  bool list = false;
  bool no_picture = false;
  std::string producers;
  bool look_past_known = false;
  SubjectArgs sources;
};

}  // namespace

std::vector<std::string> split_commas(const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    auto first = item.find_first_not_of(' ');
    auto last = item.find_last_not_of(' ');
    if (first != std::string::npos) out.push_back(item.substr(first, last - first + 1));
  }
  return out;
}

std::vector<std::string> pick_subjects(const std::string& arg,
                                       const std::vector<std::string>& all) {
  if (arg.empty()) return all;
  std::vector<std::string> picked;
  for (const auto& name : split_commas(arg)) {
    if (std::find(all.begin(), all.end(), name) == all.end()) {
      std::string known;
      for (const auto& a : all) known += (known.empty() ? "" : ", ") + a;
      throw UsageError("unknown subject \"" + name + "\" (this build has: " + known + ")");
    }
    if (std::find(picked.begin(), picked.end(), name) == picked.end()) picked.push_back(name);
  }
  return picked;
}

// "cross.matrix" stands for every "cross.matrix/<producer>", one per
// subject of the run; so does each pair family's id for its properties.
static bool property_matches(const std::string& pattern, const std::string& id) {
  if (glob_match(pattern, id)) return true;
  auto pair = parse_pair_id(id);
  return pair && pattern == pair->family->id;
}

std::vector<std::string> pick_properties(const std::string& arg,
                                         const std::vector<std::string>& subjects) {
  std::vector<std::string> all;
  for (const auto& p : gate_properties()) all.push_back(p.id);
  for (auto& id : pair_property_ids(subjects)) all.push_back(std::move(id));
  if (arg.empty()) return all;
  auto patterns = split_commas(arg);
  for (const auto& pattern : patterns) {
    bool any = std::any_of(all.begin(), all.end(),
                           [&](const std::string& id) { return property_matches(pattern, id); });
    if (!any) throw UsageError("no property matches \"" + pattern + "\"");
  }
  std::vector<std::string> picked;
  for (const auto& id : all) {
    if (std::any_of(patterns.begin(), patterns.end(),
                    [&](const std::string& p) { return property_matches(p, id); })) {
      picked.push_back(id);
    }
  }
  return picked;
}

namespace {

std::string shell_quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

// "I/N" from --shard, else GTEST_SHARD_INDEX / GTEST_TOTAL_SHARDS, else 0/1.
std::pair<int, int> pick_shard(const std::string& arg) {
  std::string text = arg;
  if (text.empty()) {
    const char* index = std::getenv("GTEST_SHARD_INDEX");
    const char* total = std::getenv("GTEST_TOTAL_SHARDS");
    if (index == nullptr || total == nullptr) return {0, 1};
    text = std::string(index) + "/" + total;
  }
  int i = -1;
  int n = 0;
  char slash = 0;
  std::istringstream in(text);
  if (!(in >> i >> slash >> n) || slash != '/' || !in.eof() || n < 1 || i < 0 || i >= n) {
    throw UsageError("bad shard \"" + text + "\": expected I/N with 0 <= I < N");
  }
  return {i, n};
}

class Progress {
 public:
  explicit Progress(const std::vector<KnownFailure>& known)
      : known_(known), tty_(::isatty(STDERR_FILENO) == 1) {}

  void on(const RunEvent& e) {
    if (e.kind == RunEvent::Kind::CellFinished) {
      const CellResult& r = *e.result;
      std::string what =
          r.verdict == Verdict::Skip
              ? "skip (" + r.skip_reason + ")"
              : fmt::format("{} ({} cases{}, {:.1f} s){}", progress_word(listed_verdict(known_, r)),
                            r.cases,
                            r.discarded.empty() ? "" : ", discarded: " + r.discard_summary(),
                            r.seconds, r.fingerprint.empty() ? "" : " " + r.fingerprint);
      if (tty_) {
        status(fmt::format("[{}/{}] {} {}: {}", e.finished, e.total, e.subject, e.property, what));
      } else {
        std::cerr << fmt::format("[{}/{}] {} {}: {}\n", e.finished, e.total, e.subject, e.property,
                                 what);
      }
      return;
    }
    if (!tty_) return;
    // Redraw at most ten times a second: cases can be much faster than that.
    auto now = std::chrono::steady_clock::now();
    if (now - last_draw_ < std::chrono::milliseconds(100)) return;
    last_draw_ = now;
    if (e.kind == RunEvent::Kind::CaseStarted) {
      status(fmt::format("[{}/{}] {} {}: case {}", e.finished, e.total, e.subject, e.property,
                         e.cases));
    } else if (e.kind == RunEvent::Kind::Shrinking) {
      status(fmt::format("[{}/{}] {} {}: shrinking a crash, attempt {}", e.finished, e.total,
                         e.subject, e.property, e.cases));
    }
  }

  void done() {
    if (tty_ && shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  void status(std::string text) {
    if (text.size() > 110) text = text.substr(0, 107) + "...";
    std::cerr << "\r\033[K" << text << std::flush;
    shown_ = true;
  }

  // What the cell finally is, judged by the list as it finishes: a listed
  // failure reads "expected fail", never "fail".
  static std::string progress_word(Verdict v) {
    switch (v) {
      case Verdict::Fail: return "FAIL";
      case Verdict::ExpectedFail: return "expected fail";
      default: return verdict_name(v);
    }
  }

  const std::vector<KnownFailure>& known_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_draw_{};
};

// The matrix group of each testee (TesteeConfig::group); built-in subjects
// and the testees the file names have none.
std::map<std::string, std::string> matrix_groups(const SubjectArgs& sources) {
  std::map<std::string, std::string> groups;
  for (const auto& c : testee_configs(sources)) {
    if (!c.group.empty()) groups[c.name] = c.group;
  }
  return groups;
}

std::string repeat_command(const RunArgs& a, std::uint64_t seed) {
  std::string cmd = fmt::format("serialcheck run --seed {}", seed);
  if (a.cases != kDefaultCases) cmd += fmt::format(" --cases {}", a.cases);
  if (a.max_size != kDefaultMaxSize) cmd += fmt::format(" --max-size {}", a.max_size);
  if (!a.subjects.empty()) cmd += " --subjects " + a.subjects;
  if (!a.properties.empty()) cmd += " --properties '" + a.properties + "'";
  if (!a.shard.empty()) cmd += " --shard " + a.shard;
  if (!a.producers.empty()) cmd += " --producers " + a.producers;
  if (a.look_past_known) cmd += " --look-past-known";
  if (!a.sources.subjects_file.empty()) cmd += " --subjects-file " + a.sources.subjects_file;
  if (a.sources.no_subjects_file) cmd += " --no-subjects-file";
  for (const auto& t : a.sources.testees) cmd += " --testee " + shell_quote(t);
  for (const auto& p : a.sources.pythons) cmd += " --python " + shell_quote(p);
  if (a.sources.no_interpreters) cmd += " --no-interpreters";
  if (!a.sources.interpreter_presets.empty()) {
    cmd += " --interpreter-presets " + a.sources.interpreter_presets;
  }
  return cmd;
}

// The producer x consumer heat map (scripts/plot-matrix, matplotlib). A
// missing plotter costs the picture, never the verdict.
void plot_matrix(const std::string& report_dir) {
  const std::string script = SERIALCHECK_PLOT_MATRIX;
  if (!std::filesystem::exists(script)) return;
  int rc = run_program({SERIALCHECK_PYTHON_EXECUTABLE, script,
                        (std::filesystem::path(report_dir) / "conformance.json").string(), "--out",
                        (std::filesystem::path(report_dir) / "matrix.png").string()});
  if (rc != 0) {
    std::cerr << "serialcheck run: the producer x consumer picture was not drawn (plot-matrix "
                 "exit status "
              << rc << ")\n";
  }
}

int run_gate(const RunArgs& a) {
  auto factories = subject_factories(a.sources);
  RunReport report;
  report.version = "0.1.0";
  std::pair<int, int> shard;
  try {
    report.subjects = pick_subjects(a.subjects, subject_names(factories));
    // The matrix's producers: the run's subjects, and always the reference
    // and the C pickler, so a run of one subject still reads what they write.
    std::vector<std::string> producers = report.subjects;
    const auto all = subject_names(factories);
    // More producers for the run's consumers: every pair of the matrix
    // with one consumer runs in one process (a campaign's units).
    const auto more =
        a.producers.empty() ? std::vector<std::string>{} : pick_subjects(a.producers, all);
    for (const auto& p : more) {
      if (std::find(producers.begin(), producers.end(), p) == producers.end()) {
        producers.push_back(p);
      }
    }
    for (const char* anchor : {"reference", "cpython"}) {
      if (std::find(all.begin(), all.end(), anchor) != all.end() &&
          std::find(producers.begin(), producers.end(), anchor) == producers.end()) {
        producers.push_back(anchor);
      }
    }
    report.properties = pick_properties(a.properties, producers);
    shard = pick_shard(a.shard);
  } catch (const UsageError& e) {
    std::cerr << "serialcheck: " << e.what() << " (see serialcheck run --help)\n";
    return kExitUsage;
  }
  if (a.list) {
    std::cout << "subjects:\n";
    for (const auto& s : report.subjects) {
      std::cout << "  " << s << "  (" << subject_origin(a.sources, s) << ")\n";
    }
    std::cout << "properties:\n";
    for (const auto& p : gate_properties()) std::cout << "  " << p.id << "  " << p.summary << "\n";
    return kExitOk;
  }

  std::vector<KnownFailure> known;
  std::string known_path = a.known_failures.value_or("known-failures.txt");
  if (a.known_failures || std::filesystem::exists(known_path)) {
    try {
      known = parse_known_failures(read_input(known_path));
    } catch (const KnownFailuresError& e) {
      return fail(known_path + ": " + e.what());
    }
    report.known_failures_file = known_path;
  }

  report.seed = a.seed.value_or(std::random_device{}() * 4294967296ull + std::random_device{}());
  report.cases = a.cases;
  report.max_size = a.max_size;
  report.shard_index = shard.first;
  report.shard_count = shard.second;
  report.repeat_command = repeat_command(a, report.seed);
  std::cerr << fmt::format("serialcheck run: seed {} ({} cases per cell; repeat with `{}`)\n",
                           report.seed, a.cases, report.repeat_command);

  RunOptions options;
  options.factories = factories;
  options.cells = plan_cells(report.subjects, report.properties, shard.first, shard.second);
  const auto groups = matrix_groups(a.sources);
  if (auto settings = interpreter_settings(a.sources)) {
    for (const auto& i : find_interpreters(*settings, a.sources.pythons)) {
      for (const auto& p : settings->presets) {
        report.python_versions[p.prefix + "-" + i.tag()] = i.version;
      }
    }
  }
  std::erase_if(options.cells,
                [&](const CellId& cell) { return !matrix_pair_planned(cell, groups); });
  options.cases = a.cases;
  options.max_size = a.max_size;
  options.seed = report.seed;
  options.time_budget_s = a.time_budget;
  options.jobs =
      a.jobs > 0 ? a.jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  options.case_timeout_s = a.case_timeout;
  // The interpreters' subjects share `jobs` workers, each subject's cells in
  // one of them: every interpreter then starts once per worker, where one
  // worker per consumer would start every producer in each.
  std::map<std::string, std::string> shared_worker;
  for (const auto& s : report.subjects) {
    if (groups.count(s) == 0) continue;
    shared_worker[s] = fmt::format("interpreters#{}", shared_worker.size() % options.jobs);
  }
  // Pair cells with a testee producer run where that testee runs anyway.
  std::set<std::string> testees;
  for (const auto& c : testee_configs(a.sources)) testees.insert(c.name);
  options.worker_key = worker_key_for(shared_worker, testees);
  if (!a.no_save) options.corpus_dir = a.corpus;
  options.look_past_listed = a.look_past_known;
  options.listed = [&known](const CellId& cell) {
    std::vector<std::string> out;
    for (const KnownFailure& k : known) {
      if (k.matches(cell.subject, cell.property)) out.push_back(k.fingerprint);
    }
    return out;
  };
  Progress progress(known);
  options.on_event = [&progress](const RunEvent& e) { progress.on(e); };

  auto start = std::chrono::steady_clock::now();
  RunOutput out = run_cells(options);
  progress.done();
  report.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  report.cells = std::move(out.cells);
  report.coverage = std::move(out.coverage);

  // Coverage fails the gate only for a full default run of the reference.
  bool reference_complete = false;
  for (const auto& c : report.cells) {
    if (c.subject != "reference") continue;
    reference_complete = true;
    if (c.verdict == Verdict::Skip && c.skip_reason.find("time budget") != std::string::npos) {
      reference_complete = false;
      break;
    }
  }
  // Opcodes are "missing" only from a run that checked the reference itself;
  // other runs use it as a helper (cross.load...) and say nothing about them.
  const bool reference_checked = std::find(report.subjects.begin(), report.subjects.end(),
                                           "reference") != report.subjects.end();
  if (reference_checked && !report.coverage.opcodes.empty()) {
    report.coverage.missing = missing_opcodes(report.coverage.opcodes);
  }
  report.coverage.enforced = reference_complete && a.subjects.empty() && a.properties.empty() &&
                             a.cases >= kDefaultCases && a.max_size >= kDefaultMaxSize &&
                             shard.second == 1 && !report.coverage.opcodes.empty();
  // A listed failure the random cases missed this time still holds when its
  // saved case still fails that way (replayed in a fresh worker).
  ConfirmFailure confirm = [&](const KnownFailure& k,
                               const CellResult& cell) -> std::optional<std::string> {
    CaseRecord wanted;
    wanted.subject = cell.subject;
    wanted.property = cell.property;
    wanted.fingerprint = k.fingerprint;
    auto file = saved_case(a.corpus, wanted);
    if (!file) return std::nullopt;
    ReplayResult r = replay_file(*file, factories, a.case_timeout);
    if (r.verdict != ReplayVerdict::StillFailing) return std::nullopt;
    return file->string();
  };
  // An entry with a glob speaks for the subjects it was seen failing on:
  // those with a saved case of it. A run without them leaves it unjudged.
  JudgesEntry judges = [&](const KnownFailure& k, const CellResult& cell) {
    CaseRecord wanted;
    wanted.subject = cell.subject;
    wanted.property = cell.property;
    wanted.fingerprint = k.fingerprint;
    return saved_case(a.corpus, wanted).has_value();
  };
  apply_known_failures(known, report, confirm, judges);

  std::cout << "\n" << matrix_text(report) << "\n";
  for (const auto& c : report.cells) {
    if (c.verdict != Verdict::Fail && c.verdict != Verdict::UnexpectedPass) continue;
    if (c.verdict == Verdict::Fail) {
      std::cout << fmt::format("FAIL {} {}: {}\n  {}\n", c.subject, c.property, c.fingerprint,
                               c.message);
      if (!c.case_file.empty()) std::cout << "  replay: serialcheck replay " << c.case_file << "\n";
    } else {
      std::cout << fmt::format("XPASS {} {}: listed as a known failure ({}) but passed\n",
                               c.subject, c.property, c.known_reason);
    }
  }
  std::string file =
      report.known_failures_file.empty() ? "known-failures.txt" : report.known_failures_file;
  if (!report.lines_to_add.empty()) {
    std::cout << "\nFix these failures or add these lines to " << file << ":\n";
    for (const auto& l : report.lines_to_add) std::cout << "  " << l << "\n";
  }
  if (!report.lines_to_remove.empty()) {
    std::cout << "\nRemove these lines from " << file << " (they no longer fail that way):\n";
    for (const auto& l : report.lines_to_remove) std::cout << "  " << l << "\n";
  }
  if (!report.coverage.missing.empty()) {
    std::string names;
    for (const auto& m : report.coverage.missing) names += " " + m;
    std::cout << "\nReference opcodes never emitted"
              << (report.coverage.enforced ? "" : " (not enforced)") << ":" << names << "\n";
  }
  if (reference_checked && !report.coverage.opcodes.empty()) {
    std::cout << "\n" << unemitted_summary() << "\n";
  }
  try {
    write_reports(a.report_dir, report);
  } catch (const std::exception& e) {
    return fail(e.what());
  }
  if (!a.no_picture && !matrix_producers(report).empty()) plot_matrix(a.report_dir);
  auto counts = report.summary();
  std::string why;
  for (const auto& w : report.failure_reasons()) why += (why.empty() ? " (" : "; ") + w;
  if (!why.empty()) why += ")";
  std::cout << fmt::format(
      "\n{}{}: {} pass, {} fail, {} expected fail, {} unexpected pass, {} skip in {:.1f} s "
      "(seed {}). Reports in {}/\n",
      report.verdict_word(), why, counts["pass"], counts["fail"], counts["expected-fail"],
      counts["unexpected-pass"], counts["skip"], report.seconds, report.seed, a.report_dir);
  return report.ok() ? kExitOk : kExitFailed;
}

}  // namespace

void add_run(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand("run", "Run the conformance gate over subjects x properties");
  auto a = std::make_shared<RunArgs>();
  cmd->add_option("--subjects", a->subjects, "Comma list of subjects (default: all in this build)");
  cmd->add_option("--properties", a->properties,
                  "Comma list of property ids or globs, e.g. 'roundtrip.*' (default: all)");
  cmd->add_option("--cases", a->cases, "Passing cases per cell")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--seed", a->seed, "RapidCheck seed (default: random, printed)");
  cmd->add_option("--max-size", a->max_size, "Largest RapidCheck size")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--time-budget", a->time_budget,
                  "Seconds; start no new cell after it (the rest are skipped)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--report", a->report_dir, "Directory for conformance.json/.md and junit.xml")
      ->capture_default_str();
  cmd->add_option("--known-failures", a->known_failures,
                  "Known-failures file (default: known-failures.txt when present)");
  cmd->add_option("--shard", a->shard,
                  "I/N: run the cells whose index is I mod N (default: GTEST_SHARD_INDEX/"
                  "GTEST_TOTAL_SHARDS, else all)");
  cmd->add_option("--jobs,-j", a->jobs, "Worker processes at once (default: CPUs)")
      ->check(CLI::NonNegativeNumber);
  add_case_timeout(cmd, a->case_timeout, "Seconds one case may run");
  cmd->add_option("--corpus", a->corpus, "Where minimal failing cases are saved")
      ->capture_default_str();
  cmd->add_flag("--no-save", a->no_save, "Do not save failing cases");
  cmd->add_flag("--list", a->list, "List the subjects and properties, then exit");
  cmd->add_flag("--no-picture", a->no_picture,
                "Do not draw reports/matrix.png (matplotlib; a campaign's units skip it)");
  cmd->add_option("--producers", a->producers,
                  "Comma list of further matrix producers for the run's subjects (default: the "
                  "subjects themselves, reference and cpython)");
  cmd->add_flag("--look-past-known", a->look_past_known,
                "Pass over cases that fail only as the known-failures file lists for their "
                "cell, counting them, and go on looking for unlisted failures (a campaign's "
                "units)");
  add_subject_options(cmd, a->sources);
  add_malformed_streams(cmd);
  cmd->footer(
      "Exit codes: 0 the gate passed; 1 a failure not in the known-failures file, an\n"
      "unexpected pass, a stale known-failures entry, missing opcode coverage (full default\n"
      "run only), a run the time budget cut short (INCOMPLETE: not every cell ran) or\n"
      "unreadable input; 2 usage error. See docs/cli.md and docs/ci.md.");
  cmd->callback([&action, a] { action = [a] { return run_gate(*a); }; });
}

}  // namespace serialcheck::cli
