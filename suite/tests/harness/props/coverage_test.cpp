// Opcode and header-key coverage (harness/props/coverage.h): the list of
// emittable opcodes agrees with the opcode table, and the recorder's counts
// merge into the missing list.
#include "harness/props/coverage.h"
#include "harness/report/results.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <nlohmann/json.hpp>
#include <string>

#include "reference/frames/message.h"

namespace serialcheck {
namespace {

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

}  // namespace
}  // namespace serialcheck
