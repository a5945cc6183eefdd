// `serialcheck campaign`: the gate's cells over a stream of fresh seeds, as
// units on this machine's cores or on a dask cluster, every finding merged
// into a findings database; and `serialcheck findings`: the database's
// triage (list, show, recheck, accept). docs/campaigns.md.
#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <thread>

#include "harness/campaign/campaign.h"
#include "harness/campaign/findings_db.h"
#include "harness/corpus/corpus.h"
#include "harness/corpus/replay.h"
#include "harness/report/known_failures.h"
#include "suite/cli/commands.h"
#include "suite/cli/subjects.h"

#ifndef SERIALCHECK_PYTHON_EXECUTABLE
#define SERIALCHECK_PYTHON_EXECUTABLE "/usr/bin/python3"
#endif

namespace serialcheck::cli {
namespace {

namespace fs = std::filesystem;
using campaign::Finding;
using campaign::FindingsDb;

constexpr const char* kDefaultDb = "findings";

volatile std::sig_atomic_t g_stop = 0;
extern "C" void on_interrupt(int) {
  g_stop = 1;
}

struct CampaignArgs {
  std::string db = kDefaultDb;
  double time_budget = 0;
  long max_cases = 0;
  int max_units = 0;
  std::optional<std::uint64_t> seed;
  int jobs = 0;
  std::string scheduler;
  int workers = 0;
  std::string subjects;
  std::string properties;
  int cases = 100;
  int max_size = 100;
  std::optional<std::string> known_failures;
  double case_timeout = 20;
  double unit_timeout = 1800;
  std::vector<std::string> malformed_streams;
  bool no_replay = false;
  int producers_per_unit = 2;
  SubjectArgs sources;
};

std::vector<KnownFailure> read_known(const std::optional<std::string>& given, std::string* used) {
  const std::string path = given.value_or("known-failures.txt");
  if (!given && !fs::exists(path)) return {};
  if (used != nullptr) *used = path;
  try {
    return parse_known_failures(read_input(path));
  } catch (const KnownFailuresError& e) {
    throw InputError(path + ": " + e.what());
  }
}

std::string absolute(const std::string& path) {
  return fs::absolute(path).lexically_normal().string();
}

// The `serialcheck run` every unit runs, less its seed, subject, producers
// and known-failures file (campaign::make_unit).
std::vector<std::string> unit_run_argv(const CampaignArgs& a) {
  std::vector<std::string> argv = {
      fs::read_symlink("/proc/self/exe").string(),
      "run",
      // Every cell of the unit, whatever GTEST_SHARD_* the environment holds.
      "--shard",
      "0/1",
      "--jobs",
      "1",
      "--no-picture",
      "--report",
      std::string(campaign::kUnitDir) + "/report",
      "--corpus",
      std::string(campaign::kUnitDir) + "/cases",
      "--cases",
      std::to_string(a.cases),
      "--max-size",
      std::to_string(a.max_size),
      "--case-timeout",
      fmt::format("{}", a.case_timeout),
  };
  if (!a.properties.empty()) {
    argv.push_back("--properties");
    argv.push_back(a.properties);
  }
  const SubjectArgs& s = a.sources;
  if (s.no_subjects_file) {
    argv.push_back("--no-subjects-file");
  } else if (!s.subjects_file.empty()) {
    argv.push_back("--subjects-file");
    argv.push_back(absolute(s.subjects_file));
  } else if (fs::exists("subjects.json")) {
    argv.push_back("--subjects-file");
    argv.push_back(absolute("subjects.json"));
  } else {
    argv.push_back("--no-subjects-file");
  }
  for (const auto& t : s.testees) {
    argv.push_back("--testee");
    argv.push_back(t);
  }
  for (const auto& p : s.pythons) {
    argv.push_back("--python");
    argv.push_back(absolute(p));
  }
  if (s.no_interpreters) argv.push_back("--no-interpreters");
  if (!s.interpreter_presets.empty()) {
    argv.push_back("--interpreter-presets");
    argv.push_back(s.interpreter_presets);
  }
  for (const auto& d : a.malformed_streams) {
    argv.push_back("--malformed-streams");
    argv.push_back(absolute(d));
  }
  return argv;
}

// A finding's case replayed, and the finding as it was before.
struct Replayed {
  Finding before;
  ReplayResult result;
};

// Replays the case of every finding `wanted` accepts (those with a case) and
// records each verdict in the database: still failing keeps it (or brings it
// back), fixed or changed marks it gone, skipped or invalid leaves it alone.
std::vector<Replayed> replay_findings(FindingsDb& db,
                                      const std::function<bool(const Finding&)>& wanted,
                                      const std::vector<SubjectFactory>& factories,
                                      double timeout_s, int jobs) {
  std::vector<Replayed> out;
  std::vector<fs::path> paths;
  for (Finding& f : db.findings()) {
    if (f.case_file.empty() || !wanted(f)) continue;
    paths.push_back(db.case_path(f));
    out.push_back({std::move(f), {}});
  }
  if (out.empty()) return out;
  const auto results = replay_files(paths, factories, timeout_s, jobs);
  for (std::size_t i = 0; i < results.size(); ++i) {
    out[i].result = results[i];
    const ReplayVerdict v = results[i].verdict;
    if (v == ReplayVerdict::StillFailing) {
      db.set_checked(out[i].before.id, true);
    } else if (v == ReplayVerdict::Fixed || v == ReplayVerdict::Changed) {
      db.set_checked(out[i].before.id, false);
    }
  }
  return out;
}

bool now_gone(const ReplayResult& r) {
  return r.verdict == ReplayVerdict::Fixed || r.verdict == ReplayVerdict::Changed;
}

int default_jobs(int jobs) {
  return jobs > 0 ? jobs : static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
}

// Replays the database's findings of `subjects` before new seeds, as
// Hypothesis replays its example database first: each is marked gone or
// back by what its case does now.
void replay_findings_first(FindingsDb& db, const std::vector<std::string>& subjects,
                           const std::vector<SubjectFactory>& factories, double timeout_s,
                           int jobs) {
  auto of_campaign = [&](const Finding& f) {
    return std::find(subjects.begin(), subjects.end(), f.subject) != subjects.end();
  };
  const auto all = db.findings();
  const auto count = std::count_if(all.begin(), all.end(), [&](const Finding& f) {
    return !f.case_file.empty() && of_campaign(f);
  });
  if (count == 0) return;
  std::cerr << fmt::format("serialcheck campaign: replaying the database's {} finding{} first\n",
                           count, count == 1 ? "" : "s");
  const auto replayed = replay_findings(db, of_campaign, factories, timeout_s, jobs);
  int still = 0;
  int gone = 0;
  for (const Replayed& r : replayed) {
    if (r.result.verdict == ReplayVerdict::StillFailing) {
      ++still;
    } else if (now_gone(r.result)) {
      ++gone;
      std::cerr << fmt::format("  gone: {} {} {} {} ({})\n", r.before.id, r.before.subject,
                               r.before.property, r.before.fingerprint,
                               replay_verdict_name(r.result.verdict));
    }
  }
  std::cerr << fmt::format("  {} still fail, {} gone, {} not replayed here\n", still, gone,
                           replayed.size() - static_cast<std::size_t>(still + gone));
}

class CampaignProgress {
 public:
  CampaignProgress(const std::vector<KnownFailure>& known, double budget)
      : known_(known), budget_(budget), tty_(::isatty(STDERR_FILENO) == 1) {}

  void on(const campaign::CampaignEvent& e) {
    using Kind = campaign::CampaignEvent::Kind;
    if (e.kind == Kind::NewFinding) {
      const Finding& f = *e.finding;
      line(fmt::format("{} {} {} {}: {} (seed {})", f.listed(known_) ? "found (listed)" : "NEW",
                       f.id, f.subject, f.property, f.fingerprint, f.first_seed));
      return;
    }
    if (e.kind == Kind::UnitFailed) {
      line(fmt::format("unit {} did not finish: {}", e.outcome->id, e.outcome->why));
      return;
    }
    if (e.kind == Kind::UnitDone && !tty_) {
      std::cerr << fmt::format("unit {}: {} cells, {} cases, {:.1f} s{}\n", e.outcome->id,
                               e.outcome->cells.size(), e.outcome->cases, e.outcome->seconds,
                               e.outcome->failures.empty()
                                   ? ""
                                   : fmt::format(", {} failing", e.outcome->failures.size()));
      return;
    }
    if (!tty_) return;
    const auto now = std::chrono::steady_clock::now();
    if (now - last_ < std::chrono::milliseconds(200) && e.kind == Kind::Tick) return;
    last_ = now;
    status(fmt::format(
        "{} units done ({} running{}), {} cases, {:.0f} cases/s, {} findings | {:.0f} s{}",
        e.units_done, e.running,
        e.units_failed > 0 ? fmt::format(", {} failed", e.units_failed) : "", e.cases,
        e.seconds > 0 ? static_cast<double>(e.cases) / e.seconds : 0.0, e.findings, e.seconds,
        budget_ > 0 ? fmt::format(" of {:.0f}", budget_) : ""));
  }

  void done() {
    if (tty_ && shown_) std::cerr << "\r\033[K" << std::flush;
  }

 private:
  void line(const std::string& text) {
    if (tty_ && shown_) std::cerr << "\r\033[K";
    std::cerr << text << "\n";
    shown_ = false;
  }
  void status(std::string text) {
    if (text.size() > 110) text = text.substr(0, 107) + "...";
    std::cerr << "\r\033[K" << text << std::flush;
    shown_ = true;
  }

  const std::vector<KnownFailure>& known_;
  double budget_;
  bool tty_;
  bool shown_ = false;
  std::chrono::steady_clock::time_point last_{};
};

int run_campaign_command(const CampaignArgs& a) {
  const auto factories = subject_factories(a.sources);
  std::vector<std::string> subjects;
  try {
    if (!a.scheduler.empty() && a.workers > 0) {
      throw UsageError("--scheduler and --workers: give one (a cluster to use, or one to start)");
    }
    subjects = pick_subjects(a.subjects, subject_names(factories));
    std::vector<std::string> producers = subjects;
    for (const char* anchor : {"reference", "cpython"}) producers.push_back(anchor);
    pick_properties(a.properties, producers);
  } catch (const UsageError& e) {
    std::cerr << "serialcheck: " << e.what() << " (see serialcheck campaign --help)\n";
    return kExitUsage;
  }
  std::string known_file;
  const std::vector<KnownFailure> known = read_known(a.known_failures, &known_file);
  FindingsDb db{fs::path(a.db)};

  campaign::CampaignOptions options;
  options.subjects = subjects;
  options.run_argv = unit_run_argv(a);
  // Every unit judges by the campaign's list (and the database's findings),
  // wherever it runs: the text travels with the unit.
  if (!known_file.empty()) options.known_failures_text = read_input(known_file);
  options.producers_per_unit = a.producers_per_unit;
  options.first_seed =
      a.seed.value_or(std::random_device{}() * 4294967296ull + std::random_device{}());
  options.time_budget_s = a.time_budget;
  options.max_cases = a.max_cases;
  options.max_units = a.max_units;
  options.stop = &g_stop;
  const int jobs = default_jobs(a.jobs);

  if (!a.no_replay) replay_findings_first(db, subjects, factories, a.case_timeout, jobs);

  std::unique_ptr<campaign::UnitExecutor> executor;
  std::string where;
  if (!a.scheduler.empty() || a.workers > 0) {
    std::vector<std::string> driver = {SERIALCHECK_PYTHON_EXECUTABLE, SERIALCHECK_DASK_DRIVER};
    if (!a.scheduler.empty()) {
      driver.insert(driver.end(), {"--scheduler", a.scheduler});
    } else {
      driver.insert(driver.end(), {"--workers", std::to_string(a.workers)});
    }
    try {
      auto dask = std::make_unique<campaign::DaskExecutor>(driver, a.unit_timeout);
      where =
          fmt::format("a dask cluster at {} ({} worker threads)", dask->describe(), dask->slots());
      executor = std::move(dask);
    } catch (const std::exception& e) {
      return fail(e.what());
    }
  } else {
    const fs::path work =
        fs::temp_directory_path() / fmt::format("serialcheck-campaign-{}", ::getpid());
    executor = std::make_unique<campaign::LocalExecutor>(jobs, work, a.unit_timeout);
    where = fmt::format("{} local worker{}", jobs, jobs == 1 ? "" : "s");
  }
  std::cerr << fmt::format(
      "serialcheck campaign: seeds from {}, {} subject{} a seed, {} cases a cell, on {}; database "
      "{}/\n",
      options.first_seed, subjects.size(), subjects.size() == 1 ? "" : "s", a.cases, where, a.db);
  if (a.time_budget <= 0 && a.max_cases <= 0 && a.max_units <= 0) {
    std::cerr << "serialcheck campaign: no budget given: runs until Ctrl-C\n";
  }

  g_stop = 0;
  struct sigaction sa {};
  sa.sa_handler = on_interrupt;
  sigemptyset(&sa.sa_mask);
  struct sigaction old_int {};
  struct sigaction old_term {};
  ::sigaction(SIGINT, &sa, &old_int);
  ::sigaction(SIGTERM, &sa, &old_term);
  CampaignProgress progress(known, a.time_budget);
  campaign::CampaignSummary s;
  try {
    s = campaign::run_campaign(*executor, db, options,
                               [&progress](const campaign::CampaignEvent& e) { progress.on(e); });
  } catch (const std::exception& e) {
    progress.done();
    ::sigaction(SIGINT, &old_int, nullptr);
    ::sigaction(SIGTERM, &old_term, nullptr);
    return fail(e.what());
  }
  progress.done();
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);

  std::vector<std::string> problems;
  const auto all = db.findings(&problems);
  std::map<std::string, int> by_status;
  for (const auto& f : all) ++by_status[f.status(known)];
  int unlisted_hit = 0;
  for (const auto& f : all) {
    if (std::find(s.hit_ids.begin(), s.hit_ids.end(), f.id) != s.hit_ids.end() &&
        !f.listed(known)) {
      ++unlisted_hit;
    }
  }
  std::cout << fmt::format(
      "campaign{}: {} units in {:.1f} s, {} cases ({:.0f} cases/s); seeds {} to {}\n",
      s.stopped ? " (stopped)" : "", s.units_done, s.seconds, s.cases,
      s.seconds > 0 ? static_cast<double>(s.cases) / s.seconds : 0.0, options.first_seed,
      s.next_seed == options.first_seed ? options.first_seed : s.next_seed - 1);
  if (s.cells_repeated > 0) {
    std::cout << fmt::format("  {} cells were in the database already and were not counted again\n",
                             s.cells_repeated);
  }
  for (const auto& e : s.unit_errors) std::cout << "  " << e << "\n";
  std::cout << fmt::format(
      "findings hit: {} ({} not in the known-failures list); new to the database: {}\n",
      s.hit_ids.size(), unlisted_hit, s.created.size());
  std::cout << fmt::format(
      "the database holds {}: {} new, {} known, {} gone.  serialcheck findings --db {}\n",
      all.size(), by_status["new"], by_status["known"], by_status["gone"], a.db);
  for (const auto& p : problems) std::cout << "  unreadable: " << p << "\n";
  std::cout << fmt::format("continue with --seed {}\n", s.next_seed);
  return unlisted_hit == 0 && s.units_failed == 0 ? kExitOk : kExitFailed;
}

// ---- findings ---------------------------------------------------------------------

struct FindingsArgs {
  std::string db = kDefaultDb;
  std::optional<std::string> known_failures;
  std::string show;
  bool recheck = false;
  std::vector<std::string> accept;
  std::string reason;
  std::string corpus = "corpus/failing";
  bool json = false;
  double case_timeout = 20;
  int jobs = 0;
  SubjectArgs sources;
};

void list_findings(const FindingsDb& db, const std::vector<KnownFailure>& known, bool as_json) {
  std::vector<std::string> problems;
  const auto all = db.findings(&problems);
  if (as_json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& f : all) {
      nlohmann::json j = campaign::finding_to_json(f);
      j["status"] = f.status(known);
      if (!f.case_file.empty()) j["replay"] = replay_command(db.case_path(f).string());
      out.push_back(std::move(j));
    }
    std::cout << out.dump(2) << "\n";
    return;
  }
  if (all.empty()) {
    std::cout << "no findings in " << db.dir().string() << "/\n";
  } else {
    std::cout << fmt::format("{:<12}  {:<5}  {:>6}  {:<20}  {}\n", "ID", "STATE", "HITS",
                             "FIRST SEED", "SUBJECT PROPERTY FINGERPRINT");
    for (const auto& f : all) {
      std::cout << fmt::format("{:<12}  {:<5}  {:>6}  {:<20}  {} {} {}\n", f.id, f.status(known),
                               f.hits, f.first_seed, f.subject, f.property, f.fingerprint);
    }
    const auto t = db.totals();
    std::cout << fmt::format(
        "{} findings from {} cells at {} seeds. serialcheck findings --db {} --show ID\n",
        all.size(), t.cells, t.seeds, db.dir().string());
  }
  for (const auto& p : problems) std::cout << "unreadable: " << p << "\n";
}

int show_finding(const FindingsDb& db, const std::vector<KnownFailure>& known,
                 const std::string& id) {
  const Finding f = db.find(id);
  std::cout << fmt::format("finding {}: {}\n", f.id, f.status(known));
  std::cout << fmt::format("  subject      {}\n  property     {}\n  fingerprint  {}\n", f.subject,
                           f.property, f.fingerprint);
  std::cout << fmt::format("  hits         {} (first seed {}, {} to {})\n", f.hits, f.first_seed,
                           f.first_seen, f.last_seen);
  std::string seeds;
  for (auto s : f.seeds) seeds += (seeds.empty() ? "" : " ") + std::to_string(s);
  std::cout << "  seeds        " << seeds << "\n";
  if (!f.versions.empty()) {
    std::string v;
    for (const auto& x : f.versions) v += (v.empty() ? "" : ", ") + x;
    std::cout << "  versions     " << v << "\n";
  }
  if (!f.checked.empty()) std::cout << "  replayed     " << f.checked << "\n";
  std::cout << "  message      " << f.message << "\n";
  if (f.case_file.empty()) {
    std::cout << "  (no case was saved for it)\n";
    return kExitOk;
  }
  const CaseRecord r = load_case(db.case_path(f));
  if (!r.explanation.empty()) std::cout << "\n" << r.explanation << "\n";
  std::cout << "\ncase (" << f.case_size << " bytes of value):\n"
            << case_to_json(r.test).dump(2) << "\n\n";
  std::cout << "replay: " << replay_command(db.case_path(f).string()) << "\n";
  std::cout << fmt::format(
      "accept: serialcheck findings --db {} --accept {} --reason '...'  (a known-failures line "
      "and a corpus case)\n",
      db.dir().string(), f.id);
  return kExitOk;
}

int recheck_findings(FindingsDb& db, const std::vector<KnownFailure>& known,
                     const FindingsArgs& a) {
  const auto replayed = replay_findings(
      db, [](const Finding&) { return true; }, subject_factories(a.sources), a.case_timeout,
      default_jobs(a.jobs));
  int changed = 0;
  for (const Replayed& r : replayed) {
    const Finding& f = r.before;
    std::string now;
    if (r.result.verdict == ReplayVerdict::StillFailing) {
      now = f.gone ? "back" : "still fails";
    } else if (now_gone(r.result)) {
      now = f.gone ? "still gone" : "gone";
      if (r.result.verdict == ReplayVerdict::Changed) {
        now += " (fails another way: " + r.result.observed + ")";
      }
    } else {
      now = "not replayed: " + r.result.detail;
    }
    if ((r.result.verdict == ReplayVerdict::StillFailing) == f.gone) ++changed;
    std::cout << fmt::format("{}  {} {} {}: {}\n", f.id, f.subject, f.property, f.fingerprint, now);
  }
  std::cout << fmt::format("{} findings replayed, {} changed state\n", replayed.size(), changed);
  list_findings(db, known, false);
  return kExitOk;
}

int accept_findings(const FindingsDb& db, const std::vector<KnownFailure>& known,
                    const std::string& known_file, const FindingsArgs& a) {
  if (a.reason.empty()) {
    std::cerr << "serialcheck: --accept needs --reason TEXT: why the failure is accepted for now "
                 "(see serialcheck findings --help)\n";
    return kExitUsage;
  }
  std::vector<Finding> chosen;
  for (const auto& id : a.accept) chosen.push_back(db.find(id));
  std::string lines;
  for (const Finding& f : chosen) {
    if (f.listed(known)) {
      std::cout << fmt::format("{} is listed already in {}\n", f.id, known_file);
      continue;
    }
    KnownFailure k;
    k.subject = f.subject;
    k.property = f.property;
    k.fingerprint = f.fingerprint;
    k.reason = a.reason;
    lines += k.text() + "\n";
    std::cout << "added to " << known_file << ": " << k.text() << "\n";
    if (!f.case_file.empty()) {
      const fs::path saved = save_case(a.corpus, load_case(db.case_path(f)));
      std::cout << "  case: " << saved.string() << "\n";
    }
  }
  if (!lines.empty()) {
    std::string old = fs::exists(known_file) ? read_input(known_file) : "";
    std::ofstream out(known_file, std::ios::app | std::ios::binary);
    if (!old.empty() && old.back() != '\n') out << "\n";
    out << lines;
    if (!out) throw InputError(known_file + ": cannot write");
  }
  return kExitOk;
}

int findings_command(const FindingsArgs& a) {
  if (!fs::is_directory(a.db)) {
    return fail(a.db + ": no findings database here (serialcheck campaign --db " + a.db +
                " makes one)");
  }
  FindingsDb db{fs::path(a.db)};
  std::string known_file;
  const auto known = read_known(a.known_failures, &known_file);
  if (known_file.empty()) known_file = a.known_failures.value_or("known-failures.txt");
  try {
    if (!a.accept.empty()) return accept_findings(db, known, known_file, a);
    if (!a.show.empty()) return show_finding(db, known, a.show);
    if (a.recheck) return recheck_findings(db, known, a);
  } catch (const campaign::DatabaseError& e) {
    return fail(e.what());
  }
  list_findings(db, known, a.json);
  return kExitOk;
}

}  // namespace

void add_campaign(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "campaign",
      "Search past one seed: the gate's cells over fresh seeds, into a findings database");
  auto a = std::make_shared<CampaignArgs>();
  cmd->add_option("--db", a->db, "The findings database (a directory; made when missing)")
      ->capture_default_str();
  cmd->add_option("--time-budget", a->time_budget,
                  "Seconds; start no unit after it (running units stop their cells too)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-cases", a->max_cases, "Start no unit once this many cases were checked")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--max-units", a->max_units, "Start at most this many units")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--seed", a->seed,
                  "The first seed; units take seeds from it up (default: random, printed)");
  cmd->add_option("--jobs,-j", a->jobs, "Units at once on this machine (default: CPUs)")
      ->check(CLI::NonNegativeNumber);
  cmd->add_option("--scheduler", a->scheduler,
                  "tcp://HOST:PORT: run the units on this dask scheduler's workers")
      ->type_name("ADDRESS");
  cmd->add_option("--workers", a->workers,
                  "Start a dask LocalCluster of N workers and run the units there")
      ->check(CLI::PositiveNumber);
  cmd->add_option("--subjects", a->subjects, "Comma list of subjects (default: all in this build)");
  cmd->add_option("--properties", a->properties,
                  "Comma list of property ids or globs (default: all)");
  cmd->add_option("--cases", a->cases, "Passing cases per cell in each unit")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--max-size", a->max_size, "Largest RapidCheck size")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  cmd->add_option("--known-failures", a->known_failures,
                  "Known-failures file (default: known-failures.txt when present)");
  add_case_timeout(cmd, a->case_timeout, "Seconds one case may run");
  cmd->add_option("--unit-timeout", a->unit_timeout, "Seconds one unit may run before it is killed")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd->add_option("--malformed-streams", a->malformed_streams,
                  "DIR: more malformed streams for loads.rejects-malformed; repeatable")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  cmd->add_flag("--no-replay", a->no_replay, "Do not replay the database's findings first");
  cmd->add_option("--producers-per-unit", a->producers_per_unit,
                  "Matrix producers a unit adds besides its subject, reference and cpython: this "
                  "many other subjects, in turn by seed (0: all of them)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  add_subject_options(cmd, a->sources);
  cmd->footer(
      "A unit is one `serialcheck run` at one seed over one subject, in a process of its own,\n"
      "judged by the known-failures list and every finding of the database, and looking past\n"
      "them (run --look-past-known). Each unit's cells are merged into the database as it\n"
      "ends; a cell merged before (same seed, subject, property, cases, size) is not counted\n"
      "twice. Ctrl-C stops the campaign and keeps what was merged. Exit codes: 0 no failure the "
      "known-failures file does not\n"
      "list and every unit finished; 1 otherwise; 2 usage error. See docs/campaigns.md.");
  cmd->callback([&action, a] { action = [a] { return run_campaign_command(*a); }; });
}

void add_findings(CLI::App& app, Action& action) {
  auto* cmd =
      app.add_subcommand("findings", "List, show, recheck and accept a campaign's findings");
  auto a = std::make_shared<FindingsArgs>();
  cmd->add_option("--db", a->db, "The findings database")->capture_default_str();
  cmd->add_option("--known-failures", a->known_failures,
                  "Known-failures file that says which findings are known, and where --accept "
                  "writes (default: known-failures.txt)");
  cmd->add_option("--show", a->show,
                  "ID: one finding, with its case, explanation and replay command")
      ->type_name("ID");
  cmd->add_flag("--recheck", a->recheck,
                "Replay every finding's case: those that no longer fail are marked gone");
  cmd->add_option("--accept", a->accept,
                  "ID: add the finding to the known-failures file and its case to --corpus; "
                  "repeatable")
      ->type_name("ID");
  cmd->add_option("--reason", a->reason, "Why the accepted findings are accepted (with --accept)");
  cmd->add_option("--corpus", a->corpus, "Where --accept saves cases")->capture_default_str();
  cmd->add_flag("--json", a->json, "The list as JSON, one object a finding");
  cmd->add_option("--jobs,-j", a->jobs, "Workers for --recheck (default: CPUs)")
      ->check(CLI::NonNegativeNumber);
  add_case_timeout(cmd, a->case_timeout, "Seconds one replayed case may run (--recheck)");
  add_subject_options(cmd, a->sources);
  cmd->footer(
      "States: new (no known-failures entry lists it), known (one does), gone (its case no\n"
      "longer fails that way; kept, never deleted). IDs may be shortened to 4 digits or more.\n"
      "Exit codes: 0 done; 1 no database, an unknown ID or unreadable input; 2 usage error.");
  cmd->callback([&action, a] { action = [a] { return findings_command(*a); }; });
}

}  // namespace serialcheck::cli
