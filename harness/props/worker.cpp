#include "harness/props/worker.h"

#include <fcntl.h>
#include <rapidcheck.h>
#include <rapidcheck/Check.h>
#include <rapidcheck/detail/Configuration.h>
#include <rapidcheck/detail/TestListenerAdapter.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <iostream>
#include <map>
#include <stdexcept>

#include "harness/gen/fixtures.h"
#include "harness/props/coverage.h"
#include "harness/props/fingerprint.h"
#include "harness/props/gate_props.h"
#include "harness/props/shrink.h"
#include "harness/report/results.h"
#include "harness/subjects/external_subject.h"
#include "harness/subjects/phase_clock.h"

namespace serialcheck::worker {
namespace {

constexpr const char* kCoverageSubject = "reference";
// Checks the value shrinker may spend on a failure RapidCheck has shrunk.
constexpr int kValueShrinkSteps = 200;
// Seconds a cell may spend shrinking a failure, RapidCheck's and the value
// shrinker's together; then the smallest failing case found so far is the
// cell's. A testee that hangs costs its timeout at every candidate that
// still hangs, and a shrink of such a case would otherwise run for many
// minutes.
constexpr double kShrinkSeconds = 120;

struct Made {
  std::unique_ptr<Subject> subject;
  std::string why_not;
};

Made make_subject(const std::vector<SubjectFactory>& factories, const std::string& name) {
  Made m;
  for (const auto& f : factories) {
    if (f.name != name) continue;
    try {
      m.subject = f.make();
      if (!m.subject) {
        m.why_not = "could not be created";
      } else if (auto reason = m.subject->unavailable_reason()) {
        m.subject.reset();
        m.why_not = "unavailable: " + *reason;
      }
    } catch (const std::exception& e) {
      m.subject.reset();
      m.why_not = std::string("could not be created: ") + e.what();
    }
    return m;
  }
  m.why_not = "not in this build of serialcheck";
  return m;
}

// Passes everything through, charging the calls to the Subject phase
// (phase_clock.h; the subject's own scopes take out the bridge and the
// wait for a testee), and, with a recorder, records what dumps() wrote.
class TimedSubject : public Subject {
 public:
  TimedSubject(std::unique_ptr<Subject> owned, CoverageRecorder* recorder)
      : owned_(std::move(owned)), inner_(*owned_), recorder_(recorder) {}
  std::string name() const override { return inner_.name(); }
  // An external subject starts its testee for its first capabilities().
  Capabilities capabilities() const override {
    phase::Scope timed(phase::Phase::Start);
    return inner_.capabilities();
  }
  std::optional<std::string> unavailable_reason() const override {
    phase::Scope timed(phase::Phase::Start);
    return inner_.unavailable_reason();
  }
  std::string description() const override { return inner_.description(); }
  Message dumps(const Node* value, const DumpOptions& options) override {
    phase::Scope timed(phase::Phase::Subject);
    Message m = inner_.dumps(value, options);
    if (recorder_ != nullptr) recorder_->record(m, options.protocol);
    return m;
  }
  Node* loads(const Message& message, Graph& graph, const LoadOptions& options) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.loads(message, graph, options);
  }
  std::vector<LoadAttempt> try_loads(const std::vector<std::string>& streams, int protocol,
                                     const LoadOptions& options) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.try_loads(streams, protocol, options);
  }
  const families::FamilyRegistry* family_registry() const override {
    return inner_.family_registry();
  }
  ByValueOutcome by_value(const ByValueCase& c) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.by_value(c);
  }
  ClassLifeOutcome class_life(const ClassLifeCase& c) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.class_life(c);
  }
  std::string dumps_recipe(const std::string& recipe, int protocol) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.dumps_recipe(recipe, protocol);
  }
  RecipeLoad loads_recipe(const std::string& recipe, std::string_view pickle) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.loads_recipe(recipe, pickle);
  }
  PackedBytes pack(const Message& message, Compression codec) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.pack(message, codec);
  }
  Message unpack(std::span<const std::uint8_t> bytes) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.unpack(bytes);
  }
  PackedBytes dumps_packed(const Node* value, Compression codec) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.dumps_packed(value, codec);
  }
  Node* loads_packed(std::span<const std::uint8_t> bytes, Graph& graph) override {
    phase::Scope timed(phase::Phase::Subject);
    return inner_.loads_packed(bytes, graph);
  }
  bool external() const { return dynamic_cast<const ExternalSubject*>(&inner_) != nullptr; }

 private:
  std::unique_ptr<Subject> owned_;
  Subject& inner_;
  CoverageRecorder* recorder_;
};

// Makes helper subjects on first use, one instance per name. With a
// recorder, the reference's dumps count towards coverage here too.
class SubjectPool {
 public:
  explicit SubjectPool(const std::vector<SubjectFactory>& factories,
                       CoverageRecorder* recorder = nullptr)
      : factories_(factories), recorder_(recorder) {}

  // The subject under test answers for its own name, so that a property
  // can tell it from a helper by identity (never by name).
  void adopt(const std::string& name, Subject* subject) { adopted_[name] = subject; }

  // Ends a subject this worker no longer needs (an external testee: its
  // process is shut down), so that a worker serving many subjects in turn
  // does not keep every interpreter alive at once.
  void release(const std::string& name) {
    auto it = made_.find(name);
    if (it == made_.end() || !it->second.subject) return;
    const auto* timed = dynamic_cast<const TimedSubject*>(it->second.subject.get());
    if (timed == nullptr || !timed->external()) return;
    adopted_.erase(name);
    made_.erase(it);
  }

  Subject* get(const std::string& name, std::string* why_not) {
    if (auto a = adopted_.find(name); a != adopted_.end()) return a->second;
    auto it = made_.find(name);
    if (it == made_.end()) {
      phase::Scope timed(phase::Phase::Start);
      Made m = make_subject(factories_, name);
      if (m.subject) {
        m.subject = std::make_unique<TimedSubject>(std::move(m.subject),
                                                   name == kCoverageSubject ? recorder_ : nullptr);
      }
      it = made_.emplace(name, std::move(m)).first;
    }
    if (!it->second.subject && why_not != nullptr) *why_not = it->second.why_not;
    return it->second.subject.get();
  }

 private:
  const std::vector<SubjectFactory>& factories_;
  CoverageRecorder* recorder_;
  std::map<std::string, Made> made_;
  std::map<std::string, Subject*> adopted_;
};

// {"t":"case","n":N,"property":P,"case":{...}} in this order, which the
// runner reads without parsing the case (it needs it only if the worker
// dies or hangs in it).
void write_case_line(int fd, const std::string& property, int n, const TestCase& c) {
  std::string text = "{\"t\":\"case\",\"n\":" + std::to_string(n) +
                     ",\"property\":" + nlohmann::json(property).dump() +
                     ",\"case\":" + case_to_json_text(c) + "}\n";
  write_text(fd, text);
}

nlohmann::json skip_line(const std::string& property, const std::string& reason) {
  return {
      {"t", "cell"}, {"property", property}, {"status", "skip"}, {"cases", 0}, {"reason", reason}};
}

nlohmann::json run_cell(int fd, Subject& subject, const GateProperty& property, PropertyEnv& env,
                        const CellsJob& job) {
  Applicability a = applicability(property, subject, env);
  if (!a.skip_reason.empty()) return skip_line(property.id, a.skip_reason);

  int announced = 0;
  std::optional<std::pair<TestCase, Outcome>> last_failure;
  std::string last_discard;
  std::map<std::string, int> discarded;  // by reason, before the first failure
  std::map<std::string, int> passed_over;  // listed failures looked past, by fingerprint
  auto is_listed = [&](const Outcome& o) {
    return job.look_past_listed &&
           std::find(env.listed.begin(), env.listed.end(), o.fingerprint) != env.listed.end();
  };
  auto generator = case_generator(a.plan);
  std::optional<Clock::time_point> shrink_start;
  auto shrink_time_left = [&] {
    return !shrink_start ||
           std::chrono::duration<double>(Clock::now() - *shrink_start).count() < kShrinkSeconds;
  };
  auto check = [&] {
    // After the first failure RapidCheck is shrinking: all of it is Shrink.
    if (last_failure) phase::start_shrinking();
    // Past the shrinking budget, every further candidate is turned away
    // unrun, which ends RapidCheck's shrinking with the smallest so far.
    if (last_failure && !shrink_time_left()) RC_DISCARD("the shrinking budget is spent");
    std::optional<TestCase> drawn;
    {
      phase::Scope timed(phase::Phase::Generate);
      drawn.emplace(*generator);
    }
    TestCase& c = *drawn;
    ++announced;
    {
      phase::Scope timed(phase::Phase::Record);
      write_case_line(fd, property.id, announced, c);
    }
    Outcome o = check_case(property, subject, c, env);
    if (o.status == Outcome::Status::Discard) {
      last_discard = o.message;
      // After a failure RapidCheck is shrinking: its discards are not cases
      // the cell drew.
      if (!last_failure) ++discarded[o.discard_reason];
      RC_DISCARD(o.message);
    }
    if (o.failed() && is_listed(o)) {
      // Looked past: a pass for RapidCheck, so a listed failure neither ends
      // the cell nor, while an unlisted one shrinks, stands in for it.
      if (!last_failure) ++passed_over[o.fingerprint];
      return;
    }
    if (o.failed()) {
      std::string what = o.fingerprint + ": " + o.message;
      if (!shrink_start) shrink_start = Clock::now();
      last_failure.emplace(std::move(c), std::move(o));  // the last one seen is the minimal one
      RC_FAIL(what);
    }
  };
  rc::detail::TestMetadata metadata;
  metadata.id = subject.name() + "/" + property.id;
  metadata.description = metadata.id;
  rc::detail::TestParams params;
  params.seed = cell_seed(job.seed, subject.name(), property.id);
  params.maxSuccess = job.cases;
  params.maxSize = job.max_size;
  rc::detail::TestListenerAdapter quiet;
  auto result = rc::detail::checkProperty(rc::detail::toProperty(check), metadata, params, quiet);

  nlohmann::json line = {{"t", "cell"}, {"property", property.id}};
  if (!discarded.empty()) line["discarded"] = discarded;
  if (!passed_over.empty()) line["passed_over"] = passed_over;
  rc::detail::SuccessResult success;
  rc::detail::FailureResult failure;
  rc::detail::GaveUpResult gave_up;
  rc::detail::Error error;
  if (result.match(success)) {
    line["status"] = "pass";
    line["cases"] = success.numSuccess;
  } else if (result.match(failure)) {
    line["status"] = "fail";
    line["cases"] = failure.numSuccess + 1;
    nlohmann::json f;
    if (last_failure) {
      // RapidCheck shrinks the generator's choices; the runner's shrinker then
      // simplifies the value itself, keeping only steps that fail the same way.
      const std::string fingerprint = last_failure->second.fingerprint;
      auto same_failure = [&](const TestCase& candidate) {
        // An edit of real Python objects' description that the objects
        // built from it would not reduce to is no case of this value: it
        // would fail the bytes checks for that reason alone.
        if (candidate.python_objects &&
            !gen::rebuilds_to_itself(candidate.value, candidate.protocol)) {
          return false;
        }
        if (!shrink_time_left()) return false;
        ++announced;
        write_case_line(fd, property.id, announced, candidate);
        Outcome o = check_case(property, subject, candidate, env);
        // The cause must stay; the container it sits in may change.
        if (!o.failed() || is_listed(o) ||
            fingerprint_cause(o.fingerprint) != fingerprint_cause(fingerprint)) {
          return false;
        }
        last_failure->second = std::move(o);
        return true;
      };
      phase::start_shrinking();
      phase::Scope timed(phase::Phase::Shrink);
      TestCase smallest = shrink_greedily(last_failure->first, same_failure, kValueShrinkSteps);
      f = outcome_to_json(last_failure->second);
      f["case"] = case_to_json(smallest);
    } else {
      f = {{"status", "fail"},
           {"fingerprint", "error:rapidcheck"},
           {"message", failure.description}};
    }
    line["failure"] = std::move(f);
  } else if (result.match(gave_up)) {
    line["status"] = "skip";
    line["cases"] = gave_up.numSuccess;
    line["reason"] = "gave up after " + std::to_string(gave_up.numSuccess) +
                     " cases: too many discarded (" + last_discard + ")";
  } else {
    result.match(error);
    line["status"] = "fail";
    line["cases"] = announced;
    line["failure"] = {{"status", "fail"},
                       {"fingerprint", "error:rapidcheck"},
                       {"message", "RapidCheck could not run the property: " + error.description}};
  }
  return line;
}

// RapidCheck prints "Using configuration: ..." when it first reads its
// configuration; the worker's stderr belongs to the user's terminal.
void quiet_rapidcheck_configuration() {
  std::fflush(stderr);
  std::cerr.flush();
  int saved = ::dup(STDERR_FILENO);
  int null = ::open("/dev/null", O_WRONLY);
  if (saved < 0 || null < 0) return;
  ::dup2(null, STDERR_FILENO);
  (void)rc::detail::configuration();
  std::cerr.flush();
  ::dup2(saved, STDERR_FILENO);
  ::close(saved);
  ::close(null);
}

}  // namespace

void write_line(int fd, const nlohmann::json& j) {
  write_text(fd, j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace) + "\n");
}

void write_text(int fd, const std::string& text) {
  const char* p = text.data();
  std::size_t left = text.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0) {
      if (errno == EINTR) continue;
      _exit(4);  // the parent is gone
    }
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

std::optional<std::string> LineBuffer::next() {
  auto nl = buffer_.find('\n', start_);
  if (nl == std::string::npos) {
    if (start_ > 0) {
      buffer_.erase(0, start_);
      start_ = 0;
    }
    return std::nullopt;
  }
  std::string line = buffer_.substr(start_, nl - start_);
  start_ = nl + 1;
  if (start_ == buffer_.size()) {
    buffer_.clear();
    start_ = 0;
  }
  return line;
}

Child spawn(const std::function<void(int fd)>& body, const std::vector<int>& close_in_child) {
  int fds[2];
  if (::pipe(fds) != 0) throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    ::close(fds[0]);
    ::close(fds[1]);
    throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  }
  if (pid == 0) {
    ::close(fds[0]);
    for (int fd : close_in_child) ::close(fd);
    ::signal(SIGPIPE, SIG_DFL);
    try {
      body(fds[1]);
    } catch (...) {
      _exit(3);
    }
    _exit(0);
  }
  ::close(fds[1]);
  ::fcntl(fds[0], F_SETFL, ::fcntl(fds[0], F_GETFL) | O_NONBLOCK);
  return {pid, fds[0]};
}

// The subject a cell needs besides its own: a pair property's producer
// (cross.matrix and the other pair families).
std::string producer_of(const std::string& property) {
  auto pair = parse_pair_id(property);
  return pair ? pair->producer : std::string();
}

void cells_worker(int fd, const CellsJob& job) {
  quiet_rapidcheck_configuration();
  try {
    CoverageRecorder recorder;
    SubjectPool pool(*job.factories, &recorder);
    PropertyEnv env;
    env.subject = [&pool](const std::string& name, std::string* why_not) {
      return pool.get(name, why_not);
    };
    // The last cell that needs each subject, as the subject under test or
    // as a producer: after it, an external subject is shut down.
    std::map<std::string, std::size_t> last_use;
    for (std::size_t i = 0; i < job.cells.size(); ++i) {
      last_use[job.cells[i].subject] = i;
      if (auto producer = producer_of(job.cells[i].property); !producer.empty()) {
        last_use[producer] = i;
      }
    }
    for (std::size_t i = 0; i < job.cells.size(); ++i) {
      const std::string& name = job.cells[i].subject;
      const std::string& id = job.cells[i].property;
      write_line(fd, {{"t", "cell-start"}, {"subject", name}, {"property", id}});
      auto skipped = [&](const std::string& reason) {
        nlohmann::json line = skip_line(id, reason);
        line["subject"] = name;
        write_line(fd, line);
      };
      if (job.deadline && Clock::now() >= *job.deadline) {
        skipped(std::string(kTimeBudgetSkip) +
                std::to_string(static_cast<long>(job.time_budget_s)) +
                " s was spent before this cell started");
        continue;
      }
      const GateProperty* property = find_property(id);
      if (property == nullptr) {
        skipped("no such property");
        continue;
      }
      // Made after the cell-start line, so that a hang here has a cell to
      // charge; one instance per name for the whole worker, which is also
      // the instance the properties get as a helper.
      phase::reset();
      const Clock::time_point cell_start = Clock::now();
      std::string why_not;
      Subject* subject = pool.get(name, &why_not);
      if (subject == nullptr) {
        skipped(why_not);
        continue;
      }
      pool.adopt(name, subject);
      env.listed = job.listed ? job.listed(job.cells[i]) : std::vector<std::string>{};
      nlohmann::json line = run_cell(fd, *subject, *property, env, job);
      line["subject"] = name;
      // The phases, and "other": the cell's time here that none took.
      const phase::Totals spent = phase::totals();
      const double wall = std::chrono::duration<double>(Clock::now() - cell_start).count();
      double charged = 0;
      nlohmann::json time = nlohmann::json::object();
      for (std::size_t p = 0; p < phase::kPhaseCount; ++p) {
        time[std::string(phase::kPhaseNames[p])] = spent[p];
        charged += spent[p];
      }
      time["other"] = std::max(0.0, wall - charged);
      line["time"] = std::move(time);
      if (!recorder.empty()) {
        line["coverage"] = recorder.to_json();
        recorder = CoverageRecorder();
      }
      write_line(fd, line);
      for (const auto& [used, last] : last_use) {
        if (last == i) pool.release(used);
      }
    }
    write_line(fd, {{"t", "done"}});
  } catch (const std::exception& e) {
    write_line(fd, {{"t", "error"}, {"message", e.what()}});
    _exit(3);
  }
  _exit(0);
}

namespace {

// One probe in a worker: {"t":"outcome","status":"ran","outcome":{...}} or
// {"t":"outcome","status":"skipped","reason":R}. The subject comes from
// `pool` (made by the first probe that needs it, then kept).
nlohmann::json probe_line(SubjectPool& pool, PropertyEnv& env, const std::string& subject_name,
                          const std::string& property_id, const TestCase& test,
                          const std::string& fingerprint) {
  env.replaying = fingerprint;
  auto skipped = [](const std::string& reason) -> nlohmann::json {
    return {{"t", "outcome"}, {"status", "skipped"}, {"reason", reason}};
  };
  const GateProperty* property = find_property(property_id);
  if (property == nullptr) return skipped("no property \"" + property_id + "\"");
  std::string why_not;
  Subject* subject = pool.get(subject_name, &why_not);
  if (subject == nullptr) return skipped(why_not);
  pool.adopt(subject_name, subject);
  Applicability a = applicability(*property, *subject, env);
  if (!a.skip_reason.empty()) return skipped(a.skip_reason);
  Outcome o = check_case(*property, *subject, test, env);
  return {{"t", "outcome"}, {"status", "ran"}, {"outcome", outcome_to_json(o)}};
}

}  // namespace

void probe_worker(int fd, const ProbeJob& job) {
  try {
    SubjectPool pool(*job.factories);
    PropertyEnv env;
    env.subject = [&pool](const std::string& name, std::string* why_not) {
      return pool.get(name, why_not);
    };
    write_line(fd, probe_line(pool, env, job.subject, job.property, *job.test, job.fingerprint));
  } catch (const std::exception& e) {
    write_line(fd, {{"t", "error"}, {"message", e.what()}});
    _exit(3);
  }
  _exit(0);
}

void probes_worker(int fd, const ProbesJob& job) {
  try {
    SubjectPool pool(*job.factories);
    PropertyEnv env;
    env.subject = [&pool](const std::string& name, std::string* why_not) {
      return pool.get(name, why_not);
    };
    for (std::size_t i : job.indices) {
      const ProbeRequest& request = (*job.requests)[i];
      write_line(fd, {{"t", "begin"}, {"i", i}});
      nlohmann::json line = probe_line(pool, env, request.subject, request.property, *request.test,
                                       request.fingerprint);
      line["i"] = i;
      write_line(fd, line);
    }
    write_line(fd, {{"t", "done"}});
  } catch (const std::exception& e) {
    write_line(fd, {{"t", "error"}, {"message", e.what()}});
    _exit(3);
  }
  _exit(0);
}

}  // namespace serialcheck::worker
