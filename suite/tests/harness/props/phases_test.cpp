// Where a cell's time goes (harness/subjects/phase_clock.h), and the case
// record a worker announces before each case (case_to_json_text), which
// must say what case_to_json says.
#include "harness/subjects/phase_clock.h"

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <chrono>
#include <cstdint>
#include <thread>

#include "harness/props/case.h"
#include "harness/props/gate_props.h"

namespace serialcheck {
namespace {

using namespace std::chrono_literals;

double seconds_since(std::chrono::steady_clock::time_point t) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

double at(const phase::Totals& t, phase::Phase p) { return t[static_cast<std::size_t>(p)]; }

// Lower bounds only (a sleep lasts at least what it asks), and the sum
// against the wall clock: time charged twice would exceed it.
TEST(PhaseClock, NestedScopesChargeEachInstantOnce) {
  phase::reset();
  const auto start = std::chrono::steady_clock::now();
  {
    phase::Scope subject(phase::Phase::Subject);
    std::this_thread::sleep_for(10ms);
    {
      phase::Scope bridge(phase::Phase::Bridge);
      std::this_thread::sleep_for(30ms);
    }
    std::this_thread::sleep_for(10ms);
  }
  const double wall = seconds_since(start);
  const phase::Totals t = phase::totals();
  EXPECT_GE(at(t, phase::Phase::Subject), 0.020);
  EXPECT_GE(at(t, phase::Phase::Bridge), 0.030);
  double sum = 0;
  for (double s : t) sum += s;
  EXPECT_LE(sum, wall);
  EXPECT_EQ(at(t, phase::Phase::Generate), 0);
}

TEST(PhaseClock, StartAndShrinkKeepWhatRunsInsideThem) {
  phase::reset();
  {
    phase::Scope start(phase::Phase::Start);
    phase::Scope hello(phase::Phase::Testee);  // a testee's hello is part of its start
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_GE(at(phase::totals(), phase::Phase::Start), 0.020);
  EXPECT_EQ(at(phase::totals(), phase::Phase::Testee), 0);

  phase::start_shrinking();
  {
    phase::Scope generate(phase::Phase::Generate);
    std::this_thread::sleep_for(20ms);
  }
  EXPECT_GE(at(phase::totals(), phase::Phase::Shrink), 0.020);
  EXPECT_EQ(at(phase::totals(), phase::Phase::Generate), 0);

  // reset() ends shrinking and zeroes every phase.
  phase::reset();
  {
    phase::Scope generate(phase::Phase::Generate);
    std::this_thread::sleep_for(5ms);
  }
  EXPECT_GE(at(phase::totals(), phase::Phase::Generate), 0.005);
  EXPECT_EQ(at(phase::totals(), phase::Phase::Shrink), 0);
  EXPECT_EQ(at(phase::totals(), phase::Phase::Start), 0);
}

TEST(PhaseClock, OutsideEveryScopeNothingIsCharged) {
  phase::reset();
  std::this_thread::sleep_for(10ms);
  for (double s : phase::totals()) EXPECT_EQ(s, 0);
}

// The gate's own cases, graphs and buffers and Python objects included:
// the text parses to exactly case_to_json's document.
TEST(CaseRecord, TheTextIsTheDocument) {
  for (bool python_safe : {false, true}) {
    CasePlan plan;
    plan.python_safe = python_safe;
    plan.graph_shaped = true;
    plan.out_of_band = true;
    plan.python_objects = python_safe;
    plan.ndarrays = true;
    const rc::Gen<TestCase> cases = case_generator(plan);
    rc::Random random(20261207);
    for (int i = 0; i < 200; ++i) {
      TestCase c = cases(random.split(), i % 100).value();
      c.max_protocol = i % 6;
      const std::string text = case_to_json_text(c);
      EXPECT_EQ(nlohmann::json::parse(text), case_to_json(c)) << text.substr(0, 400);
    }
  }
  // The control: a case that differs in one option is told apart.
  TestCase c;
  c.graph = std::make_shared<Graph>();
  c.value = c.graph->none();
  TestCase other = c;
  other.python_objects = true;
  EXPECT_NE(nlohmann::json::parse(case_to_json_text(other)), case_to_json(c));
}

}  // namespace
}  // namespace serialcheck
