#include "harness/props/runner.h"

#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstring>
#include <deque>

#include "harness/corpus/corpus.h"
#include "harness/props/gate_props.h"
#include "harness/props/shrink.h"
#include "harness/props/worker.h"

namespace serialcheck {
namespace {

using Clock = std::chrono::steady_clock;

double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

std::uint64_t splitmix(std::uint64_t x) {
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

// Reads what is available; false at end of file.
bool drain(int fd, worker::LineBuffer& lines) {
  char buf[65536];
  while (true) {
    ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      lines.append(buf, static_cast<std::size_t>(n));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return true;  // EAGAIN: nothing more for now
  }
}

struct ShrinkJob {
  std::size_t cell = 0;
  std::string fingerprint;  // "crash:SIGSEGV"... or "timeout"
  TestCase original;
  TestCase best;
  std::vector<TestCase> candidates;
  std::size_t next = 0;
  int attempts = 0;
  int accepted = 0;
  int limit = 0;
  int cases = 0;
  bool running = false;
  bool finished = false;
};

struct Slot {
  worker::Child child;
  bool probe = false;
  std::string subject;
  std::vector<std::size_t> remaining;  // cells not finished, in order
  std::optional<std::size_t> current;  // the cell in progress
  nlohmann::json last_case;            // probe: its outcome line
  std::string last_case_text;          // the announced case's line, parsed only if needed
  int last_n = 0;
  bool done = false;
  std::string error;
  std::size_t shrink = 0;  // probe: the job it serves
  std::size_t candidate = 0;
  worker::LineBuffer lines;
  Clock::time_point clock;  // the case timeout counts from here
  bool timed_out = false;
};

class Runner {
 public:
  explicit Runner(const RunOptions& options) : o_(options) {
    out_.cells.resize(o_.cells.size());
    std::vector<std::string> keys;  // one per group, in groups_ order
    started_.resize(o_.cells.size(), Clock::now());
    for (std::size_t i = 0; i < o_.cells.size(); ++i) {
      out_.cells[i].subject = o_.cells[i].subject;
      out_.cells[i].property = o_.cells[i].property;
      out_.cells[i].verdict = Verdict::Skip;
      out_.cells[i].skip_reason = "not run";
      std::string key = o_.worker_key ? o_.worker_key(o_.cells[i]) : o_.cells[i].subject;
      auto it = std::find(keys.begin(), keys.end(), key);
      if (it == keys.end()) {
        keys.push_back(key);
        groups_.push_back({i});
      } else {
        groups_[static_cast<std::size_t>(it - keys.begin())].push_back(i);
      }
    }
    // Groups of many subjects are the longest: started first, they do not
    // leave one core working alone at the end of the run.
    std::stable_partition(groups_.begin(), groups_.end(), [&](const std::vector<std::size_t>& g) {
      return std::any_of(g.begin(), g.end(), [&](std::size_t c) {
        return o_.cells[c].subject != o_.cells[g.front()].subject;
      });
    });
    if (o_.time_budget_s > 0) {
      deadline_ = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                     std::chrono::duration<double>(o_.time_budget_s));
    }
  }

  RunOutput run() {
    while (true) {
      fill_slots();
      if (slots_.empty()) {
        if (groups_.empty() && !shrink_pending()) break;
        continue;
      }
      wait_and_read();
      reap_and_time_out();
    }
    return std::move(out_);
  }

 private:
  bool past_deadline() const { return deadline_ && Clock::now() >= *deadline_; }

  bool shrink_pending() const {
    return std::any_of(shrinks_.begin(), shrinks_.end(),
                       [](const ShrinkJob& j) { return !j.finished; });
  }

  std::vector<int> open_fds() const {
    std::vector<int> fds;
    for (const auto& s : slots_) fds.push_back(s->child.fd);
    return fds;
  }

  void emit(RunEvent::Kind kind, std::size_t cell, int cases = 0) {
    if (!o_.on_event) return;
    RunEvent e;
    e.kind = kind;
    e.subject = o_.cells[cell].subject;
    e.property = o_.cells[cell].property;
    e.cases = cases;
    e.result = kind == RunEvent::Kind::CellFinished ? &out_.cells[cell] : nullptr;
    e.finished = finished_;
    e.total = static_cast<int>(o_.cells.size());
    o_.on_event(e);
  }

  void finish(std::size_t cell) {
    CellResult& r = out_.cells[cell];
    r.seconds = seconds_since(started_[cell]);
    if (r.verdict == Verdict::Fail && !r.minimal_case.is_null() && o_.corpus_dir) save(cell);
    ++finished_;
    emit(RunEvent::Kind::CellFinished, cell);
  }

  void save(std::size_t cell) {
    CellResult& r = out_.cells[cell];
    try {
      CaseRecord record;
      record.subject = r.subject;
      record.property = r.property;
      record.fingerprint = r.fingerprint;
      record.seed = o_.seed;
      record.message = r.message;
      record.explanation = r.explanation;
      record.test = case_from_json(r.minimal_case);
      record.failing_message = r.failing_message;
      // One file per (subject, property, fingerprint): a failure already
      // saved by an earlier run keeps its file instead of adding another.
      if (auto existing = saved_case(*o_.corpus_dir, record)) {
        r.case_file = existing->string();
      } else {
        r.case_file = save_case(*o_.corpus_dir, record).string();
      }
    } catch (const std::exception& e) {
      r.explanation += std::string(r.explanation.empty() ? "" : "\n") +
                       "(the case could not be saved: " + e.what() + ")";
    }
  }

  void skip(std::size_t cell, const std::string& reason) {
    out_.cells[cell].verdict = Verdict::Skip;
    out_.cells[cell].skip_reason = reason;
    started_[cell] = Clock::now();
    finish(cell);
  }

  void fail_without_case(std::size_t cell, const std::string& fingerprint,
                         const std::string& message) {
    CellResult& r = out_.cells[cell];
    r.verdict = Verdict::Fail;
    r.fingerprint = fingerprint;
    r.message = message;
    finish(cell);
  }

  void fill_slots() {
    while (static_cast<int>(slots_.size()) < std::max(1, o_.jobs)) {
      if (start_probe()) continue;
      if (groups_.empty()) return;
      std::vector<std::size_t> group = std::move(groups_.front());
      groups_.pop_front();
      if (past_deadline()) {
        for (std::size_t cell : group) {
          skip(cell, fmt::format("{}{} s was spent before this cell started", kTimeBudgetSkip,
                                 static_cast<long>(o_.time_budget_s)));
        }
        continue;
      }
      start_cells(std::move(group));
    }
  }

  void start_cells(std::vector<std::size_t> group) {
    auto slot = std::make_unique<Slot>();
    slot->subject = o_.cells[group.front()].subject;
    slot->remaining = std::move(group);
    worker::CellsJob job;
    job.factories = &o_.factories;
    for (std::size_t cell : slot->remaining) job.cells.push_back(o_.cells[cell]);
    job.cases = o_.cases;
    job.max_size = o_.max_size;
    job.seed = o_.seed;
    job.deadline = deadline_;
    job.time_budget_s = o_.time_budget_s;
    job.listed = o_.listed;
    job.look_past_listed = o_.look_past_listed;
    slot->child = worker::spawn([&job](int fd) { worker::cells_worker(fd, job); }, open_fds());
    slot->clock = Clock::now();
    slots_.push_back(std::move(slot));
  }

  bool start_probe() {
    for (std::size_t i = 0; i < shrinks_.size(); ++i) {
      ShrinkJob& job = shrinks_[i];
      if (job.finished || job.running) continue;
      if (job.next >= job.candidates.size() || job.attempts >= job.limit || past_deadline()) {
        finish_shrink(job);
        continue;
      }
      auto slot = std::make_unique<Slot>();
      slot->probe = true;
      slot->shrink = i;
      slot->candidate = job.next;
      slot->subject = o_.cells[job.cell].subject;
      worker::ProbeJob probe;
      probe.factories = &o_.factories;
      probe.subject = slot->subject;
      probe.property = o_.cells[job.cell].property;
      probe.test = &job.candidates[job.next];
      slot->child =
          worker::spawn([&probe](int fd) { worker::probe_worker(fd, probe); }, open_fds());
      slot->clock = Clock::now();
      job.running = true;
      ++job.attempts;
      emit(RunEvent::Kind::Shrinking, job.cell, job.attempts);
      slots_.push_back(std::move(slot));
      return true;
    }
    return false;
  }

  void finish_shrink(ShrinkJob& job) {
    job.finished = true;
    CellResult& r = out_.cells[job.cell];
    r.verdict = Verdict::Fail;
    r.fingerprint = job.fingerprint;
    r.cases = job.cases;
    if (job.fingerprint == "timeout") {
      r.message = fmt::format("a case ran longer than the case timeout ({} s)", o_.case_timeout_s);
    } else {
      r.message = "the worker died (" + job.fingerprint.substr(job.fingerprint.find(':') + 1) +
                  ") while checking a case";
    }
    r.explanation = fmt::format(
        "RapidCheck cannot shrink past a crash or a hang, so the runner shrank the case itself: "
        "{} candidates tried in fresh workers, {} accepted (size {} -> {}).",
        job.attempts, job.accepted, case_size(job.original), case_size(job.best));
    r.minimal_case = case_to_json(job.best);
    finish(job.cell);
  }

  void wait_and_read() {
    std::vector<pollfd> fds;
    for (const auto& s : slots_) fds.push_back({s->child.fd, POLLIN, 0});
    double wait_s = 0.25;
    for (const auto& s : slots_) {
      wait_s = std::min(wait_s, o_.case_timeout_s - seconds_since(s->clock));
    }
    int ms = static_cast<int>(std::max(0.0, wait_s) * 1000) + 1;
    ::poll(fds.data(), fds.size(), ms);
  }

  void reap_and_time_out() {
    for (std::size_t i = 0; i < slots_.size();) {
      Slot& s = *slots_[i];
      bool open = drain(s.child.fd, s.lines);
      while (auto line = s.lines.next()) handle_line(s, *line);
      if (open && !s.timed_out && seconds_since(s.clock) > o_.case_timeout_s) {
        s.timed_out = true;
        ::kill(s.child.pid, SIGKILL);
      }
      if (open) {
        ++i;
        continue;
      }
      int status = 0;
      while (::waitpid(s.child.pid, &status, 0) < 0 && errno == EINTR) {
      }
      ::close(s.child.fd);
      std::unique_ptr<Slot> gone = std::move(slots_[i]);
      slots_.erase(slots_.begin() + static_cast<std::ptrdiff_t>(i));
      if (gone->probe) {
        probe_ended(*gone, status);
      } else {
        worker_ended(*gone, status);
      }
    }
  }

  std::size_t cell_of(Slot& s, const nlohmann::json& line) {
    const std::string subject = line.value("subject", "");
    const std::string property = line.value("property", "");
    for (std::size_t cell : s.remaining) {
      if (o_.cells[cell].property == property && o_.cells[cell].subject == subject) return cell;
    }
    throw std::runtime_error("a worker reported an unknown cell " + subject + " " + property);
  }

  void handle_line(Slot& s, const std::string& text) {
    // A case's announcement, the most frequent line by far: its number is
    // read here, the case itself only if the worker dies or hangs in it.
    static constexpr std::string_view kCasePrefix = "{\"t\":\"case\",\"n\":";
    if (!s.probe && std::string_view(text).substr(0, kCasePrefix.size()) == kCasePrefix) {
      const char* first = text.data() + kCasePrefix.size();
      int n = 0;
      auto [end, ec] = std::from_chars(first, text.data() + text.size(), n);
      if (ec == std::errc() && end != first) {
        s.last_case_text = text;
        s.last_n = n;
        s.clock = Clock::now();
        if (s.current) emit(RunEvent::Kind::CaseStarted, *s.current, s.last_n);
        return;
      }
    }
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const std::exception&) {
      return;  // not ours (a subject wrote to the pipe?); the protocol lines carry the state
    }
    std::string t = j.value("t", "");
    if (s.probe) {
      if (t == "outcome") s.last_case = j;
      if (t == "error") s.error = j.value("message", "");
      return;
    }
    if (t == "cell-start") {
      std::size_t cell = cell_of(s, j);
      s.current = cell;
      s.last_case_text.clear();
      s.last_n = 0;
      s.clock = Clock::now();
      started_[cell] = s.clock;
      emit(RunEvent::Kind::CellStarted, cell);
    } else if (t == "case") {  // written another way than write_case_line's
      s.last_case_text = text;
      s.last_n = j.value("n", 0);
      s.clock = Clock::now();
      if (s.current) emit(RunEvent::Kind::CaseStarted, *s.current, s.last_n);
    } else if (t == "cell") {
      std::size_t cell = cell_of(s, j);
      record_cell(cell, j);
      s.remaining.erase(std::find(s.remaining.begin(), s.remaining.end(), cell));
      s.current.reset();
      s.clock = Clock::now();
      finish(cell);
    } else if (t == "done") {
      s.done = true;
    } else if (t == "error") {
      s.error = j.value("message", "");
    }
  }

  void record_cell(std::size_t cell, const nlohmann::json& j) {
    CellResult& r = out_.cells[cell];
    std::string status = j.value("status", "");
    r.cases = j.value("cases", 0);
    r.discarded.clear();
    if (j.contains("discarded") && j["discarded"].is_object()) {
      for (const auto& [reason, count] : j["discarded"].items()) {
        if (count.is_number_integer() && count.get<int>() > 0) {
          r.discarded[reason] = count.get<int>();
        }
      }
    }
    r.passed_over.clear();
    if (j.contains("passed_over") && j["passed_over"].is_object()) {
      for (const auto& [fingerprint, count] : j["passed_over"].items()) {
        if (count.is_number_integer() && count.get<int>() > 0) {
          r.passed_over[fingerprint] = count.get<int>();
        }
      }
    }
    r.skip_reason.clear();
    r.phases.clear();
    if (j.contains("time") && j["time"].is_object()) {
      for (const auto& [phase, spent] : j["time"].items()) {
        if (spent.is_number()) r.phases[phase] = spent.get<double>();
      }
    }
    if (j.contains("coverage")) out_.coverage.merge(j["coverage"]);
    if (status == "pass") {
      r.verdict = Verdict::Pass;
    } else if (status == "skip") {
      r.verdict = Verdict::Skip;
      r.skip_reason = j.value("reason", "skipped");
    } else {
      r.verdict = Verdict::Fail;
      const auto& f = j.contains("failure") ? j["failure"] : nlohmann::json::object();
      r.fingerprint = f.value("fingerprint", "unknown");
      r.message = f.value("message", "");
      r.explanation = f.value("explanation", "");
      if (f.contains("case")) r.minimal_case = f["case"];
      if (f.contains("failing_message")) r.failing_message = f["failing_message"];
    }
  }

  void worker_ended(Slot& s, int status) {
    bool clean = s.done && WIFEXITED(status) && WEXITSTATUS(status) == 0;
    if (clean && s.remaining.empty()) return;
    std::string fp = s.timed_out ? "timeout" : crash_fingerprint(status);
    if (clean) fp = "crash:early-exit";
    // Charge the cell in progress, or else the next one, so that a worker
    // that dies on start-up cannot be restarted for ever.
    std::optional<std::size_t> cell = s.current;
    if (!cell && !s.remaining.empty()) cell = s.remaining.front();
    if (cell) {
      s.remaining.erase(std::find(s.remaining.begin(), s.remaining.end(), *cell));
      std::optional<TestCase> announced;
      if (!s.last_case_text.empty() && s.current) {
        try {
          announced = case_from_json(nlohmann::json::parse(s.last_case_text).at("case"));
        } catch (const std::exception&) {
          // a line cut short by the crash: charged as a case-less failure below
        }
      }
      if (announced) {
        start_shrink(*cell, fp, s.last_n);
        shrinks_.back().original = std::move(*announced);
        shrinks_.back().best = shrinks_.back().original;
        shrinks_.back().candidates = shrink_candidates(shrinks_.back().best);
      } else {
        std::string what = s.timed_out ? fmt::format("hung for over {} s", o_.case_timeout_s)
                                       : "died (" + fp + ")";
        std::string msg = "the worker " + what + " before its first case";
        if (!s.error.empty()) msg += ": " + s.error;
        fail_without_case(*cell, fp, msg);
      }
    }
    if (!s.remaining.empty()) groups_.push_front(std::move(s.remaining));
  }

  void start_shrink(std::size_t cell, const std::string& fp, int cases) {
    ShrinkJob job;
    job.cell = cell;
    job.fingerprint = fp;
    job.cases = cases;
    job.limit = fp == "timeout" ? o_.shrink_attempts_timeout : o_.shrink_attempts;
    shrinks_.push_back(std::move(job));
  }

  void probe_ended(Slot& s, int status) {
    ShrinkJob& job = shrinks_[s.shrink];
    job.running = false;
    bool reproduced = false;
    if (s.timed_out) {
      reproduced = job.fingerprint == "timeout";
    } else if (!(WIFEXITED(status) && WEXITSTATUS(status) == 0 && !s.last_case.is_null())) {
      reproduced = crash_fingerprint(status) == job.fingerprint;
    }
    if (reproduced) {
      job.best = job.candidates[s.candidate];
      job.candidates = shrink_candidates(job.best);
      job.next = 0;
      ++job.accepted;
    } else {
      job.next = s.candidate + 1;
    }
  }

  const RunOptions& o_;
  RunOutput out_;
  std::vector<Clock::time_point> started_;
  std::deque<std::vector<std::size_t>> groups_;
  std::vector<ShrinkJob> shrinks_;
  std::vector<std::unique_ptr<Slot>> slots_;
  std::optional<Clock::time_point> deadline_;
  int finished_ = 0;
};

}  // namespace

std::vector<CellId> plan_cells(const std::vector<std::string>& subjects,
                               const std::vector<std::string>& properties, int shard_index,
                               int shard_count) {
  std::vector<CellId> cells;
  std::size_t index = 0;
  for (const auto& s : subjects) {
    for (const auto& p : properties) {
      if (shard_count <= 1 ||
          static_cast<int>(index % static_cast<std::size_t>(shard_count)) == shard_index) {
        cells.push_back({s, p});
      }
      ++index;
    }
  }
  return cells;
}

bool matrix_pair_planned(const CellId& cell, const std::map<std::string, std::string>& groups) {
  auto pair = parse_pair_id(cell.property);
  if (!pair) return true;
  const std::string& producer = pair->producer;
  auto group = [&](const std::string& name) -> std::string {
    if (name == "reference" || name == "cpython") return "*";
    if (auto it = groups.find(name); it != groups.end()) return it->second;
    // The reference at another version's target writes that version's
    // bytes (bytes.match-cpython, golden vectors); it reads as `reference`.
    return name.rfind("reference@", 0) == 0 ? kInterpreterGroup : "";
  };
  const std::string p = group(producer), c = group(cell.subject);
  if (p == "*") return true;
  if (p == kInterpreterGroup) return false;
  return c == "*" || c == p;
}

std::function<std::string(const CellId&)> worker_key_for(std::map<std::string, std::string> shared,
                                                         std::set<std::string> testees) {
  return [shared = std::move(shared), testees = std::move(testees)](const CellId& cell) {
    std::string owner = cell.subject;
    if (auto pair = parse_pair_id(cell.property);
        pair && testees.count(pair->producer) > 0 && testees.count(cell.subject) == 0) {
      owner = pair->producer;
    }
    auto it = shared.find(owner);
    return it != shared.end() ? it->second : owner;
  };
}

std::uint64_t cell_seed(std::uint64_t run_seed, const std::string& subject,
                        const std::string& property) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : subject + "/" + property) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return splitmix(run_seed ^ splitmix(h));
}

std::string crash_fingerprint(int status) {
  if (WIFSIGNALED(status)) {
    int sig = WTERMSIG(status);
    const char* abbrev = sigabbrev_np(sig);
    return abbrev != nullptr ? std::string("crash:SIG") + abbrev
                             : "crash:signal-" + std::to_string(sig);
  }
  if (WIFEXITED(status)) return "crash:exit-" + std::to_string(WEXITSTATUS(status));
  return "crash:unknown";
}

RunOutput run_cells(const RunOptions& options) {
  return Runner(options).run();
}

namespace {

struct ChildRun {
  std::vector<nlohmann::json> lines;
  int status = 0;
  bool timed_out = false;
};

// Runs body(fd) in a fresh child and collects its JSON lines, killing it
// after `timeout_s`.
ChildRun run_child(const std::function<void(int)>& body, double timeout_s) {
  worker::Child child = worker::spawn(body, {});
  worker::LineBuffer buffer;
  ChildRun run;
  auto start = Clock::now();
  while (true) {
    bool open = drain(child.fd, buffer);
    while (auto line = buffer.next()) {
      try {
        run.lines.push_back(nlohmann::json::parse(*line));
      } catch (const std::exception&) {
      }
    }
    if (!open) break;
    double left = timeout_s - seconds_since(start);
    if (left <= 0 && !run.timed_out) {
      run.timed_out = true;
      ::kill(child.pid, SIGKILL);
    }
    pollfd p{child.fd, POLLIN, 0};
    ::poll(&p, 1, static_cast<int>(std::clamp(left, 0.0, 0.25) * 1000) + 1);
  }
  while (::waitpid(child.pid, &run.status, 0) < 0 && errno == EINTR) {
  }
  ::close(child.fd);
  return run;
}

const nlohmann::json* find_line(const ChildRun& run, const char* type) {
  for (const auto& j : run.lines) {
    if (j.is_object() && j.value("t", "") == type) return &j;
  }
  return nullptr;
}

bool exited_cleanly(int status) {
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

}  // namespace

ProbeResult probe_case(const std::vector<SubjectFactory>& factories, const std::string& subject,
                       const std::string& property, const TestCase& c, double timeout_s,
                       const std::string& fingerprint) {
  worker::ProbeJob job;
  job.factories = &factories;
  job.subject = subject;
  job.property = property;
  job.test = &c;
  job.fingerprint = fingerprint;
  ChildRun run = run_child([&job](int fd) { worker::probe_worker(fd, job); }, timeout_s);
  const nlohmann::json* outcome = find_line(run, "outcome");
  ProbeResult r;
  if (run.timed_out) {
    r.kind = ProbeResult::Kind::TimedOut;
    r.reason = "timeout";
  } else if (outcome == nullptr || !exited_cleanly(run.status)) {
    r.kind = ProbeResult::Kind::Crashed;
    r.reason = crash_fingerprint(run.status);
  } else if (outcome->value("status", "") == "skipped") {
    r.kind = ProbeResult::Kind::Skipped;
    r.reason = outcome->value("reason", "");
  } else {
    r.kind = ProbeResult::Kind::Ran;
    r.outcome = outcome_from_json(outcome->at("outcome"));
  }
  return r;
}

std::vector<ProbeResult> probe_cases(
    const std::vector<SubjectFactory>& factories, const std::vector<ProbeRequest>& requests,
    double timeout_s, int jobs,
    const std::function<void(std::size_t, const ProbeResult&)>& on_result) {
  std::vector<ProbeResult> results(requests.size());
  // One queue of request indices per subject, in the order first seen.
  std::deque<std::deque<std::size_t>> queue;
  {
    std::vector<std::string> subjects;
    for (std::size_t i = 0; i < requests.size(); ++i) {
      auto it = std::find(subjects.begin(), subjects.end(), requests[i].subject);
      if (it == subjects.end()) {
        subjects.push_back(requests[i].subject);
        queue.push_back({i});
      } else {
        queue[static_cast<std::size_t>(it - subjects.begin())].push_back(i);
      }
    }
  }
  struct Batch {
    worker::Child child;
    worker::LineBuffer lines;
    std::deque<std::size_t> left;  // not finished, in order
    std::optional<std::size_t> current;
    Clock::time_point since;
    bool timed_out = false;
    std::unique_ptr<worker::ProbesJob> job;  // read by the child only, kept alive for clarity
  };
  std::vector<std::unique_ptr<Batch>> running;
  auto finish = [&](std::size_t i, ProbeResult r) {
    results[i] = std::move(r);
    if (on_result) on_result(i, results[i]);
  };
  auto start = [&](std::deque<std::size_t> indices) {
    auto b = std::make_unique<Batch>();
    b->left = std::move(indices);
    b->job = std::make_unique<worker::ProbesJob>();
    b->job->factories = &factories;
    b->job->requests = &requests;
    b->job->indices.assign(b->left.begin(), b->left.end());
    std::vector<int> others;
    for (const auto& r : running) others.push_back(r->child.fd);
    const worker::ProbesJob& job = *b->job;
    b->child = worker::spawn([&job](int fd) { worker::probes_worker(fd, job); }, others);
    b->since = Clock::now();
    running.push_back(std::move(b));
  };
  auto handle = [&](Batch& b, const std::string& text) {
    nlohmann::json j;
    try {
      j = nlohmann::json::parse(text);
    } catch (const std::exception&) {
      return;  // not ours
    }
    const std::string t = j.value("t", "");
    if (t != "begin" && t != "outcome") return;
    const std::size_t i = j.value("i", std::size_t{0});
    if (t == "begin") {
      b.current = i;
      b.since = Clock::now();
      return;
    }
    ProbeResult r;
    if (j.value("status", "") == "skipped") {
      r.kind = ProbeResult::Kind::Skipped;
      r.reason = j.value("reason", "");
    } else {
      r.kind = ProbeResult::Kind::Ran;
      r.outcome = outcome_from_json(j.at("outcome"));
    }
    b.current.reset();
    b.left.erase(std::remove(b.left.begin(), b.left.end(), i), b.left.end());
    finish(i, std::move(r));
  };
  const int slots = std::max(1, jobs);
  while (!queue.empty() || !running.empty()) {
    while (static_cast<int>(running.size()) < slots && !queue.empty()) {
      start(std::move(queue.front()));
      queue.pop_front();
    }
    std::vector<pollfd> fds;
    for (const auto& b : running) fds.push_back({b->child.fd, POLLIN, 0});
    ::poll(fds.data(), fds.size(), 250);
    for (std::size_t k = 0; k < running.size();) {
      Batch& b = *running[k];
      const bool open = drain(b.child.fd, b.lines);
      while (auto line = b.lines.next()) handle(b, *line);
      if (open) {
        if (b.current && !b.timed_out && seconds_since(b.since) > timeout_s) {
          b.timed_out = true;
          ::kill(b.child.pid, SIGKILL);
        }
        ++k;
        continue;
      }
      int status = 0;
      while (::waitpid(b.child.pid, &status, 0) < 0 && errno == EINTR) {
      }
      ::close(b.child.fd);
      // The request in progress is charged with how the worker ended; one
      // that ended between requests charges the next, so that a worker
      // that cannot start is not started again for ever.
      if (!b.left.empty()) {
        const std::size_t charged = b.current ? *b.current : b.left.front();
        ProbeResult r;
        if (b.timed_out) {
          r.kind = ProbeResult::Kind::TimedOut;
          r.reason = "timeout";
        } else {
          r.kind = ProbeResult::Kind::Crashed;
          r.reason = exited_cleanly(status) ? "crash:early-exit" : crash_fingerprint(status);
        }
        b.left.erase(std::remove(b.left.begin(), b.left.end(), charged), b.left.end());
        finish(charged, std::move(r));
        if (!b.left.empty()) queue.push_front(std::move(b.left));
      }
      running.erase(running.begin() + static_cast<std::ptrdiff_t>(k));
    }
  }
  return results;
}

std::optional<Message> dump_in_worker(const std::vector<SubjectFactory>& factories,
                                      const std::string& subject, const TestCase& c,
                                      double timeout_s, std::string* why_not) {
  auto body = [&](int fd) {
    std::unique_ptr<Subject> s;
    for (const auto& f : factories) {
      if (f.name == subject) s = f.make();
    }
    if (!s) {
      worker::write_line(fd, {{"t", "error"}, {"message", "not in this build or not created"}});
      return;
    }
    if (auto reason = s->unavailable_reason()) {
      worker::write_line(fd, {{"t", "error"}, {"message", "unavailable: " + *reason}});
      return;
    }
    try {
      Message m = s->dumps(c.value, DumpOptions{c.protocol, c.out_of_band});
      worker::write_line(fd, {{"t", "message"}, {"message", message_to_json(m)}});
    } catch (const std::exception& e) {
      worker::write_line(fd, {{"t", "error"}, {"message", e.what()}});
    }
  };
  ChildRun run = run_child(body, timeout_s);
  const nlohmann::json* message = find_line(run, "message");
  const nlohmann::json* error = find_line(run, "error");
  std::string why;
  if (run.timed_out) {
    why = "timed out";
  } else if (message != nullptr && exited_cleanly(run.status)) {
    return message_from_json(message->at("message"));
  } else if (error != nullptr) {
    why = error->value("message", "failed");
  } else {
    why = "the worker died (" + crash_fingerprint(run.status) + ")";
  }
  if (why_not != nullptr) *why_not = why;
  return std::nullopt;
}

}  // namespace serialcheck
