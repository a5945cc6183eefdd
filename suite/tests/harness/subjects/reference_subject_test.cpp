// The reference subject at each CPython version's target: reference@3.X
// (harness/subjects/reference_subject.h).
#include "harness/subjects/reference_subject.h"

#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "harness/subjects/subjects_file.h"
#include "reference/pickle/target.h"

namespace serialcheck {
namespace {

TEST(ReferenceSubject, DefaultIsPython311) {
  ReferenceSubject s;
  EXPECT_EQ(s.name(), "reference");
  const Capabilities c = s.capabilities();
  EXPECT_EQ(c.python_version, "3.11");
  EXPECT_EQ(c.max_protocol, 5);
  EXPECT_TRUE(c.cpython_bytes);
}

TEST(ReferenceSubject, OneSubjectPerTargetWithItsProtocols) {
  const auto factories = reference_subject_factories();
  ASSERT_EQ(factories.size(), pickle::supported_targets().size());
  for (const auto& f : factories) {
    EXPECT_TRUE(valid_subject_name(f.name)) << f.name;
    std::unique_ptr<Subject> s = f.make();
    ASSERT_NE(s, nullptr);
    EXPECT_EQ(s->name(), f.name);
    const auto target = pickle::PythonTarget::parse(f.name.substr(f.name.find('@') + 1));
    ASSERT_TRUE(target.has_value()) << f.name;
    const Capabilities c = s->capabilities();
    EXPECT_EQ(c.python_version, target->name());
    EXPECT_EQ(c.min_protocol, 0);
    EXPECT_EQ(c.max_protocol, target->highest_protocol()) << f.name;
    EXPECT_TRUE(c.cpython_bytes);
  }
  EXPECT_EQ(factories.front().name, "reference@3.6");
  EXPECT_EQ(factories.back().name, "reference@3.15");
}

TEST(ReferenceSubject, WritesAndReadsAsItsVersion) {
  ReferenceSubject py36(*pickle::PythonTarget::parse("3.6"));
  Graph g;
  DumpOptions o;
  o.protocol = 0;
  EXPECT_EQ(py36.dumps(g.integer(7), o).frames[0].view(), "L7L\n.");
  EXPECT_EQ(ReferenceSubject().dumps(g.integer(7), o).frames[0].view(), "I7\n.");
  // 3.6 has no protocol 5, neither to write nor to read.
  o.protocol = 5;
  EXPECT_THROW(py36.dumps(g.none(), o), SubjectError);
  Message five = ReferenceSubject().dumps(g.none(), o);
  Graph back;
  EXPECT_THROW(py36.loads(five, back, LoadOptions{}), SubjectError);
}

TEST(ReferenceSubject, SubjectNamesMayHoldAnAt) {
  EXPECT_TRUE(valid_subject_name("reference@3.7"));
  EXPECT_FALSE(valid_subject_name("@3.7"));
}

}  // namespace
}  // namespace serialcheck
