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
#include <nlohmann/json.hpp>
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
