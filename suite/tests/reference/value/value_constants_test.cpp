// Constants of the object model that stand in for what the standard library
// says at run time (reference/value/value.h): a wrong one would not break
// correctness, only silently slow the graph's node recycling down.
#include <gtest/gtest.h>

#include <string>

#include "reference/value/value.h"

namespace serialcheck {
namespace {

TEST(ValueConstants, EmptyStringCapacityIsTheLibrarys) {
  EXPECT_EQ(std::string().capacity(), kEmptyStringCapacity);
  std::string s;
  s.reserve(1);
  EXPECT_EQ(s.capacity(), kEmptyStringCapacity) << "a short reserve stays in the inline buffer";
}

}  // namespace
}  // namespace serialcheck
