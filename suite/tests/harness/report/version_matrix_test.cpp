// The version matrix (harness/report/version_matrix.h): the cross.matrix
// cells among the CPython subjects as a writer version x reader version
// table in conformance.md and conformance.json. Negative controls: a cell
// whose verdict changes changes the section, and a run with one CPython
// subject has none.
#include "harness/report/version_matrix.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "harness/report/json_report.h"
#include "harness/report/markdown_report.h"
#include "harness/report/results.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::cell;

// Every subject writes for every subject; the subjects listed out of order
// so that the sort is what puts them in version order.
RunReport version_run(std::vector<std::string> subjects) {
  RunReport r;
  r.version = "test";
  r.seed = 7;
  r.cases = 20;
  r.subjects = subjects;
  for (const auto& s : subjects) r.properties.push_back("cross.matrix/" + s);
  for (const auto& reader : subjects) {
    for (const auto& writer : subjects) {
      CellResult c =
          cell(reader, "cross.matrix/" + writer, reader == writer ? Verdict::Skip : Verdict::Pass);
      c.cases = reader == writer ? 0 : 20;
      r.cells.push_back(c);
    }
  }
  r.python_versions = {{"cpython", "3.11.2"}};
  return r;
}

RunReport sample() {
  return version_run({"reference", "cpython-3.13", "cpython", "cpython-3.12-wasm", "cpython-3.7",
                      "cpython-2.7", "cpython-3.12", "cpython-3.10-wasm"});
}

CellResult& find(RunReport& r, const std::string& reader, const std::string& writer) {
  for (auto& c : r.cells) {
    if (c.subject == reader && c.property == "cross.matrix/" + writer) return c;
  }
  throw std::runtime_error("no cell " + reader + " / " + writer);
}

// The table row of `label` in the section.
std::string row_of(const std::string& section, const std::string& label) {
  const std::string start = "\n| " + label + " |";
  auto at = section.find(start);
  if (at == std::string::npos) return "";
  return section.substr(at + 1, section.find('\n', at + 1) - at - 1);
}

std::vector<std::string> labels(const std::vector<VersionMatrixEntry>& entries) {
  std::vector<std::string> out;
  for (const auto& e : entries) out.push_back(e.label());
  return out;
}

TEST(VersionMatrix, SortsByVersionNativeEmbeddedWasmThenReference) {
  const VersionMatrix m = version_matrix(sample());
  const std::vector<std::string> expected = {"2.7",  "3.7",       "3.10 wasm", "3.11 (embedded)",
                                             "3.12", "3.12 wasm", "3.13",      "reference"};
  EXPECT_EQ(labels(m.writers), expected);
  EXPECT_EQ(labels(m.readers), expected);
  EXPECT_EQ(m.versions, 7);
  EXPECT_TRUE(m.present());
}

TEST(VersionMatrix, VersionFromTheRunThenTheName) {
  RunReport r = sample();
  r.python_versions["cpython-3.7"] = "3.7.16";
  auto v = subject_python_version(r, "cpython-3.7");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->version, "3.7.16");
  EXPECT_EQ(v->series, "3.7");
  EXPECT_EQ(v->source, "subject");
  v = subject_python_version(r, "cpython-3.12-wasm");
  ASSERT_TRUE(v.has_value());
  EXPECT_EQ(v->series, "3.12");
  EXPECT_EQ(v->source, "name");
  EXPECT_FALSE(subject_python_version(r, "pickle-py-3.12").has_value());
  EXPECT_FALSE(subject_python_version(r, "cpython-3.x").has_value());
  EXPECT_FALSE(subject_python_version(r, "reference").has_value());

  const auto j = report_to_json(r);
  EXPECT_EQ(j["python_versions"]["cpython-3.7"]["version"], "3.7.16");
  EXPECT_EQ(j["python_versions"]["cpython-3.13"]["source"], "name");
  EXPECT_EQ(j["python_versions"]["cpython"]["series"], "3.11");
  ASSERT_TRUE(j["version_matrix"].is_object());
  EXPECT_EQ(j["version_matrix"]["writers"][0]["subject"], "cpython-2.7");
  EXPECT_EQ(j["version_matrix"]["readers"][2]["label"], "3.10 wasm");
  EXPECT_EQ(j["version_matrix"]["readers"][2]["kind"], "wasm");
  EXPECT_EQ(j["version_matrix"]["writers"].back()["kind"], "reference");
}

TEST(VersionMatrix, MarkdownSectionHasEveryPairWithItsVerdictAndCases) {
  RunReport r = sample();
  find(r, "cpython-2.7", "cpython-3.13").verdict = Verdict::Fail;
  find(r, "cpython-2.7", "cpython-3.13").cases = 3;
  find(r, "cpython-3.10-wasm", "cpython-3.7").verdict = Verdict::ExpectedFail;
  find(r, "cpython-3.10-wasm", "cpython-3.7").cases = 5;
  const std::string md = markdown_report(r);
  const auto at = md.find("\n## Version matrix\n");
  ASSERT_NE(at, std::string::npos) << md;
  const std::string section = md.substr(at);
  EXPECT_NE(section.find("| writer \\ reader | 2.7 | 3.7 | 3.10 wasm | 3.11 (embedded) | 3.12 | "
                         "3.12 wasm | 3.13 | reference |"),
            std::string::npos)
      << section;
  // The 3.13 writer's row: 2.7 fails after 3 cases, everyone else passes.
  EXPECT_EQ(row_of(section, "3.13"),
            "| 3.13 | ✗ **FAIL** 3 | ✓ pass 20 | ✓ pass 20 | ✓ pass 20 | ✓ pass 20 | ✓ pass 20 | "
            "· | ✓ pass 20 |");
  EXPECT_EQ(row_of(section, "3.7"),
            "| 3.7 | ✓ pass 20 | · | ✗ xfail 5 | ✓ pass 20 | ✓ pass 20 | ✓ pass 20 | ✓ pass 20 | "
            "✓ pass 20 |");
  EXPECT_NE(section.find("Pairs: 54 pass, 1 fail, 1 expected fail, 0 unexpected pass, 0 skip, 0 "
                         "not run, 0 not planned."),
            std::string::npos)
      << section;
  EXPECT_NE(section.find("![version matrix](versions.png)"), std::string::npos);
}

TEST(VersionMatrix, AChangedVerdictChangesTheSection) {
  RunReport r = sample();
  const std::string before = version_matrix_markdown(r);
  ASSERT_FALSE(before.empty());
  find(r, "cpython-3.12", "cpython-3.12-wasm").verdict = Verdict::Fail;
  const std::string after = version_matrix_markdown(r);
  EXPECT_NE(before, after);
  EXPECT_NE(row_of(before, "3.12 wasm"), row_of(after, "3.12 wasm"));
  EXPECT_NE(row_of(after, "3.12 wasm").find("✗ **FAIL** 20"), std::string::npos)
      << row_of(after, "3.12 wasm");
  // Only that row changed.
  for (const char* label : {"2.7", "3.7", "3.12", "3.13", "reference"}) {
    EXPECT_EQ(row_of(before, label), row_of(after, label)) << label;
  }
}

TEST(VersionMatrix, SkipsNotRunAndUnplannedPairsAreNamed) {
  RunReport r = version_run({"cpython-3.8", "cpython-3.9", "reference"});
  find(r, "cpython-3.9", "cpython-3.8").verdict = Verdict::Skip;
  find(r, "cpython-3.9", "cpython-3.8").skip_reason = std::string(kTimeBudgetSkip) + "60 s ran out";
  find(r, "cpython-3.8", "cpython-3.9").verdict = Verdict::Skip;
  std::erase_if(r.cells, [](const CellResult& c) {
    return c.subject == "reference" && c.property == "cross.matrix/cpython-3.9";
  });
  const std::string section = version_matrix_markdown(r);
  EXPECT_EQ(row_of(section, "3.8"), "| 3.8 | · | not run | ✓ pass 20 |");
  EXPECT_EQ(row_of(section, "3.9"), "| 3.9 | skip | · | - |");
  EXPECT_NE(section.find("1 skip, 1 not run, 1 not planned."), std::string::npos) << section;
}

TEST(VersionMatrix, ARunOfOneVersionHasNoSection) {
  // Negative control: the reference and one CPython are no version matrix.
  for (const auto& subjects : std::vector<std::vector<std::string>>{
           {"reference", "cpython"}, {"reference", "cpython-3.7"}, {"cpython-3.12"}}) {
    RunReport r = version_run(subjects);
    EXPECT_EQ(version_matrix_markdown(r), "");
    EXPECT_EQ(markdown_report(r).find("## Version matrix"), std::string::npos);
    EXPECT_TRUE(report_to_json(r)["version_matrix"].is_null());
  }
  // The same run with a second version has one.
  RunReport r = version_run({"reference", "cpython", "cpython-3.7"});
  EXPECT_NE(markdown_report(r).find("## Version matrix"), std::string::npos);
  EXPECT_TRUE(report_to_json(r)["version_matrix"].is_object());
}

TEST(VersionMatrix, OtherSubjectsStayOut) {
  RunReport r =
      version_run({"cpython-3.7", "pickle-py-3.7", "reference@3.7", "cpython-3.8", "negates-ints"});
  const VersionMatrix m = version_matrix(r);
  EXPECT_EQ(labels(m.writers), (std::vector<std::string>{"3.7", "3.8"}));
  EXPECT_EQ(labels(m.readers), (std::vector<std::string>{"3.7", "3.8"}));
}

}  // namespace
}  // namespace serialcheck

namespace serialcheck {
namespace {

// The other pair families (protocol.negotiated/<producer>, ...) stay out of
// the subjects x properties table, which would otherwise grow a column per
// producer and family: each family gets a section listing the pairs that
// ran and counting those skipped.
TEST(PairSections, ListThePairsThatRanAndCountTheSkipped) {
  RunReport r;
  r.version = "test";
  r.seed = 7;
  r.cases = 20;
  r.subjects = {"cpython-3.7", "cpython-3.13"};
  r.properties = {"roundtrip.equal", "protocol.negotiated/cpython-3.13",
                  "protocol.negotiated/cpython-3.7"};
  r.cells.push_back(cell("cpython-3.7", "roundtrip.equal", Verdict::Pass));
  r.cells.push_back(cell("cpython-3.13", "roundtrip.equal", Verdict::Pass));
  r.cells.push_back(cell("cpython-3.7", "protocol.negotiated/cpython-3.13", Verdict::Pass));
  r.cells.push_back(cell("cpython-3.13", "protocol.negotiated/cpython-3.7", Verdict::Skip));
  r.cells.push_back(cell("cpython-3.7", "protocol.negotiated/cpython-3.7", Verdict::Skip));
  const std::string md = markdown_report(r);
  EXPECT_NE(md.find("| subject | roundtrip.equal |\n"), std::string::npos) << md;
  EXPECT_EQ(md.find("| protocol.negotiated/cpython-3.13 |"), std::string::npos) << md;
  const auto section = md.find("## Pairs of protocol.negotiated");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_NE(md.find("2 more pairs were skipped", section), std::string::npos) << md;
  EXPECT_NE(md.find("| cpython-3.13 | cpython-3.7 | pass ", section), std::string::npos) << md;
  // Negative control: a pair that did not run is not listed as a row.
  EXPECT_EQ(md.find("| cpython-3.7 | cpython-3.13 |", section), std::string::npos) << md;
  const std::string text = matrix_text(r);
  EXPECT_NE(text.find("protocol.negotiated: producer"), std::string::npos) << text;
  EXPECT_NE(text.find("(2 more pairs skipped)"), std::string::npos) << text;
}

}  // namespace
}  // namespace serialcheck
