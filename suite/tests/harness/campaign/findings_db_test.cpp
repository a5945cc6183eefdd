// The findings database (harness/campaign/findings_db.h): a cell counts once
// however often it is merged, the smaller case is kept, two processes
// merging at once lose nothing, ids resolve from a prefix, a recheck marks
// a finding gone; and unit documents (units.h) are read as the run wrote them.
#include "harness/campaign/findings_db.h"

#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <set>

#include "harness/campaign/campaign.h"
#include "harness/campaign/units.h"
#include "harness/corpus/corpus.h"
#include "suite/tests/support/gate.h"
#include "suite/tests/support/scratch.h"

namespace serialcheck::campaign {
namespace {

namespace fs = std::filesystem;
using test_support::make_case;

CellKey cell(std::uint64_t seed, const std::string& subject, const std::string& property) {
  CellKey k;
  k.seed = seed;
  k.subject = subject;
  k.property = property;
  k.cases = 100;
  k.max_size = 100;
  return k;
}

CellFinding failure(const std::string& subject, const std::string& property,
                    const std::string& value_json, const std::string& version = "") {
  CellFinding f;
  f.subject = subject;
  f.property = property;
  f.fingerprint = "mismatch:value";
  f.message = "differs: " + value_json;
  f.version = version;
  CaseRecord r;
  r.subject = subject;
  r.property = property;
  r.fingerprint = f.fingerprint;
  r.message = f.message;
  r.test = make_case(value_json);
  f.record = r;
  return f;
}

class FindingsDbTest : public test_support::FilesTest {};

TEST_F(FindingsDbTest, ACellCountsOnceHoweverOftenItIsMerged) {
  FindingsDb db(dir_ / "db");
  const std::vector<CellKey> cells = {cell(7, "fake", "roundtrip.equal"),
                                      cell(7, "fake", "roundtrip.identity")};
  const std::vector<CellFinding> fails = {
      failure("fake", "roundtrip.equal", R"({"list": [1, 2]})")};
  MergeResult first = db.merge(7, cells, fails);
  EXPECT_EQ(first.cells_merged, 2);
  ASSERT_EQ(first.created.size(), 1u);
  EXPECT_EQ(first.created[0].hits, 1);
  // The same unit again (a retried task, a campaign started again at the
  // same seed): nothing is counted.
  MergeResult again = db.merge(7, cells, fails);
  EXPECT_EQ(again.cells_merged, 0);
  EXPECT_EQ(again.cells_repeated, 2);
  EXPECT_TRUE(again.created.empty());
  // Another seed is another cell: a second hit.
  db.merge(8, {cell(8, "fake", "roundtrip.equal")}, fails);
  const auto all = db.findings();
  ASSERT_EQ(all.size(), 1u);
  EXPECT_EQ(all[0].hits, 2);
  EXPECT_EQ(all[0].first_seed, 7u);
  EXPECT_EQ(all[0].seeds, (std::vector<std::uint64_t>{7, 8}));
  EXPECT_EQ(db.totals().cells, 3);
  EXPECT_EQ(db.totals().seeds, 2);
  // Control: a failure whose cell is not among the unit's cells adds nothing.
  MergeResult stray = db.merge(9, {}, fails);
  EXPECT_TRUE(stray.created.empty());
  EXPECT_EQ(db.findings()[0].hits, 2);
  // A lower seed merged later (its unit ended last) is the first seed: the
  // same seeds give the same first seed whichever unit ends first.
  db.merge(5, {cell(5, "fake", "roundtrip.equal")}, fails);
  EXPECT_EQ(db.findings()[0].first_seed, 5u);
  db.merge(6, {cell(6, "fake", "roundtrip.equal")}, fails);
  EXPECT_EQ(db.findings()[0].first_seed, 5u) << "a higher seed leaves it";
}

TEST_F(FindingsDbTest, KeepsTheSmallerCaseAndItReplaysAsSaved) {
  FindingsDb db(dir_ / "db");
  db.merge(1, {cell(1, "fake", "roundtrip.equal")},
           {failure("fake", "roundtrip.equal", R"({"list": [1, 2, 3, 4]})", "3.11.2")});
  const Finding big = db.findings().at(0);
  db.merge(2, {cell(2, "fake", "roundtrip.equal")},
           {failure("fake", "roundtrip.equal", R"({"list": [1]})", "3.12.1")});
  const Finding small = db.findings().at(0);
  EXPECT_LT(small.case_size, big.case_size);
  EXPECT_NE(small.case_file, big.case_file);
  EXPECT_FALSE(fs::exists(db.dir() / big.case_file)) << "the larger case is dropped";
  EXPECT_EQ(small.versions, (std::vector<std::string>{"3.11.2", "3.12.1"}));
  // A larger case later does not replace it.
  db.merge(3, {cell(3, "fake", "roundtrip.equal")},
           {failure("fake", "roundtrip.equal", R"({"list": [5, 6, 7]})")});
  EXPECT_EQ(db.findings().at(0).case_file, small.case_file);
  // The kept file is a corpus case, in corpus/failing's layout.
  CaseRecord r = load_case(db.case_path(small));
  EXPECT_EQ(r.subject, "fake");
  EXPECT_EQ(r.fingerprint, "mismatch:value");
  EXPECT_EQ(small.case_file.rfind("cases/fake/roundtrip.equal/", 0), 0u) << small.case_file;
}

TEST_F(FindingsDbTest, TwoProcessesMergingAtOnceLoseNothing) {
  const fs::path path = dir_ / "db";
  FindingsDb(path).merge(0, {}, {});
  constexpr int kSeeds = 40;
  pid_t children[2];
  for (int c = 0; c < 2; ++c) {
    children[c] = ::fork();
    ASSERT_GE(children[c], 0);
    if (children[c] == 0) {
      FindingsDb db(path);
      for (int i = 0; i < kSeeds; ++i) {
        // The two processes interleave seeds; both hit one finding, and
        // each has one of its own.
        const std::uint64_t seed = static_cast<std::uint64_t>(i * 2 + c);
        db.merge(seed, {cell(seed, "fake", "roundtrip.equal"), cell(seed, "fake", "own")},
                 {failure("fake", "roundtrip.equal", R"({"list": [1]})"),
                  failure("fake", "own", c == 0 ? R"({"list": [0]})" : R"({"list": [2]})")});
      }
      ::_exit(0);
    }
  }
  for (pid_t child : children) {
    int status = 0;
    ::waitpid(child, &status, 0);
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
  }
  FindingsDb db(path);
  std::vector<std::string> problems;
  const auto all = db.findings(&problems);
  EXPECT_TRUE(problems.empty());
  ASSERT_EQ(all.size(), 2u);
  int shared_hits = 0;
  int own_hits = 0;
  for (const auto& f : all) (f.property == "own" ? own_hits : shared_hits) = f.hits;
  EXPECT_EQ(shared_hits, 2 * kSeeds);
  EXPECT_EQ(own_hits, 2 * kSeeds);
  EXPECT_EQ(db.totals().cells, 4 * kSeeds);
  // No temporary file was left behind.
  for (const auto& e : fs::recursive_directory_iterator(path)) {
    EXPECT_EQ(e.path().string().find(".tmp"), std::string::npos) << e.path();
  }
}

TEST_F(FindingsDbTest, IdsResolveFromAPrefixAndRecheckMarksGone) {
  FindingsDb db(dir_ / "db");
  db.merge(1, {cell(1, "fake", "roundtrip.equal")},
           {failure("fake", "roundtrip.equal", R"({"list": [1]})")});
  const Finding f = db.findings().at(0);
  EXPECT_EQ(f.id, finding_id("fake", "roundtrip.equal", "mismatch:value"));
  EXPECT_EQ(db.find(f.id.substr(0, 5)).id, f.id);
  EXPECT_THROW(db.find("ab"), DatabaseError) << "too short";
  EXPECT_THROW(db.find(f.id == "ffffffffffff" ? "0000" : "ffffffffffff"), DatabaseError);
  KnownFailure k;
  k.subject = "f*";
  k.property = "roundtrip.equal";
  k.fingerprint = "mismatch:value";
  EXPECT_EQ(f.status({}), "new");
  EXPECT_EQ(f.status({k}), "known");
  db.set_checked(f.id, false);
  EXPECT_EQ(db.find(f.id).status({k}), "gone");
  EXPECT_FALSE(db.find(f.id).checked.empty());
  db.set_checked(f.id, true);
  EXPECT_EQ(db.find(f.id).status({}), "new");
  // A gone finding that a campaign hits again is back.
  db.set_checked(f.id, false);
  db.merge(2, {cell(2, "fake", "roundtrip.equal")},
           {failure("fake", "roundtrip.equal", R"({"list": [1]})")});
  EXPECT_EQ(db.find(f.id).status({}), "new");
  EXPECT_EQ(db.find(f.id).hits, 2);
}

TEST_F(FindingsDbTest, AFindingFileThatCannotBeReadIsNamed) {
  FindingsDb db(dir_ / "db");
  std::ofstream(dir_ / "db" / "findings" / "0123456789ab.json") << R"({"format": "other"})";
  std::vector<std::string> problems;
  EXPECT_TRUE(db.findings(&problems).empty());
  ASSERT_EQ(problems.size(), 1u);
  EXPECT_NE(problems[0].find("0123456789ab.json"), std::string::npos) << problems[0];
  EXPECT_NE(problems[0].find("\"format\""), std::string::npos) << problems[0];
  std::ofstream(dir_ / "file") << "x";
  EXPECT_THROW(FindingsDb(dir_ / "file"), DatabaseError);
}

TEST(UnitDocument, ReadsCellsFailuresAndCasesAsTheRunWroteThem) {
  CaseRecord r;
  r.subject = "fake";
  r.property = "roundtrip.equal";
  r.fingerprint = "mismatch:value";
  r.test = make_case(R"({"list": [1]})");
  nlohmann::json report = {
      {"seed", 42},
      {"cases", 20},
      {"max_size", 50},
      {"python_versions", {{"fake", {{"version", "3.11.2"}}}}},
      {"cells",
       {{{"subject", "fake"},
         {"property", "roundtrip.equal"},
         {"verdict", "fail"},
         {"cases", 3},
         {"fingerprint", "mismatch:value"},
         {"message", "m"},
         {"case_file", "/w/c.json"}},
        // Passed over as listed (run --look-past-known): a hit each.
        {{"subject", "fake"},
         {"property", "roundtrip.identity"},
         {"verdict", "pass"},
         {"cases", 20},
         {"passed_over", {{"mismatch:sharing", 4}, {"mismatch:kind", 1}}}},
        // A listed failure the cases missed: checked, nothing found.
        {{"subject", "fake"}, {"property", "wire.x"}, {"verdict", "expected-fail"}, {"cases", 20}},
        {{"subject", "fake"}, {"property", "zerocopy.x"}, {"verdict", "skip"}, {"cases", 0}}}}};
  nlohmann::json doc = {{"id", "42/fake"},
                        {"status", 1},
                        {"seconds", 2.5},
                        {"report", report},
                        {"cases", {{"/w/c.json", record_to_json(r)}}}};
  UnitOutcome u = read_unit_document(doc);
  ASSERT_TRUE(u.ok) << u.why;
  EXPECT_EQ(u.seed, 42u);
  EXPECT_EQ(u.cells.size(), 3u) << "a skipped cell checked nothing";
  EXPECT_EQ(u.cases, 43);
  ASSERT_EQ(u.failures.size(), 3u);
  EXPECT_EQ(u.failures[0].version, "3.11.2");
  ASSERT_TRUE(u.failures[0].record.has_value());
  EXPECT_EQ(u.failures[0].record->fingerprint, "mismatch:value");
  EXPECT_EQ(u.failures[1].property, "roundtrip.identity");
  EXPECT_EQ(u.failures[1].fingerprint, "mismatch:kind");
  EXPECT_EQ(u.failures[2].fingerprint, "mismatch:sharing");
  EXPECT_FALSE(u.failures[2].record.has_value()) << "a passed-over failure saves no case";
  EXPECT_EQ(u.cells[0].max_size, 50);
  // Control: a unit that wrote no report is not ok, and says why.
  UnitOutcome lost = read_unit_document({{"id", "43/fake"},
                                         {"status", -1},
                                         {"report", nullptr},
                                         {"why", "killed"},
                                         {"log_tail", "boom"}});
  EXPECT_FALSE(lost.ok);
  EXPECT_NE(lost.why.find("killed"), std::string::npos) << lost.why;
  EXPECT_NE(lost.why.find("boom"), std::string::npos) << lost.why;
  UnitOutcome bad = read_unit_document({{"id", "44/fake"}, {"report", {{"seed", "x"}}}});
  EXPECT_FALSE(bad.ok);
}

// A unit's further producers go round every other campaign subject as the
// seeds go on, never the unit's own subject.
TEST(UnitProducers, GoRoundTheOtherSubjectsBySeed) {
  const std::vector<std::string> subjects = {"a", "b", "c", "d", "e"};
  for (int per_unit : {1, 2, 3}) {
    for (std::size_t i = 0; i < subjects.size(); ++i) {
      std::set<std::string> seen;
      // ceil(4 / per_unit) consecutive seeds cover the four others.
      const int seeds = (4 + per_unit - 1) / per_unit;
      for (std::uint64_t seed = 1000; seed < 1000u + static_cast<unsigned>(seeds); ++seed) {
        const auto p = unit_producers(subjects, i, seed, per_unit);
        EXPECT_EQ(p.size(), static_cast<std::size_t>(per_unit));
        for (const auto& s : p) {
          EXPECT_NE(s, subjects[i]) << "a unit's own subject is a producer already";
          seen.insert(s);
        }
      }
      EXPECT_EQ(seen.size(), 4u) << "per_unit " << per_unit << ", subject " << subjects[i];
    }
  }
  EXPECT_EQ(unit_producers(subjects, 2, 7, 0), (std::vector<std::string>{"d", "e", "a", "b"}));
  EXPECT_EQ(unit_producers(subjects, 2, 7, 9).size(), 4u) << "no more than there are";
  EXPECT_TRUE(unit_producers({"a"}, 0, 7, 2).empty());
  // Control: a fixed choice (the same producers at every seed) would fail
  // the coverage above; the rotation does change with the seed.
  EXPECT_NE(unit_producers(subjects, 0, 1000, 1), unit_producers(subjects, 0, 1001, 1));
}

// The unit's command names its producers and its own known-failures file,
// which travels with the unit.
TEST(UnitProducers, TheUnitCarriesItsListAndProducers) {
  CampaignOptions o;
  o.subjects = {"a", "b", "c"};
  o.run_argv = {"serialcheck", "run"};
  o.producers_per_unit = 1;
  const UnitSpec u = make_unit(o, 4, "b", "a roundtrip.equal mismatch:value listed\n");
  const std::string argv = [&] {
    std::string s;
    for (const auto& a : u.argv) s += a + " ";
    return s;
  }();
  EXPECT_NE(argv.find("--seed 4 --subjects b"), std::string::npos) << argv;
  EXPECT_NE(argv.find("--known-failures {unit_dir}/known-failures.txt --look-past-known"),
            std::string::npos)
      << argv;
  EXPECT_NE(argv.find("--producers c"), std::string::npos) << argv;
  EXPECT_EQ(u.files.at("known-failures.txt"), "a roundtrip.equal mismatch:value listed\n");
}

}  // namespace
}  // namespace serialcheck::campaign
