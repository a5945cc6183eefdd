// The report writers (harness/report/): JSON, JUnit XML and Markdown with
// every cell, and a run the time budget cut short, which every report says
// was partial and never a pass.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/report/json_report.h"
#include "harness/report/junit_report.h"
#include "harness/report/markdown_report.h"
#include "harness/report/results.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::cell;

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

TEST(Reports, EveryReportSaysWhereTheTimeWent) {
  RunReport r = sample_report();
  r.cells[0].seconds = 2.0;
  r.cells[0].cases = 100;
  r.cells[0].phases = {{"generate", 0.5}, {"subject", 1.0}, {"compare", 0.25}, {"other", 0.25}};
  r.cells[2].seconds = 1.0;
  r.cells[2].cases = 7;
  r.cells[2].phases = {{"generate", 0.1}, {"shrink", 0.6}, {"other", 0.3}};
  // A cell with no phases (its worker died) reports none.
  const auto j = report_to_json(r);
  ASSERT_TRUE(j["cells"][0].contains("time"));
  EXPECT_DOUBLE_EQ(j["cells"][0]["time"]["subject"].get<double>(), 1.0);
  EXPECT_DOUBLE_EQ(j["cells"][0]["time"]["other"].get<double>(), 0.25);
  EXPECT_DOUBLE_EQ(j["cells"][2]["time"]["other"].get<double>(), 0.3);
  EXPECT_FALSE(j["cells"][1].contains("time"));
  EXPECT_FALSE(j["cells"][3].contains("time"));

  const std::string md = markdown_report(r);
  ASSERT_NE(md.find("## Where the time went"), std::string::npos) << md;
  // By subject, the slower first; shares of each row's seconds.
  const auto reference_row = md.find("| reference | 1 | 100 | 2.0 | 50 | 25% |");
  const auto cpython_row = md.find("| cpython | 1 | 7 | 1.0 | 7 | 10% |");
  EXPECT_NE(reference_row, std::string::npos) << md;
  EXPECT_NE(cpython_row, std::string::npos) << md;
  EXPECT_LT(reference_row, cpython_row);
  EXPECT_NE(md.find("| roundtrip.equal | 2 | 107 | 3.0 |"), std::string::npos) << md;

  // The control: a run whose workers sent no phases has no such section.
  EXPECT_EQ(markdown_report(sample_report()).find("Where the time went"), std::string::npos);
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

}  // namespace
}  // namespace serialcheck
