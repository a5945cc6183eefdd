// `serialcheck campaign` and `serialcheck findings` as a user runs them
// (docs/campaigns.md), against the fake testee (testees/fake_testee.py):
// a subject that answers every loads one off must give a finding, hit once
// a unit, that triage can show, accept and, once the subject is fixed, mark
// gone; a campaign started again at the same seeds counts nothing twice;
// a unit that runs past its timeout is killed and named.
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "suite/tests/support/cli.h"
#include "suite/tests/support/scratch.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;
using test_support::CliRun;
using test_support::run_cli;

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// --testee fake=<the fake testee with `args`>
std::string fake(const std::string& args) {
  return " --testee " + quote(std::string("fake=/usr/bin/python3 '") + SERIALCHECK_SOURCE_DIR +
                              "/suite/tests/testees/fake_testee.py' " + args);
}

std::string read(const fs::path& p) {
  std::ifstream in(p);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

class Campaign : public test_support::FilesTest {
 protected:
  void SetUp() override {
    FilesTest::SetUp();
    std::ofstream(dir_ / "known-failures.txt") << "# nothing is accepted yet\n";
  }
  std::string db() const { return path("db"); }
  std::string known() const { return path("known-failures.txt"); }
  // The options every campaign of these tests shares.
  std::string common() const {
    return " --db " + db() + " --known-failures " + known() +
           " --no-subjects-file --no-interpreters --subjects fake --properties roundtrip.equal "
           "--cases 20 -j 2";
  }
  nlohmann::json list() const {
    CliRun r = run_cli("findings --json --db " + db() + " --known-failures " + known());
    EXPECT_EQ(r.status, 0) << r.err;
    return nlohmann::json::parse(r.out, nullptr, false);
  }
};

TEST_F(Campaign, FindsMergesAndTriagesAFailure) {
  CliRun r = run_cli("campaign" + common() + fake("--wrong-value") + " --seed 100 --max-units 2");
  EXPECT_EQ(r.status, 1) << "an unlisted finding fails the campaign\n" << r.out << r.err;
  EXPECT_NE(r.out.find("campaign: 2 units"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("seeds 100 to 101"), std::string::npos) << r.out;
  EXPECT_NE(r.err.find("NEW "), std::string::npos) << r.err;
  EXPECT_NE(r.out.find("continue with --seed 102"), std::string::npos) << r.out;

  nlohmann::json found = list();
  ASSERT_TRUE(found.is_array() && found.size() == 1) << found.dump(2);
  const nlohmann::json f = found[0];
  EXPECT_EQ(f["status"], "new");
  EXPECT_EQ(f["hits"], 2) << "one hit a unit";
  EXPECT_EQ(f["seeds"], nlohmann::json({100, 101}));
  EXPECT_EQ(f["subject"], "fake");
  const std::string id = f["id"];

  CliRun show = run_cli("findings --db " + db() + " --show " + id.substr(0, 6));
  EXPECT_EQ(show.status, 0) << show.err;
  EXPECT_NE(show.out.find("replay: serialcheck replay "), std::string::npos) << show.out;
  EXPECT_NE(show.out.find(f["fingerprint"].get<std::string>()), std::string::npos) << show.out;

  // Accepting needs a reason, then writes the line and the case.
  CliRun no_reason =
      run_cli("findings --db " + db() + " --known-failures " + known() + " --accept " + id);
  EXPECT_EQ(no_reason.status, 2) << no_reason.out << no_reason.err;
  CliRun accept = run_cli("findings --db " + db() + " --known-failures " + known() + " --accept " +
                          id + " --reason 'answers one off' --corpus " + path("corpus"));
  EXPECT_EQ(accept.status, 0) << accept.err;
  const std::string line =
      "fake roundtrip.equal " + f["fingerprint"].get<std::string>() + " answers one off";
  EXPECT_NE(read(dir_ / "known-failures.txt").find(line), std::string::npos)
      << read(dir_ / "known-failures.txt");
  int cases = 0;
  for (const auto& e : fs::recursive_directory_iterator(dir_ / "corpus")) {
    cases += e.path().extension() == ".json" ? 1 : 0;
  }
  EXPECT_EQ(cases, 1);
  EXPECT_EQ(list()[0]["status"], "known");

  // The gate at the finding's seed: PASSED with the accepted line, FAILED
  // without it (the control).
  const std::string gate =
      "run --seed 100 --cases 20 --no-subjects-file --no-interpreters "
      "--subjects fake --properties roundtrip.equal --no-picture --report " +
      path("reports") + " --corpus " + path("corpus") + fake("--wrong-value");
  CliRun listed = run_cli(gate + " --known-failures " + known());
  EXPECT_EQ(listed.status, 0) << listed.out << listed.err;
  EXPECT_NE(listed.out.find("PASSED"), std::string::npos) << listed.out;
  std::ofstream(dir_ / "empty.txt") << "";
  CliRun unlisted = run_cli(gate + " --known-failures " + path("empty.txt"));
  EXPECT_EQ(unlisted.status, 1) << unlisted.out;
  EXPECT_NE(unlisted.out.find("FAILED"), std::string::npos) << unlisted.out;

  // The same seeds again: the cells are in the database, nothing counts
  // twice; the finding is listed now, so the campaign passes.
  CliRun again =
      run_cli("campaign" + common() + fake("--wrong-value") + " --seed 100 --max-units 2");
  EXPECT_EQ(again.status, 0) << again.out << again.err;
  EXPECT_NE(again.out.find("2 cells were in the database already"), std::string::npos) << again.out;
  EXPECT_NE(again.err.find("replaying the database's 1 finding first"), std::string::npos)
      << again.err;
  EXPECT_EQ(list()[0]["hits"], 2);

  // The subject fixed: its case no longer fails; the finding is gone, not
  // deleted.
  CliRun recheck = run_cli("findings --recheck --db " + db() + " --known-failures " + known() +
                           " --no-subjects-file --no-interpreters" + fake(""));
  EXPECT_EQ(recheck.status, 0) << recheck.err;
  EXPECT_NE(recheck.out.find(": gone"), std::string::npos) << recheck.out;
  EXPECT_EQ(list()[0]["status"], "gone");
  // Control: the broken subject again brings it back.
  CliRun back = run_cli("findings --recheck --db " + db() + " --known-failures " + known() +
                        " --no-subjects-file --no-interpreters" + fake("--wrong-value"));
  EXPECT_NE(back.out.find(": back"), std::string::npos) << back.out;
  EXPECT_EQ(list()[0]["status"], "known");
}

TEST_F(Campaign, AGoodSubjectFindsNothing) {
  // Under a sharded ctest the environment names a GoogleTest shard, which
  // `run` takes as its own --shard by default; a unit runs every cell.
  CliRun r = test_support::run_shell(std::string("GTEST_SHARD_INDEX=1 GTEST_TOTAL_SHARDS=40 '") +
                                     SERIALCHECK_CLI + "' campaign" + common() + fake("") +
                                     " --seed 5 --max-units 2");
  EXPECT_EQ(r.status, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("findings hit: 0"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("40 cases"), std::string::npos) << r.out;
  EXPECT_EQ(list().size(), 0u);
}

TEST_F(Campaign, AUnitPastItsTimeoutIsKilledAndNamed) {
  const auto start = std::chrono::steady_clock::now();
  CliRun r = run_cli("campaign" + common() + fake("--delay 30") +
                     " --seed 7 --max-units 1 --unit-timeout 2");
  const double took =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  EXPECT_EQ(r.status, 1) << r.out << r.err;
  EXPECT_NE(r.out.find("unit 7/fake: the unit ran past its 2-s timeout and was killed"),
            std::string::npos)
      << r.out;
  EXPECT_LT(took, 20) << "the unit was not killed at its timeout";
  EXPECT_EQ(list().size(), 0u);
}

// A subject with two defects (ints and floats come back one off): a cell
// reports the first it meets, and with the ints' failure listed the gate
// says "expected fail" and never shows the floats'. `run
// --look-past-known` passes over the listed failure, counts it, and finds
// the other; a campaign's units do so for everything found before them.
TEST_F(Campaign, ALookPastListedFailuresFindsWhatTheyHid) {
  std::ofstream(dir_ / "ints.txt") << "fake roundtrip.equal mismatch:value/int ints one off\n";
  const std::string gate =
      "run --seed 1 --cases 50 --shard 0/1 --no-subjects-file --no-interpreters --subjects fake "
      "--properties roundtrip.equal --no-picture --no-save --report " +
      path("reports") + " --known-failures " + path("ints.txt");
  auto cell = [&] {
    auto j = nlohmann::json::parse(read(dir_ / "reports" / "conformance.json"));
    return j["cells"][0];
  };
  // Control: as the gate runs, the listed failure hides the other.
  CliRun plain = run_cli(gate + fake("--wrong-value --wrong-float"));
  EXPECT_EQ(plain.status, 0) << plain.out << plain.err;
  EXPECT_EQ(cell()["verdict"], "expected-fail");
  EXPECT_EQ(cell()["fingerprint"], "mismatch:value/int");

  CliRun past = run_cli(gate + " --look-past-known" + fake("--wrong-value --wrong-float"));
  EXPECT_EQ(past.status, 1) << past.out << past.err;
  EXPECT_EQ(cell()["verdict"], "fail");
  EXPECT_EQ(cell()["fingerprint"], "mismatch:value/float");
  EXPECT_GE(cell()["passed_over"].value("mismatch:value/int", 0), 1) << cell().dump();

  // Only the ints' defect, both of its fingerprints listed (a bare int, and
  // one in a set or as a dict key): every failing case is passed over, the
  // cell passes, and the entries, seen failing, are not stale.
  std::ofstream(dir_ / "ints.txt", std::ios::app)
      << "fake roundtrip.equal mismatch:value/collection ints one off in a set\n";
  const std::string at2 = std::regex_replace(gate, std::regex("--seed 1 "), "--seed 2 ");
  CliRun only = run_cli(at2 + " --look-past-known" + fake("--wrong-value"));
  EXPECT_EQ(only.status, 0) << only.out << only.err;
  EXPECT_EQ(cell()["verdict"], "pass");
  EXPECT_GE(cell()["passed_over"].value("mismatch:value/int", 0), 1) << cell().dump();
  auto report = nlohmann::json::parse(read(dir_ / "reports" / "conformance.json"));
  EXPECT_TRUE(report["known_failures"]["remove"].empty()) << report["known_failures"].dump();
  // Control: a subject without the defect makes those entries stale.
  CliRun fixed = run_cli(at2 + " --look-past-known" + fake(""));
  EXPECT_EQ(fixed.status, 1) << fixed.out;
  report = nlohmann::json::parse(read(dir_ / "reports" / "conformance.json"));
  EXPECT_EQ(report["known_failures"]["remove"].size(), 2u) << report["known_failures"].dump();
}

// Each unit looks past what the units two seeds and more before it found:
// seeds 1 and 2 find the ints' failure; seed 3, looking past it, the
// floats'; seed 4 the ints' in a set; seed 6 a KeyError of the fake
// testee's own dumps; seeds 7 and 8 pass every case, passing over three.
// A hit looked past counts. What a unit is given depends on its seed
// alone, so one unit at a time and two at once find the same.
TEST_F(Campaign, EachUnitLooksPastTheDatabasesFindings) {
  auto campaign = [&](const std::string& db, int jobs) {
    CliRun r = run_cli("campaign --db " + db + " --known-failures " + known() +
                       " --no-subjects-file --no-interpreters --subjects fake --properties "
                       "roundtrip.equal --cases 50 --seed 1 --max-units 8 -j " +
                       std::to_string(jobs) + fake("--wrong-value --wrong-float"));
    EXPECT_EQ(r.status, 1) << r.out << r.err;
    CliRun l = run_cli("findings --json --db " + db + " --known-failures " + known());
    std::map<std::string, std::pair<int, int>> out;  // fingerprint -> (hits, first seed)
    for (const auto& f : nlohmann::json::parse(l.out)) {
      out[f["fingerprint"].get<std::string>()] = {f["hits"].get<int>(), f["first_seed"].get<int>()};
    }
    return out;
  };
  const auto one = campaign(path("one"), 1);
  using P = std::pair<int, int>;
  EXPECT_EQ(one, (std::map<std::string, P>{{"mismatch:value/int", {8, 1}},
                                           {"mismatch:value/float", {5, 3}},
                                           {"mismatch:value/collection", {5, 4}},
                                           {"exception:KeyError@dumps/collection/n", {1, 6}}}));
  EXPECT_EQ(campaign(path("two"), 2), one);
}

// --producers adds matrix producers for the run's subjects: the pair cells
// of one consumer with every producer run in one process (a unit).
TEST_F(Campaign, RunTakesMoreProducers) {
  const std::string testees =
      fake("") + " --testee " +
      quote(std::string("other=/usr/bin/python3 '") + SERIALCHECK_SOURCE_DIR +
            "/suite/tests/testees/fake_testee.py'");
  const std::string gate =
      "run --seed 3 --cases 5 --shard 0/1 --no-subjects-file --no-interpreters --subjects fake "
      "--properties cross.matrix --no-picture --no-save --known-failures /dev/null --report " +
      path("reports") + testees;
  auto properties = [&] {
    std::set<std::string> out;
    auto j = nlohmann::json::parse(read(dir_ / "reports" / "conformance.json"));
    for (const auto& c : j["cells"]) out.insert(c["property"].get<std::string>());
    return out;
  };
  CliRun with = run_cli(gate + " --producers other");
  EXPECT_EQ(with.status, 0) << with.out << with.err;
  EXPECT_EQ(properties().count("cross.matrix/other"), 1u);
  // Control: without it, only the subject itself and the anchors produce.
  CliRun without = run_cli(gate);
  EXPECT_EQ(without.status, 0) << without.out << without.err;
  EXPECT_EQ(properties().count("cross.matrix/other"), 0u);
  EXPECT_EQ(properties().count("cross.matrix/reference"), 1u);
  CliRun unknown = run_cli(gate + " --producers nobody");
  EXPECT_EQ(unknown.status, 2);
  EXPECT_NE(unknown.err.find("unknown subject \"nobody\""), std::string::npos) << unknown.err;
}

TEST_F(Campaign, MistakesAreOneLine) {
  CliRun none = run_cli("findings --db " + path("nothing"));
  EXPECT_EQ(none.status, 1);
  EXPECT_NE(none.err.find("no findings database here"), std::string::npos) << none.err;
  CliRun both = run_cli("campaign" + common() + " --scheduler tcp://127.0.0.1:1 --workers 2");
  EXPECT_EQ(both.status, 2) << both.err;
  EXPECT_NE(both.err.find("give one"), std::string::npos) << both.err;
  CliRun subject = run_cli("campaign --db " + db() + " --no-subjects-file --subjects nobody");
  EXPECT_EQ(subject.status, 2);
  EXPECT_NE(subject.err.find("unknown subject \"nobody\""), std::string::npos) << subject.err;
  CliRun unknown = run_cli("findings --db " + db() + " --show 12345");
  EXPECT_EQ(unknown.status, 1);
}

}  // namespace
}  // namespace serialcheck
