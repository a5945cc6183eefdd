// The gate's runner (harness/props/runner.h): shard splitting and cell
// seeds, and crash and timeout isolation in worker processes, with a
// test-only subject that aborts or hangs on some values.
#include "harness/props/runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "harness/props/value_tools.h"
#include "harness/report/results.h"
#include "harness/subjects/mutant_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::make_case;
using test_support::misbehaving_factories;
using test_support::MisbehavingSubject;

TEST(Shards, SplitTheCellsDisjointlyAndCompletely) {
  std::vector<std::string> subjects = {"reference", "cpython", "cloudpickle"};
  std::vector<std::string> properties = {"a", "b", "c", "d", "e", "f"};
  auto all = plan_cells(subjects, properties, 0, 1);
  ASSERT_EQ(all.size(), 18u);
  EXPECT_EQ(all[0].subject, "reference");
  EXPECT_EQ(all[0].property, "a");
  EXPECT_EQ(all[6].subject, "cpython");
  for (int n : {2, 4, 5, 18, 25}) {
    std::multiset<std::string> seen;
    for (int i = 0; i < n; ++i) {
      auto shard = plan_cells(subjects, properties, i, n);
      auto again = plan_cells(subjects, properties, i, n);
      ASSERT_EQ(shard.size(), again.size());
      for (std::size_t k = 0; k < shard.size(); ++k) {
        EXPECT_EQ(shard[k].subject + shard[k].property, again[k].subject + again[k].property);
        seen.insert(shard[k].subject + "/" + shard[k].property);
      }
      // Round robin: shard sizes differ by at most one.
      EXPECT_LE(shard.size(), (all.size() + n - 1) / n);
      EXPECT_GE(shard.size(), all.size() / n);
    }
    EXPECT_EQ(seen.size(), all.size()) << n << " shards";
    for (const auto& c : all) EXPECT_EQ(seen.count(c.subject + "/" + c.property), 1u);
  }
  auto second = plan_cells(subjects, properties, 1, 4);
  ASSERT_FALSE(second.empty());
  EXPECT_EQ(second[0].property, "b");  // index 1
  EXPECT_EQ(second[1].property, "f");  // index 5
}

TEST(Shards, CellSeedsDependOnlyOnTheRunSeedAndTheCell) {
  EXPECT_EQ(cell_seed(7, "cpython", "cross.load"), cell_seed(7, "cpython", "cross.load"));
  EXPECT_NE(cell_seed(7, "cpython", "cross.load"), cell_seed(8, "cpython", "cross.load"));
  EXPECT_NE(cell_seed(7, "cpython", "cross.load"), cell_seed(7, "cpython", "loads.pure"));
  EXPECT_NE(cell_seed(7, "cpython", "cross.load"), cell_seed(7, "cloudpickle", "cross.load"));
}

// The runner's options for `cells` of the reference and the misbehaving
// subject: `cases` cases each from `seed`, `jobs` workers, a case timeout.
RunOptions options(MisbehavingSubject::Mode mode, std::vector<CellId> cells, int cases,
                   std::uint64_t seed, int jobs, double case_timeout_s) {
  RunOptions o;
  o.factories = misbehaving_factories(mode);
  o.cells = std::move(cells);
  o.cases = cases;
  o.seed = seed;
  o.jobs = jobs;
  o.case_timeout_s = case_timeout_s;
  return o;
}

TEST(Isolation, ACrashIsChargedToItsCaseShrunkAndTheSubjectGoesOn) {
  RunOptions o = options(MisbehavingSubject::Mode::Abort,
                         {{"misbehaving", "roundtrip.equal"},
                          {"misbehaving", "loads.pure"},
                          {"reference", "roundtrip.equal"}},
                         40, 11, 2, 60);
  int finished = 0;
  o.on_event = [&](const RunEvent& e) {
    if (e.kind == RunEvent::Kind::CellFinished) ++finished;
  };
  RunOutput out = run_cells(o);
  ASSERT_EQ(out.cells.size(), 3u);
  EXPECT_EQ(finished, 3);
  for (int i : {0, 1}) {
    const CellResult& c = out.cells[i];
    EXPECT_EQ(c.verdict, Verdict::Fail) << c.property << " " << c.skip_reason;
    EXPECT_EQ(c.fingerprint, "crash:SIGABRT");
    ASSERT_FALSE(c.minimal_case.is_null());
    // Shrunk to the smallest thing that still aborts: a list of exactly two
    // items, none of which aborts on its own.
    TestCase minimal = case_from_json(c.minimal_case);
    EXPECT_EQ(minimal.value->kind, Kind::List) << c.minimal_case.dump();
    EXPECT_EQ(minimal.value->items.size(), 2u) << c.minimal_case.dump();
  }
  EXPECT_EQ(out.cells[2].verdict, Verdict::Pass);
  EXPECT_EQ(out.cells[2].cases, 40);
  // The parent process never ran the subject: it is still here to check.
}

TEST(Isolation, AHangIsAFailedTimeoutNotAStuckRun) {
  RunOptions o = options(MisbehavingSubject::Mode::Hang, {{"misbehaving", "roundtrip.identity"}},
                         100, 5, 1, 1);
  o.shrink_attempts_timeout = 1;
  RunOutput out = run_cells(o);
  ASSERT_EQ(out.cells.size(), 1u);
  const CellResult& c = out.cells[0];
  EXPECT_EQ(c.verdict, Verdict::Fail);
  EXPECT_EQ(c.fingerprint, "timeout");
  ASSERT_FALSE(c.minimal_case.is_null());
  // The announced case is the one that hung: it holds a dict with an item.
  TestCase hung = case_from_json(c.minimal_case);
  bool has_dict = false;
  for (const Node* n : reachable(hung.value))
    has_dict |= n->kind == Kind::Dict && !n->items.empty();
  EXPECT_TRUE(has_dict) << c.minimal_case.dump();
}

// The family properties reach the reference's families through the worker,
// which wraps the reference to record its coverage.
TEST(Isolation, FamilyPropertiesRunOnTheReferenceInAWorker) {
  RunOptions o = options(MisbehavingSubject::Mode::Abort,
                         {{"reference", "zerocopy.device"}, {"reference", "protocol.negotiated"}},
                         10, 3, 1, 60);
  RunOutput out = run_cells(o);
  ASSERT_EQ(out.cells.size(), 2u);
  for (const CellResult& c : out.cells) {
    EXPECT_EQ(c.verdict, Verdict::Pass) << c.property << ": " << c.skip_reason << c.message;
  }
}

TEST(Isolation, ProbesReportCrashesOutcomesAndSkips) {
  auto factories = misbehaving_factories(MisbehavingSubject::Mode::Abort);
  TestCase crash = make_case(R"({"list": [1, 2]})");
  TestCase fine = make_case(R"({"list": [1]})");
  auto p = probe_case(factories, "misbehaving", "roundtrip.equal", crash, 30);
  EXPECT_EQ(p.kind, ProbeResult::Kind::Crashed);
  EXPECT_EQ(p.reason, "crash:SIGABRT");
  p = probe_case(factories, "misbehaving", "roundtrip.equal", fine, 30);
  EXPECT_EQ(p.kind, ProbeResult::Kind::Ran);
  EXPECT_EQ(p.outcome.status, Outcome::Status::Pass);
  p = probe_case(factories, "nobody", "roundtrip.equal", fine, 30);
  EXPECT_EQ(p.kind, ProbeResult::Kind::Skipped);
}

}  // namespace
}  // namespace serialcheck

namespace serialcheck {
namespace {

// ---- the version matrix's planning and shared workers -------------------------

TEST(MatrixPairs, AnchorsPairWithEveryoneAndOthersWithinTheirGroup) {
  const std::map<std::string, std::string> groups = {
      {"cpython-3.7", "versions"}, {"cpython-3.14-wasm", "versions"}, {"dill-3.7", "interpreters"}};
  auto planned = [&](const std::string& consumer, const std::string& producer) {
    return matrix_pair_planned({consumer, "cross.matrix/" + producer}, groups);
  };
  // Every version reads every version, and the anchors both ways.
  EXPECT_TRUE(planned("cpython-3.7", "cpython-3.14-wasm"));
  EXPECT_TRUE(planned("cpython-3.14-wasm", "cpython-3.7"));
  EXPECT_TRUE(planned("cpython-3.7", "reference"));
  EXPECT_TRUE(planned("reference", "cpython-3.7"));
  EXPECT_TRUE(planned("cpython", "cpython-3.14-wasm"));
  EXPECT_TRUE(planned("dill-3.7", "cpython"));
  EXPECT_TRUE(planned("pypy-pickle", "zodbpickle"));  // the main matrix, as before
  // Negative controls: pairs across groups, and producers in no matrix.
  EXPECT_FALSE(planned("pypy-pickle", "cpython-3.7"));
  EXPECT_FALSE(planned("cpython-3.7", "pypy-pickle"));
  EXPECT_FALSE(planned("cpython-3.7", "dill-3.7"));
  EXPECT_FALSE(planned("reference", "dill-3.7"));
  EXPECT_FALSE(planned("dill-3.7", "cpython-3.7"));
  EXPECT_FALSE(planned("cpython-3.7", "reference@3.7"));
  // Other properties are not the planner's business.
  EXPECT_TRUE(matrix_pair_planned({"dill-3.7", "roundtrip.equal"}, groups));
}

// The reference under another name, whose every making is recorded (in a
// file: subjects are made in forked workers) with the worker's pid.
class RecordedReference : public ReferenceSubject {
 public:
  explicit RecordedReference(std::string name) : name_(std::move(name)) {}
  std::string name() const override { return name_; }

 private:
  std::string name_;
};

std::vector<std::pair<std::string, long>> made_in(const std::string& file) {
  std::vector<std::pair<std::string, long>> out;
  std::ifstream in(file);
  std::string name;
  long pid = 0;
  while (in >> name >> pid) out.emplace_back(name, pid);
  return out;
}

RunOptions recorded_options(const std::string& file) {
  RunOptions o;
  for (std::string name : {"writer", "reader"}) {
    o.factories.push_back({name, [name, file]() -> std::unique_ptr<Subject> {
                             std::ofstream(file, std::ios::app)
                                 << name << " " << ::getpid() << "\n";
                             return std::make_unique<RecordedReference>(name);
                           }});
  }
  o.factories.push_back({"reference", [] { return std::make_unique<ReferenceSubject>(); }});
  o.cells = {{"writer", "roundtrip.equal"},
             {"reader", "roundtrip.equal"},
             {"reader", "cross.matrix/writer"}};
  o.cases = 10;
  o.seed = 3;
  o.jobs = 2;
  o.case_timeout_s = 60;
  return o;
}

TEST(SharedWorkers, ASubjectIsMadeOncePerWorkerForAllItsCells) {
  const std::string file = ::testing::TempDir() + "shared_workers_made.txt";
  std::remove(file.c_str());
  RunOptions o = recorded_options(file);
  o.worker_key = [](const CellId&) { return std::string("interpreters#0"); };
  RunOutput out = run_cells(o);
  ASSERT_EQ(out.cells.size(), 3u);
  for (const auto& c : out.cells) {
    EXPECT_EQ(c.verdict, Verdict::Pass) << c.subject << " " << c.property << " " << c.message;
    EXPECT_EQ(c.cases, 10) << c.subject << " " << c.property;
  }
  EXPECT_EQ(out.cells[2].subject, "reader");
  EXPECT_EQ(out.cells[2].property, "cross.matrix/writer");
  auto made = made_in(file);
  ASSERT_EQ(made.size(), 2u);  // the writer once, though it was also the reader's producer
  EXPECT_EQ(made[0].second, made[1].second);  // one worker
}

TEST(SharedWorkers, WithoutAKeyEachSubjectHasItsOwnWorker) {
  // The control: one worker per subject makes the writer again in the
  // reader's worker, as its producer.
  const std::string file = ::testing::TempDir() + "own_workers_made.txt";
  std::remove(file.c_str());
  RunOutput out = run_cells(recorded_options(file));
  for (const auto& c : out.cells) EXPECT_EQ(c.verdict, Verdict::Pass) << c.message;
  auto made = made_in(file);
  EXPECT_EQ(made.size(), 3u);
  EXPECT_EQ(
      std::count_if(made.begin(), made.end(), [](const auto& m) { return m.first == "writer"; }),
      2);
}

TEST(SharedWorkers, APairCellWithATesteeProducerRunsInTheProducersWorker) {
  auto key = worker_key_for({{"cpython-3.12-wasm", "interpreters#1"}},
                            {"writer", "cpython-3.12-wasm", "other-testee"});
  EXPECT_EQ(key({"reader", "cross.matrix/writer"}), "writer");
  EXPECT_EQ(key({"reader", "cross.load"}), "reader");
  EXPECT_EQ(key({"writer", "roundtrip.equal"}), "writer");
  // A shared worker stays the producer's key.
  EXPECT_EQ(key({"reference", "cross.matrix/cpython-3.12-wasm"}), "interpreters#1");
  EXPECT_EQ(key({"cpython-3.12-wasm", "cross.matrix/reference"}), "interpreters#1");
  // A testee consumer keeps its own worker: it would start there anyway.
  EXPECT_EQ(key({"other-testee", "cross.matrix/writer"}), "other-testee");
  // A built-in producer does not move the cell.
  EXPECT_EQ(key({"reader", "cross.matrix/reference"}), "reader");

  // In a run: the writer, named a testee, is made once, in one worker with
  // the reader's pair cell; its own cells' verdicts are those of separate
  // workers (WithoutAKeyEachSubjectHasItsOwnWorker, the control, makes the
  // writer twice).
  const std::string file = ::testing::TempDir() + "pair_workers_made.txt";
  std::remove(file.c_str());
  RunOptions o = recorded_options(file);
  o.worker_key = worker_key_for({}, {"writer"});
  RunOutput out = run_cells(o);
  for (const auto& c : out.cells) {
    EXPECT_EQ(c.verdict, Verdict::Pass) << c.subject << " " << c.property << " " << c.message;
  }
  auto made = made_in(file);
  EXPECT_EQ(
      std::count_if(made.begin(), made.end(), [](const auto& m) { return m.first == "writer"; }),
      1);
}

// Each subject's probes in one worker, the subject made once there; the
// control (probe_case, a fresh worker each) makes it once per probe.
TEST(ManyProbes, ASubjectIsMadeOnceForAllItsCases) {
  const std::string file = ::testing::TempDir() + "many_probes_made.txt";
  std::remove(file.c_str());
  RunOptions o = recorded_options(file);
  std::vector<TestCase> cases = {make_case("1"), make_case(R"({"list": [1, 2]})"),
                                 make_case(R"("text")")};
  std::vector<ProbeRequest> requests;
  for (const auto& c : cases) requests.push_back({"writer", "roundtrip.equal", &c});
  requests.push_back({"reader", "loads.pure", &cases[0]});
  requests.push_back({"nobody", "roundtrip.equal", &cases[0]});
  std::vector<std::size_t> ended;
  auto results = probe_cases(o.factories, requests, 30, 2,
                             [&](std::size_t i, const ProbeResult&) { ended.push_back(i); });
  ASSERT_EQ(results.size(), 5u);
  for (std::size_t i = 0; i < 4; ++i) {
    EXPECT_EQ(results[i].kind, ProbeResult::Kind::Ran) << i << " " << results[i].reason;
    EXPECT_EQ(results[i].outcome.status, Outcome::Status::Pass) << i;
  }
  EXPECT_EQ(results[4].kind, ProbeResult::Kind::Skipped);
  std::sort(ended.begin(), ended.end());
  EXPECT_EQ(ended, (std::vector<std::size_t>{0, 1, 2, 3, 4}));
  auto made = made_in(file);
  EXPECT_EQ(std::count_if(made.begin(), made.end(), [](const auto& m) { return m.first == "writer"; }),
            1);

  std::remove(file.c_str());
  for (const auto& c : cases) {
    EXPECT_EQ(probe_case(o.factories, "writer", "roundtrip.equal", c, 30).kind,
              ProbeResult::Kind::Ran);
  }
  made = made_in(file);
  EXPECT_EQ(std::count_if(made.begin(), made.end(), [](const auto& m) { return m.first == "writer"; }),
            3);
}

// A case that crashes or hangs is charged with it, as probe_case charges
// it, and the subject's other cases go on in a fresh worker.
TEST(ManyProbes, CrashesAndHangsAreChargedToTheirCase) {
  const TestCase crash = make_case(R"({"list": [1, 2]})");
  const TestCase hang = make_case(R"({"dict": [[1, 2]]})");
  const TestCase fine = make_case(R"({"list": [1]})");
  auto aborting = misbehaving_factories(MisbehavingSubject::Mode::Abort);
  auto results = probe_cases(aborting,
                             {{"misbehaving", "roundtrip.equal", &fine},
                              {"misbehaving", "roundtrip.equal", &crash},
                              {"misbehaving", "roundtrip.equal", &fine},
                              {"misbehaving", "roundtrip.equal", &crash},
                              {"reference", "roundtrip.equal", &crash}},
                             30, 2);
  ASSERT_EQ(results.size(), 5u);
  for (std::size_t i : {0u, 2u, 4u}) {
    EXPECT_EQ(results[i].kind, ProbeResult::Kind::Ran) << i << " " << results[i].reason;
    EXPECT_EQ(results[i].outcome.status, Outcome::Status::Pass) << i;
  }
  for (std::size_t i : {1u, 3u}) {
    EXPECT_EQ(results[i].kind, ProbeResult::Kind::Crashed) << i;
    EXPECT_EQ(results[i].reason, "crash:SIGABRT") << i;
  }
  auto hanging = misbehaving_factories(MisbehavingSubject::Mode::Hang);
  auto hung = probe_cases(hanging,
                          {{"misbehaving", "roundtrip.equal", &hang},
                           {"misbehaving", "roundtrip.equal", &fine}},
                          2, 1);
  ASSERT_EQ(hung.size(), 2u);
  EXPECT_EQ(hung[0].kind, ProbeResult::Kind::TimedOut);
  EXPECT_EQ(hung[0].reason, "timeout");
  EXPECT_EQ(hung[1].kind, ProbeResult::Kind::Ran);
  EXPECT_EQ(hung[1].outcome.status, Outcome::Status::Pass);
}

TEST(Phases, EveryCellSaysWhereItsTimeWent) {
  RunOptions o = recorded_options(::testing::TempDir() + "phases_made.txt");
  RunOutput out = run_cells(o);
  for (const auto& c : out.cells) {
    ASSERT_EQ(c.verdict, Verdict::Pass) << c.message;
    for (std::string_view phase : {"generate", "record", "start", "subject", "bridge", "testee",
                                   "compare", "shrink", "other"}) {
      EXPECT_EQ(c.phases.count(std::string(phase)), 1u) << c.property << " " << phase;
    }
    // Ten cases were drawn, announced and given to the subject: each took time.
    EXPECT_GT(c.phases.at("generate"), 0) << c.property;
    EXPECT_GT(c.phases.at("record"), 0) << c.property;
    EXPECT_GT(c.phases.at("subject"), 0) << c.property;
    EXPECT_GT(c.phases.at("compare"), 0) << c.property;
    // No testee here, and nothing failed.
    EXPECT_EQ(c.phases.at("testee"), 0) << c.property;
    EXPECT_EQ(c.phases.at("shrink"), 0) << c.property;
    // The worker's clock against the runner's: they differ by the pipe's
    // latency only.
    double charged = 0;
    for (const auto& [phase, spent] : c.phases) charged += spent;
    EXPECT_NEAR(charged, c.seconds, 0.25) << c.property;
  }
}

TEST(Phases, AFailingCellChargesItsShrinkingToShrink) {
  // A subject that loads every tuple as a list fails roundtrip.equal and is
  // shrunk inside the worker: that time is Shrink, and the cases before the
  // failure keep their phases.
  RunOptions o;
  o.factories = {{"tuples-as-lists", [] { return make_mutant_subject("tuples-as-lists"); }},
                 {"reference", [] { return std::make_unique<ReferenceSubject>(); }}};
  o.cells = {{"tuples-as-lists", "roundtrip.equal"}};
  o.cases = 100;
  o.seed = 5;
  RunOutput out = run_cells(o);
  ASSERT_EQ(out.cells.size(), 1u);
  const CellResult& c = out.cells[0];
  ASSERT_EQ(c.verdict, Verdict::Fail) << c.message;
  EXPECT_GT(c.phases.at("shrink"), 0);
  EXPECT_GT(c.phases.at("generate"), 0);
  double charged = 0;
  for (const auto& [phase, spent] : c.phases) charged += spent;
  EXPECT_NEAR(charged, c.seconds, 0.25);
}

TEST(Phases, AWorkerThatDiesSendsNone) {
  RunOptions o = options(MisbehavingSubject::Mode::Abort, {{"misbehaving", "loads.pure"}}, 40, 11,
                         1, 60);
  RunOutput out = run_cells(o);
  ASSERT_EQ(out.cells.size(), 1u);
  EXPECT_EQ(out.cells[0].fingerprint, "crash:SIGABRT");
  EXPECT_TRUE(out.cells[0].phases.empty());
}

}  // namespace
}  // namespace serialcheck
