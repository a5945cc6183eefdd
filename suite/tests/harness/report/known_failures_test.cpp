// Known failures (harness/report/known_failures.h): parsing the list, and
// every verdict it gives a cell: expected, new, stale, unexpected pass, a
// missed failure whose saved case still fails, cells that did not run, and
// missing coverage.
#include "harness/report/known_failures.h"

#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "harness/report/results.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::cell;

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

TEST(KnownFailures, AGlobEntryIsJudgedOnlyWhereItsJudgeSaysSo) {
  // "* cross.stdlib/cpython" was seen failing on old interpreters; a run of
  // other subjects, which pass, must not call it stale.
  auto known = parse_known_failures("* cross.stdlib/cpython stdlib:load-error old names\n");
  auto only_old = [](const KnownFailure&, const CellResult& c) { return c.subject == "cpython-3.9"; };
  RunReport r;
  r.cells = {cell("cpython-py", "cross.stdlib/cpython", Verdict::Pass)};
  apply_known_failures(known, r, {}, only_old);
  EXPECT_TRUE(r.lines_to_remove.empty());
  EXPECT_EQ(r.cells[0].verdict, Verdict::Pass);
  EXPECT_TRUE(r.ok());

  // With the subject it speaks for passing, it is stale.
  RunReport fixed;
  fixed.cells = {cell("cpython-py", "cross.stdlib/cpython", Verdict::Pass),
                 cell("cpython-3.9", "cross.stdlib/cpython", Verdict::Pass)};
  apply_known_failures(known, fixed, {}, only_old);
  ASSERT_EQ(fixed.lines_to_remove.size(), 1u);
  EXPECT_FALSE(fixed.ok());

  // A failure on any matching subject still uses it.
  RunReport failing;
  failing.cells = {
      cell("cpython-py", "cross.stdlib/cpython", Verdict::Fail, "stdlib:load-error")};
  apply_known_failures(known, failing, {}, only_old);
  EXPECT_EQ(failing.cells[0].verdict, Verdict::ExpectedFail);
  EXPECT_TRUE(failing.ok());
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
  EXPECT_EQ(
      listed_verdict(known, cell("cpython", "cross.load", Verdict::Fail, "exception:E@loads/int")),
      Verdict::ExpectedFail);
  EXPECT_EQ(
      listed_verdict(known, cell("cpython", "cross.load", Verdict::Fail, "exception:E@loads/str")),
      Verdict::Fail);
  EXPECT_EQ(
      listed_verdict(known, cell("dill", "cross.load", Verdict::Fail, "exception:E@loads/int")),
      Verdict::Fail);
  EXPECT_EQ(listed_verdict(known, cell("cpython", "cross.load", Verdict::Pass)), Verdict::Pass);
}

}  // namespace
}  // namespace serialcheck
