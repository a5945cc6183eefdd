// Explanations of a failure (harness/props/explain.h): where two pickles
// first diverge, shown with the memo before it.
#include "harness/props/explain.h"

#include <gtest/gtest.h>

#include <string>

namespace serialcheck {
namespace {

TEST(Explain, MarksTheFirstDivergence) {
  // pickle.dumps([1, 2], protocol=2) and the same with 3 for 2.
  std::string a(
      "\x80\x02]q\x00(K\x01K\x02"
      "e.",
      12);
  std::string b(
      "\x80\x02]q\x00(K\x01K\x03"
      "e.",
      12);
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

}  // namespace
}  // namespace serialcheck
