// Tests of the gate's machinery: known-failures matching (every verdict),
// shard splitting, the report writers, the crash shrinker, case files and
// replay, and crash/timeout isolation of worker processes (with a test-only
// subject that aborts or hangs on some values).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <thread>

#include "harness/corpus/corpus.h"
#include "harness/corpus/replay.h"
#include "harness/props/coverage.h"
#include "harness/props/explain.h"
#include "harness/props/gate_props.h"
#include "harness/props/runner.h"
#include "harness/props/shrink.h"
#include "harness/props/value_tools.h"
#include "harness/report/json_report.h"
#include "harness/report/junit_report.h"
#include "harness/report/known_failures.h"
#include "harness/report/markdown_report.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/env.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;

// ---- known failures ---------------------------------------------------------

CellResult cell(std::string subject, std::string property, Verdict v, std::string fp = "") {
  CellResult c;
  c.subject = std::move(subject);
  c.property = std::move(property);
  c.verdict = v;
  c.cases = 10;
  c.fingerprint = std::move(fp);
  if (v == Verdict::Fail) c.message = "it broke";
  if (v == Verdict::Skip) c.skip_reason = "no capability";
  return c;
}

TEST(KnownFailures, ParsesEntriesCommentsAndGlobs) {
  auto known = parse_known_failures(
      "# a comment\n"
      "\n"
      "  # an indented comment\n"
      "cloudpickle cross.load exception:UnpicklingError@loads  loads fails\n"
      "*  roundtrip.*  mismatch:sharing two words\r\n");
  ASSERT_EQ(known.size(), 2u);
  EXPECT_EQ(known[0].subject, "cloudpickle");
  EXPECT_EQ(known[0].property, "cross.load");
  EXPECT_EQ(known[0].fingerprint, "exception:UnpicklingError@loads");
  EXPECT_EQ(known[0].reason, "loads fails");
  EXPECT_EQ(known[0].line, 4);
  EXPECT_TRUE(known[0].exact());
  EXPECT_FALSE(known[1].exact());
  EXPECT_EQ(known[1].reason, "two words");
  EXPECT_TRUE(known[1].matches("distributed", "roundtrip.identity"));
  EXPECT_FALSE(known[1].matches("distributed", "cross.load"));
  EXPECT_EQ(known[1].text(), "*  roundtrip.*  mismatch:sharing two words");
}

TEST(KnownFailures, HashInsideAnEntryBelongsToTheReason) {
  auto known = parse_known_failures(
      "cpython cross.load timeout hangs (upstream #123) # still\n"
      "cpython loads.pure impure:unstable #123\n");
  ASSERT_EQ(known.size(), 2u);
  EXPECT_EQ(known[0].reason, "hangs (upstream #123) # still");
  EXPECT_EQ(known[1].reason, "#123");
}

TEST(KnownFailures, RejectsEntriesWithoutReasonNamingTheLine) {
  try {
    parse_known_failures("# header\nreference roundtrip.equal mismatch:kind\n");
    FAIL() << "expected an error";
  } catch (const KnownFailuresError& e) {
    EXPECT_NE(std::string(e.what()).find("line 2"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_known_failures("reference roundtrip.equal\n"), KnownFailuresError);
}

TEST(KnownFailures, ListedFailureWithSameFingerprintIsExpected) {
  RunReport r;
  r.cells = {cell("cloudpickle", "cross.load", Verdict::Fail, "mismatch:kind")};
  apply_known_failures(parse_known_failures("cloudpickle cross.load mismatch:kind why\n"), r);
  EXPECT_EQ(r.cells[0].verdict, Verdict::ExpectedFail);
  EXPECT_EQ(r.cells[0].known_reason, "why");
  EXPECT_TRUE(r.lines_to_add.empty());
  EXPECT_TRUE(r.lines_to_remove.empty());
  EXPECT_TRUE(r.ok());
}

TEST(KnownFailures, NewFailureIsAFailAndPrintsTheLineToAdd) {
  RunReport r;
  r.cells = {cell("distributed", "loads.pure", Verdict::Fail, "impure:unstable")};
  apply_known_failures({}, r);
  EXPECT_EQ(r.cells[0].verdict, Verdict::Fail);
  ASSERT_EQ(r.lines_to_add.size(), 1u);
  EXPECT_EQ(r.lines_to_add[0], "distributed loads.pure impure:unstable it broke");
  // The printed line parses back and then makes the failure expected.
  RunReport again;
  again.cells = {cell("distributed", "loads.pure", Verdict::Fail, "impure:unstable")};
  apply_known_failures(parse_known_failures(r.lines_to_add[0]), again);
  EXPECT_EQ(again.cells[0].verdict, Verdict::ExpectedFail);
  EXPECT_FALSE(r.ok());
}

TEST(KnownFailures, OtherFingerprintFailsAndTheOldEntryIsStale) {
  RunReport r;
  r.cells = {cell("cpython", "cross.load", Verdict::Fail, "timeout")};
  apply_known_failures(parse_known_failures("cpython cross.load crash:SIGSEGV segfaults\n"), r);
  EXPECT_EQ(r.cells[0].verdict, Verdict::Fail);
  EXPECT_EQ(r.lines_to_add.size(), 1u);
  ASSERT_EQ(r.lines_to_remove.size(), 1u);
  EXPECT_EQ(r.lines_to_remove[0], "cpython cross.load crash:SIGSEGV segfaults");
  EXPECT_FALSE(r.ok());
}

TEST(KnownFailures, ExactEntryOnAPassingCellIsAnUnexpectedPass) {
  RunReport r;
  r.cells = {cell("cpython", "loads.pure", Verdict::Pass)};
  apply_known_failures(parse_known_failures("cpython loads.pure impure:unstable was flaky\n"), r);
  EXPECT_EQ(r.cells[0].verdict, Verdict::UnexpectedPass);
  EXPECT_EQ(r.cells[0].known_reason, "was flaky");
  ASSERT_EQ(r.lines_to_remove.size(), 1u);
  EXPECT_FALSE(r.ok());
}

TEST(KnownFailures, GlobEntryNeverMakesAnUnexpectedPassButGoesStale) {
  RunReport r;
  r.cells = {cell("cpython", "loads.pure", Verdict::Pass),
             cell("cloudpickle", "loads.pure", Verdict::Fail, "impure:unstable")};
  auto known = parse_known_failures("* loads.pure impure:unstable shared by all\n");
  apply_known_failures(known, r);
  EXPECT_EQ(r.cells[0].verdict, Verdict::Pass);
  EXPECT_EQ(r.cells[1].verdict, Verdict::ExpectedFail);
  EXPECT_TRUE(r.lines_to_remove.empty());
  EXPECT_TRUE(r.ok());

  RunReport fixed;
  fixed.cells = {cell("cpython", "loads.pure", Verdict::Pass),
                 cell("cloudpickle", "loads.pure", Verdict::Pass)};
  apply_known_failures(known, fixed);
  EXPECT_EQ(fixed.cells[1].verdict, Verdict::Pass);
  ASSERT_EQ(fixed.lines_to_remove.size(), 1u);
  EXPECT_FALSE(fixed.ok());
}

TEST(KnownFailures, AMissedFailureHoldsWhileItsSavedCaseStillFails) {
  auto known = parse_known_failures(
      "cloudpickle cross.load mismatch:kind rare but real\n"
      "cpython cross.load timeout gone\n");
  RunReport r;
  r.cells = {cell("cloudpickle", "cross.load", Verdict::Pass),
             cell("cpython", "cross.load", Verdict::Pass)};
  std::vector<std::string> asked;
  apply_known_failures(
      known, r, [&](const KnownFailure& k, const CellResult& c) -> std::optional<std::string> {
        asked.push_back(c.subject + " " + k.fingerprint);
        if (c.subject == "cloudpickle") return std::string("corpus/failing/x.json");
        return std::nullopt;
      });
  EXPECT_EQ(asked, (std::vector<std::string>{"cloudpickle mismatch:kind", "cpython timeout"}));
  EXPECT_EQ(r.cells[0].verdict, Verdict::ExpectedFail);
  EXPECT_EQ(r.cells[0].fingerprint, "mismatch:kind");
  EXPECT_EQ(r.cells[0].case_file, "corpus/failing/x.json");
  EXPECT_EQ(r.cells[1].verdict, Verdict::UnexpectedPass);
  ASSERT_EQ(r.lines_to_remove.size(), 1u);
  EXPECT_EQ(r.lines_to_remove[0], "cpython cross.load timeout gone");
  EXPECT_FALSE(r.ok());
}

TEST(KnownFailures, EntriesForCellsThatDidNotRunAreLeftAlone) {
  RunReport r;
  r.cells = {cell("cpython", "cross.load", Verdict::Skip)};
  apply_known_failures(parse_known_failures("cpython cross.load timeout slow\n"
                                            "distributed loads.pure timeout other shard\n"),
                       r);
  EXPECT_EQ(r.cells[0].verdict, Verdict::Skip);
  EXPECT_TRUE(r.lines_to_remove.empty());
  EXPECT_TRUE(r.lines_to_add.empty());
  EXPECT_TRUE(r.ok());
}

TEST(KnownFailures, MissingCoverageFailsOnlyWhenEnforced) {
  RunReport r;
  r.cells = {cell("reference", "roundtrip.equal", Verdict::Pass)};
  r.coverage.missing = {"POP_MARK"};
  EXPECT_TRUE(r.ok());
  EXPECT_TRUE(r.failure_reasons().empty());
  r.coverage.enforced = true;
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.failure_reasons(), std::vector<std::string>{"1 reference opcode(s) never emitted"});
}

TEST(KnownFailures, AFinishedCellIsJudgedByTheListAtOnce) {
  auto known = parse_known_failures("cpython cross.*  exception:E@loads/int listed\n");
  EXPECT_EQ(listed_verdict(known, cell("cpython", "cross.load", Verdict::Fail, "exception:E@loads/int")),
            Verdict::ExpectedFail);
  EXPECT_EQ(listed_verdict(known, cell("cpython", "cross.load", Verdict::Fail, "exception:E@loads/str")),
            Verdict::Fail);
  EXPECT_EQ(listed_verdict(known, cell("dill", "cross.load", Verdict::Fail, "exception:E@loads/int")),
            Verdict::Fail);
  EXPECT_EQ(listed_verdict(known, cell("cpython", "cross.load", Verdict::Pass)), Verdict::Pass);
}

// ---- shards -------------------------------------------------------------------

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

// ---- reports --------------------------------------------------------------------

RunReport sample_report() {
  RunReport r;
  r.version = "test";
  r.seed = 1234567890123ull;
  r.cases = 100;
  r.max_size = 100;
  r.subjects = {"reference", "cpython"};
  r.properties = {"roundtrip.equal", "cross.load"};
  r.cells = {cell("reference", "roundtrip.equal", Verdict::Pass),
             cell("reference", "cross.load", Verdict::Skip),
             cell("cpython", "roundtrip.equal", Verdict::Fail, "mismatch:kind"),
             cell("cpython", "cross.load", Verdict::ExpectedFail, "exception:Error@loads")};
  r.cells[1].skip_reason = "needs <cpython> & \"more\"";
  r.cells[2].message = "values differ at root[0]: kind <list> != 'tuple' & more";
  r.cells[2].explanation = "line one\nline two with ```fence```";
  r.cells[2].minimal_case = {{"value", {{"list", {1, 2}}}}, {"protocol", 2}};
  r.cells[2].case_file = "corpus/failing/cpython/roundtrip.equal/mismatch-kind-0000.json";
  r.cells[3].known_reason = "known & accepted";
  r.coverage.opcodes = {{"PROTO", {2, 3}}, {"STOP", {0, 1, 2}}};
  r.coverage.header_keys = {"protocol", "serializer"};
  r.coverage.missing = {"POP_MARK"};
  r.lines_to_add = {"cpython roundtrip.equal mismatch:kind values differ"};
  return r;
}

TEST(Reports, JsonParsesBackWithEveryCell) {
  RunReport r = sample_report();
  auto text = report_to_json(r).dump(2);
  auto j = nlohmann::json::parse(text);
  EXPECT_EQ(j["seed"].get<std::uint64_t>(), 1234567890123ull);
  ASSERT_EQ(j["cells"].size(), 4u);
  EXPECT_EQ(j["cells"][0]["verdict"], "pass");
  EXPECT_EQ(j["cells"][1]["verdict"], "skip");
  EXPECT_EQ(j["cells"][1]["skip_reason"], "needs <cpython> & \"more\"");
  EXPECT_EQ(j["cells"][2]["verdict"], "fail");
  EXPECT_EQ(j["cells"][2]["fingerprint"], "mismatch:kind");
  EXPECT_EQ(j["cells"][2]["case"]["protocol"], 2);
  EXPECT_EQ(j["cells"][2]["replay"],
            "serialcheck replay corpus/failing/cpython/roundtrip.equal/mismatch-kind-0000.json");
  EXPECT_EQ(j["cells"][3]["verdict"], "expected-fail");
  EXPECT_EQ(j["summary"]["fail"], 1);
  EXPECT_EQ(j["summary"]["expected-fail"], 1);
  EXPECT_EQ(j["coverage"]["opcodes"]["PROTO"], nlohmann::json::array({2, 3}));
  EXPECT_EQ(j["known_failures"]["add"].size(), 1u);
  EXPECT_EQ(j["ok"], false);
}

// Checks that every tag opened is closed in order, and counts elements.
std::map<std::string, int> check_xml(const std::string& xml) {
  std::map<std::string, int> counts;
  std::vector<std::string> open;
  std::size_t at = 0;
  while ((at = xml.find('<', at)) != std::string::npos) {
    auto end = xml.find('>', at);
    EXPECT_NE(end, std::string::npos);
    std::string tag = xml.substr(at + 1, end - at - 1);
    at = end + 1;
    if (tag.empty() || tag[0] == '?') continue;
    EXPECT_EQ(tag.find('<'), std::string::npos) << "unescaped < inside " << tag;
    if (tag[0] == '/') {
      EXPECT_FALSE(open.empty());
      if (!open.empty()) {
        EXPECT_EQ(open.back(), tag.substr(1));
        open.pop_back();
      }
      continue;
    }
    std::string name = tag.substr(0, tag.find_first_of(" /"));
    ++counts[name];
    if (tag.back() != '/') open.push_back(name);
  }
  EXPECT_TRUE(open.empty()) << "unclosed " << (open.empty() ? "" : open.back());
  return counts;
}

TEST(Reports, JunitIsWellFormedWithOneTestcasePerCell) {
  RunReport r = sample_report();
  std::string xml = junit_report(r);
  auto counts = check_xml(xml);
  EXPECT_EQ(counts["testsuites"], 1);
  EXPECT_EQ(counts["testcase"], 4);
  EXPECT_EQ(counts["skipped"], 1);
  EXPECT_EQ(counts["failure"], 1);
  EXPECT_NE(xml.find("tests=\"4\" failures=\"1\" skipped=\"1\""), std::string::npos);
  EXPECT_NE(xml.find("<skipped message=\"needs &lt;cpython&gt; &amp; &quot;more&quot;\"/>"),
            std::string::npos);
  EXPECT_NE(xml.find("classname=\"serialcheck.cpython\" name=\"roundtrip.equal\""),
            std::string::npos);
  EXPECT_EQ(xml_escape("a\x01<b>"), "a&lt;b&gt;");
}

TEST(Reports, MarkdownHasMatrixFailuresAndReplayCommand) {
  RunReport r = sample_report();
  std::string md = markdown_report(r);
  EXPECT_NE(md.find("| subject | roundtrip.equal | cross.load |"), std::string::npos);
  EXPECT_NE(md.find("| cpython | FAIL 10 | xfail 10 |"), std::string::npos);
  EXPECT_NE(md.find("serialcheck replay corpus/failing/cpython/roundtrip.equal/"),
            std::string::npos);
  EXPECT_NE(md.find("````\nline one"), std::string::npos);  // fence longer than the body's
  EXPECT_NE(md.find("POP_MARK"), std::string::npos);
  std::string matrix = matrix_text(r);
  EXPECT_NE(matrix.find("reference  pass 10"), std::string::npos) << matrix;
}

// ---- partial runs ------------------------------------------------------------------

RunReport budget_cut_report() {
  RunReport r;
  r.cells = {cell("reference", "roundtrip.equal", Verdict::Pass),
             cell("reference", "cross.load", Verdict::Skip),
             cell("cpython", "roundtrip.equal", Verdict::Skip),
             cell("cpython", "cross.load", Verdict::Skip)};
  r.cells[2].skip_reason = std::string(kTimeBudgetSkip) + "5 s was spent before this cell started";
  r.cells[3].skip_reason = r.cells[2].skip_reason;
  return r;
}

TEST(PartialRuns, ARunTheBudgetCutShortIsNeverAPass) {
  RunReport r = budget_cut_report();
  EXPECT_EQ(r.cells_not_run(), 2);
  EXPECT_FALSE(r.complete());
  EXPECT_FALSE(r.ok());
  EXPECT_EQ(r.verdict_word(), "INCOMPLETE");
  ASSERT_EQ(r.failure_reasons().size(), 1u);
  EXPECT_EQ(r.failure_reasons()[0],
            "only 2 of 4 cells ran: the time budget ran out before 2 started");
  // A capability skip is not a missing cell.
  r.cells[2].skip_reason = r.cells[3].skip_reason = "no capability";
  EXPECT_TRUE(r.complete());
  EXPECT_EQ(r.verdict_word(), "PASSED");
  // A failure and a cut: FAILED, and the reasons say both.
  r = budget_cut_report();
  r.cells[0] = cell("reference", "roundtrip.equal", Verdict::Fail, "mismatch:kind");
  EXPECT_EQ(r.verdict_word(), "FAILED");
  EXPECT_EQ(r.failure_reasons().size(), 2u);
}

TEST(PartialRuns, EveryReportSaysTheRunWasPartial) {
  RunReport r = budget_cut_report();
  auto j = report_to_json(r);
  EXPECT_EQ(j["ok"], false);
  EXPECT_EQ(j["complete"], false);
  EXPECT_EQ(j["verdict"], "incomplete");
  EXPECT_EQ(j["cells_run"], 2);
  EXPECT_EQ(j["cells_planned"], 4);
  EXPECT_EQ(j["summary"]["not-run"], 2);
  std::string md = markdown_report(r);
  EXPECT_NE(md.find("**INCOMPLETE**"), std::string::npos) << md;
  EXPECT_NE(md.find("only 2 of 4 cells ran"), std::string::npos) << md;
  std::string xml = junit_report(r);
  auto counts = check_xml(xml);
  EXPECT_EQ(counts["failure"], 1);
  EXPECT_NE(xml.find("name=\"run.complete\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<property name=\"complete\" value=\"false\"/>"), std::string::npos);
  RunReport full = budget_cut_report();
  full.cells.resize(2);
  EXPECT_EQ(junit_report(full).find("run.complete"), std::string::npos);
  EXPECT_EQ(report_to_json(full)["verdict"], "passed");
}

// ---- values, shrinking, explanations ---------------------------------------------

TestCase make_case(std::string_view json, int protocol = 2) {
  TestCase c;
  c.graph = std::make_shared<Graph>();
  c.value = from_json(json, *c.graph);
  c.protocol = protocol;
  return c;
}

bool contains_boom(const TestCase& c) {
  for (const Node* n : reachable(c.value)) {
    if (n->kind == Kind::Str && n->payload().rfind("boom", 0) == 0) return true;
  }
  return false;
}

TEST(Shrinker, FindsTheSmallestCaseThatStillFails) {
  TestCase c = make_case(
      R"({"list": [1, {"tuple": [{"float": "2.5"}, "boom!", {"dict": [["k", {"list": [3, 4]}]]}]},
                            {"set": [7, 8]}, {"bytes": "00ff"}]})");
  int attempts = 0;
  TestCase small = shrink_greedily(c, contains_boom, 500, &attempts);
  EXPECT_GT(attempts, 0);
  ASSERT_EQ(small.value->kind, Kind::Str);
  EXPECT_EQ(small.value->payload(), "boom!");
}

TEST(Shrinker, AWideContainerShrinksWithinACrashsProbeBudget) {
  // A thousand strs, failing while the list holds two or more items: the
  // runner's crash shrinker has 150 probes.
  std::string json = R"({"list": [)";
  for (int i = 0; i < 1000; ++i) json += (i ? ", \"k" : "\"k") + std::to_string(i) + "\"";
  json += "]}";
  TestCase c = make_case(json);
  auto two_or_more = [](const TestCase& t) {
    return t.value->kind == Kind::List && t.value->items.size() >= 2;
  };
  int attempts = 0;
  TestCase small = shrink_greedily(c, two_or_more, 150, &attempts);
  ASSERT_EQ(small.value->kind, Kind::List);
  EXPECT_EQ(small.value->items.size(), 2u);
  EXPECT_LT(attempts, 150);
}

TEST(Shrinker, EveryCandidateIsSmallerAndKeepsCyclesValid) {
  TestCase c = make_case(
      R"({"list": [{"id": 1, "list": [{"ref": 1}, "abc", 5]}, {"ref": 1},
                {"tuple": [true, {"float": "1.5"}]}]})",
      5);
  c.out_of_band = true;
  const std::string before = to_json(c.value);
  auto candidates = shrink_candidates(c);
  ASSERT_GT(candidates.size(), 5u);
  EXPECT_FALSE(candidates[0].out_of_band);  // first: the same value, buffers in band
  for (const auto& cand : candidates) {
    EXPECT_LT(case_size(cand), case_size(c)) << to_json(cand.value);
    EXPECT_NO_THROW(to_json(cand.value));
  }
  // Candidates are copies: the case itself is untouched.
  EXPECT_EQ(to_json(c.value), before);
}

TEST(Shrinker, LeavesSetItemsAndDictKeysAlone) {
  TestCase c = make_case(R"({"list": [{"set": [1, 2]}, {"dict": [[3, 4]]}]})");
  for (const auto& cand : shrink_candidates(c)) {
    for (const Node* n : reachable(cand.value)) {
      if (n->kind == Kind::Set && n->items.size() == 2) {
        EXPECT_FALSE(n->items[0]->small == n->items[1]->small) << to_json(cand.value);
      }
    }
  }
}

TEST(Values, SharingRules) {
  Graph g1, g2;
  // Two distinct equal strings vs one shared string.
  Node* a = from_json(R"({"list": ["xy", "xy"]})", g1);
  Node* b = from_json(R"({"list": [{"id": 1, "str": "xy"}, {"ref": 1}]})", g2);
  EXPECT_FALSE(equal(a, b));
  EXPECT_FALSE(equal_under(a, b, SharingRule::GlobalsByName));
  EXPECT_TRUE(equal_under(a, b, SharingRule::ImmutablesFree));
  // Shared lists must stay shared under every rule.
  Graph g3, g4;
  Node* c = from_json(R"({"list": [{"id": 1, "list": [1]}, {"ref": 1}]})", g3);
  Node* d = from_json(R"({"list": [{"list": [1]}, {"list": [1]}]})", g4);
  Difference why;
  EXPECT_FALSE(equal_under(c, d, SharingRule::ImmutablesFree, &why));
  EXPECT_NE(why.reason.find("sharing"), std::string::npos) << why.reason;
  // Globals are one object per name.
  Graph g5, g6;
  Node* e = from_json(R"({"list": [{"global": ["m", "f"]}, {"global": ["m", "f"]}]})", g5);
  Node* f = from_json(R"({"list": [{"id": 1, "global": ["m", "f"]}, {"ref": 1}]})", g6);
  EXPECT_FALSE(equal(e, f));
  EXPECT_TRUE(equal_under(e, f, SharingRule::GlobalsByName));
  // Cycles still count.
  Graph g7, g8;
  Node* x = from_json(R"({"id": 1, "list": [{"ref": 1}]})", g7);
  Node* y = from_json(R"({"list": [{"list": []}]})", g8);
  EXPECT_FALSE(equal_under(x, y, SharingRule::ImmutablesFree));
}

TEST(Explain, MarksTheFirstDivergence) {
  // pickle.dumps([1, 2], protocol=2) and the same with 3 for 2.
  std::string a("\x80\x02]q\x00(K\x01K\x02e.", 12);
  std::string b("\x80\x02]q\x00(K\x01K\x03e.", 12);
  auto d = diff_pickles(a, b, "cpython", "subject");
  EXPECT_FALSE(d.same);
  EXPECT_EQ(d.where, "argument");
  EXPECT_NE(d.summary.find("at offset 8"), std::string::npos) << d.summary;
  EXPECT_NE(d.explanation.find(">>"), std::string::npos);
  EXPECT_NE(d.explanation.find("memo before the divergence: cpython has 1"), std::string::npos)
      << d.explanation;
  // A stream cut short is shown up to its error.
  EXPECT_EQ(diff_pickles(a, std::string("\x80\x02]q\x00(K\x01", 7), "x", "y").where, "malformed");
  EXPECT_EQ(diff_pickles(a, std::string("\x80\x02]q\x00(K\x01Ne.", 10), "x", "y").where, "opcode");
  EXPECT_TRUE(diff_pickles(a, a, "x", "y").same);
}

TEST(Coverage, TheEmittableListAgreesWithTheOpcodeTable) {
  auto problems = coverage_list_problems();
  EXPECT_TRUE(problems.empty()) << problems.front();
  CoverageRecorder rec;
  Message m;
  m.header = {{"serializer", "pickle"}};
  m.frames.push_back(Frame::owned(std::string("\x80\x02N.", 4)));
  rec.record(m, 2);
  auto j = rec.to_json();
  EXPECT_EQ(j["opcodes"]["PROTO"], nlohmann::json::array({2}));
  EXPECT_EQ(j["header_keys"], nlohmann::json::array({"serializer"}));
  Coverage cov;
  cov.merge(j);
  auto missing = missing_opcodes(cov.opcodes);
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "PROTO"), 0);
  EXPECT_EQ(std::count(missing.begin(), missing.end(), "MARK"), 1);
}

// ---- case files ---------------------------------------------------------------

fs::path temp_dir(const std::string& name) {
  auto dir =
      fs::temp_directory_path() / ("serialcheck-gate-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(Corpus, SavedCasesNamePathsRelativeToWhereTheRunStarted) {
  auto dir = temp_dir("corpus-paths");
  const std::string cwd = fs::current_path().string();
  CaseRecord r;
  r.subject = "pypy-pickle";
  r.property = "roundtrip.equal";
  r.fingerprint = "exception:TypeError@dumps";
  r.message = "failed in " + cwd + "/harness/testees/python/serialcheck_testee.py";
  r.explanation = "Traceback:\n  File \"" + cwd +
                  "/harness/testees/python/serialcheck_testee.py\", line 1\n  File "
                  "\"/usr/lib/python3.11/copyreg.py\", line 76\n  File \"" + cwd + "2/other.py\"\n";
  r.test = make_case(R"({"list": [1]})");
  CaseRecord back = load_case(save_case(dir, r));
  EXPECT_EQ(back.message, "failed in harness/testees/python/serialcheck_testee.py");
  EXPECT_EQ(back.explanation,
            "Traceback:\n  File \"harness/testees/python/serialcheck_testee.py\", line 1\n  File "
            "\"/usr/lib/python3.11/copyreg.py\", line 76\n  File \"" + cwd + "2/other.py\"\n");
  // Control: the record the caller holds keeps its text.
  EXPECT_NE(r.explanation.find(cwd + "/harness"), std::string::npos);
  EXPECT_EQ(relative_to_directory("/a/bc /a/b/c", "/a/b"), "/a/bc c");
  EXPECT_EQ(relative_to_directory("/x/y", "/"), "/x/y");
  fs::remove_all(dir);
}

TEST(Corpus, SavesAndLoadsACaseFile) {
  auto dir = temp_dir("corpus");
  CaseRecord r;
  r.subject = "cloudpickle";
  r.property = "cross.load";
  r.fingerprint = "exception:UnpicklingError@reference-loads";
  r.seed = 42;
  r.message = "it failed";
  r.test = make_case(R"({"list": [{"id": 1, "list": [{"ref": 1}]}, {"bytes": "00"}]})", 5);
  r.test.out_of_band = true;
  r.test.max_protocol = 3;
  Message m;
  m.header = {{"serializer", "pickle"}};
  m.frames.push_back(Frame::owned("ab"));
  r.failing_message = message_to_json(m);
  auto path = save_case(dir, r);
  EXPECT_EQ(path.parent_path(), dir / "cloudpickle" / "cross.load");
  EXPECT_EQ(path.filename().string().rfind("exception-unpicklingerror-reference-loads-", 0), 0u)
      << path;
  EXPECT_EQ(save_case(dir, r), path);  // same case, same file
  CaseRecord back = load_case(path);
  EXPECT_EQ(back.subject, r.subject);
  EXPECT_EQ(back.fingerprint, r.fingerprint);
  EXPECT_EQ(back.seed, 42u);
  EXPECT_EQ(back.test.protocol, 5);
  EXPECT_TRUE(back.test.out_of_band);
  EXPECT_EQ(back.test.max_protocol, 3);
  EXPECT_TRUE(equal(back.test.value, r.test.value));
  EXPECT_EQ(message_from_json(back.failing_message).frames.at(0).view(), "ab");
  EXPECT_EQ(list_cases({dir}), std::vector<fs::path>{path});
  // Another case of the same failure finds the file already saved.
  CaseRecord other = r;
  other.test = make_case(R"({"list": [1]})");
  EXPECT_NE(case_path(dir, other), path);
  EXPECT_EQ(saved_case(dir, other), path);
  other.fingerprint = "exception:UnpicklingError@loads";
  EXPECT_EQ(saved_case(dir, other), std::nullopt);
  EXPECT_THROW(list_cases({dir / "nope"}), std::runtime_error);
  fs::remove_all(dir);
}

// ---- worker isolation ----------------------------------------------------------

// A subject that misbehaves on purpose, otherwise the reference: in Abort
// mode it aborts when asked to dump a list of two or more items, in Hang
// mode it hangs on a dict with an item.
class MisbehavingSubject : public ReferenceSubject {
 public:
  enum class Mode { Abort, Hang };
  explicit MisbehavingSubject(Mode mode) : mode_(mode) {}
  std::string name() const override { return "misbehaving"; }
  Message dumps(const Node* value, const DumpOptions& options) override {
    for (const Node* n : reachable(value)) {
      if (mode_ == Mode::Abort && n->kind == Kind::List && n->items.size() >= 2) std::abort();
      if (mode_ == Mode::Hang && n->kind == Kind::Dict && !n->items.empty()) {
        std::this_thread::sleep_for(std::chrono::seconds(120));
      }
    }
    return ReferenceSubject::dumps(value, options);
  }

 private:
  Mode mode_;
};

std::vector<SubjectFactory> test_factories(MisbehavingSubject::Mode mode) {
  return {{"reference", [] { return std::make_unique<ReferenceSubject>(); }},
          {"misbehaving", [mode] { return std::make_unique<MisbehavingSubject>(mode); }}};
}

TEST(Isolation, ACrashIsChargedToItsCaseShrunkAndTheSubjectGoesOn) {
  RunOptions o;
  o.factories = test_factories(MisbehavingSubject::Mode::Abort);
  o.cells = {{"misbehaving", "roundtrip.equal"},
             {"misbehaving", "loads.pure"},
             {"reference", "roundtrip.equal"}};
  o.cases = 40;
  o.seed = 11;
  o.jobs = 2;
  o.case_timeout_s = 60;
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
  RunOptions o;
  o.factories = test_factories(MisbehavingSubject::Mode::Hang);
  o.cells = {{"misbehaving", "roundtrip.identity"}};
  o.cases = 100;
  o.seed = 5;
  o.jobs = 1;
  o.case_timeout_s = 1;
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
  RunOptions o;
  o.factories = test_factories(MisbehavingSubject::Mode::Abort);
  o.cells = {{"reference", "zerocopy.device"}, {"reference", "protocol.negotiated"}};
  o.cases = 10;
  o.seed = 3;
  o.jobs = 1;
  o.case_timeout_s = 60;
  RunOutput out = run_cells(o);
  ASSERT_EQ(out.cells.size(), 2u);
  for (const CellResult& c : out.cells) {
    EXPECT_EQ(c.verdict, Verdict::Pass) << c.property << ": " << c.skip_reason << c.message;
  }
}

TEST(Isolation, ProbesReportCrashesOutcomesAndSkips) {
  auto factories = test_factories(MisbehavingSubject::Mode::Abort);
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

TEST(Replay, VerdictsFollowTheRecordedFingerprint) {
  auto dir = temp_dir("replay");
  auto factories = test_factories(MisbehavingSubject::Mode::Abort);
  auto write = [&](const std::string& subject, const std::string& fp, std::string_view value) {
    CaseRecord r;
    r.subject = subject;
    r.property = "roundtrip.equal";
    r.fingerprint = fp;
    r.test = make_case(value);
    return save_case(dir, r);
  };
  auto still = write("misbehaving", "crash:SIGABRT", R"({"list": [1, 2]})");
  auto changed = write("misbehaving", "timeout", R"({"list": [3, 4]})");
  auto fixed = write("reference", "mismatch:kind", R"({"list": [1, 2]})");
  auto absent = write("cloudpickle-9", "mismatch:kind", "null");
  std::ofstream(dir / "broken.json") << "{not json";
  EXPECT_EQ(replay_file(still, factories, 30).verdict, ReplayVerdict::StillFailing);
  auto r = replay_file(changed, factories, 30);
  EXPECT_EQ(r.verdict, ReplayVerdict::Changed);
  EXPECT_EQ(r.observed, "crash:SIGABRT");
  EXPECT_EQ(replay_file(fixed, factories, 30).verdict, ReplayVerdict::Fixed);
  EXPECT_EQ(replay_file(absent, factories, 30).verdict, ReplayVerdict::Skipped);
  EXPECT_EQ(replay_file(dir / "broken.json", factories, 30).verdict, ReplayVerdict::Invalid);
  EXPECT_TRUE(replay_verdict_fails(ReplayVerdict::Fixed));
  EXPECT_FALSE(replay_verdict_fails(ReplayVerdict::StillFailing));
  EXPECT_FALSE(replay_verdict_fails(ReplayVerdict::Skipped));
  fs::remove_all(dir);
}

// ---- the properties on the reference ----------------------------------------------

TEST(GateProperties, AllPassOnTheReferenceForFixedCases) {
  ReferenceSubject subject;
  ReferenceSubject helper;
  PropertyEnv env = test_support::env_with({{"reference", &helper}});
  TestCase c = make_case(R"({"list": [{"id": 1, "list": [{"ref": 1}, "a"]}, {"ref": 1},
                             {"buffer": "0102", "readonly": false}]})",
                         5);
  for (bool oob : {false, true}) {
    c.out_of_band = oob;
    for (const char* id : {"roundtrip.equal", "roundtrip.identity", "loads.pure"}) {
      Outcome o = check_case(*find_property(id), subject, c, env);
      EXPECT_EQ(o.status, Outcome::Status::Pass) << id << ": " << o.fingerprint << " " << o.message;
    }
  }
  c.max_protocol = 3;
  Outcome o = check_case(*find_property("protocol.mismatch"), subject, c, env);
  EXPECT_EQ(o.status, Outcome::Status::Pass) << o.message;
  // Without cpython, the properties that need it are skipped with a reason.
  auto a = find_property("bytes.match-cpython")->applies(subject, env);
  EXPECT_NE(a.skip_reason.find("cpython"), std::string::npos);
}

}  // namespace
}  // namespace serialcheck
