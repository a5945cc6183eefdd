// Case files (harness/corpus/corpus.h): saving, naming and loading a failing
// case, finding one already saved, and paths made relative to where the run
// started.
#include "harness/corpus/corpus.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "reference/frames/message.h"
#include "reference/value/json.h"
#include "suite/tests/support/gate.h"

namespace serialcheck {
namespace {

using test_support::make_case;
using test_support::scratch_dir;

namespace fs = std::filesystem;

TEST(Corpus, SavedCasesNamePathsRelativeToWhereTheRunStarted) {
  auto dir = scratch_dir("gate-corpus-paths");
  const std::string cwd = fs::current_path().string();
  CaseRecord r;
  r.subject = "pypy-pickle";
  r.property = "roundtrip.equal";
  r.fingerprint = "exception:TypeError@dumps";
  r.message = "failed in " + cwd + "/harness/testees/python/serialcheck_testee.py";
  r.explanation = "Traceback:\n  File \"" + cwd +
                  "/harness/testees/python/serialcheck_testee.py\", line 1\n  File "
                  "\"/usr/lib/python3.11/copyreg.py\", line 76\n  File \"" +
                  cwd + "2/other.py\"\n";
  r.test = make_case(R"({"list": [1]})");
  CaseRecord back = load_case(save_case(dir, r));
  EXPECT_EQ(back.message, "failed in harness/testees/python/serialcheck_testee.py");
  EXPECT_EQ(back.explanation,
            "Traceback:\n  File \"harness/testees/python/serialcheck_testee.py\", line 1\n  File "
            "\"/usr/lib/python3.11/copyreg.py\", line 76\n  File \"" +
                cwd + "2/other.py\"\n");
  // Control: the record the caller holds keeps its text.
  EXPECT_NE(r.explanation.find(cwd + "/harness"), std::string::npos);
  EXPECT_EQ(relative_to_directory("/a/bc /a/b/c", "/a/b"), "/a/bc c");
  EXPECT_EQ(relative_to_directory("/x/y", "/"), "/x/y");
  fs::remove_all(dir);
}

TEST(Corpus, SavesAndLoadsACaseFile) {
  auto dir = scratch_dir("gate-corpus");
  CaseRecord r;
  r.subject = "cloudpickle";
  r.property = "cross.load";
  r.fingerprint = "exception:UnpicklingError@reference-loads";
  r.seed = 42;
  r.message = "it failed";
  r.test = make_case(R"({"list": [{"id": 1, "list": [{"ref": 1}]}, {"bytes": "00"}]})", 5);
  r.test.out_of_band = true;
  r.test.max_protocol = 3;
  Message m;
  m.header = {{"serializer", "pickle"}};
  m.frames.push_back(Frame::owned("ab"));
  r.failing_message = message_to_json(m);
  auto path = save_case(dir, r);
  EXPECT_EQ(path.parent_path(), dir / "cloudpickle" / "cross.load");
  EXPECT_EQ(path.filename().string().rfind("exception-unpicklingerror-reference-loads-", 0), 0u)
      << path;
  EXPECT_EQ(save_case(dir, r), path);  // same case, same file
  CaseRecord back = load_case(path);
  EXPECT_EQ(back.subject, r.subject);
  EXPECT_EQ(back.fingerprint, r.fingerprint);
  EXPECT_EQ(back.seed, 42u);
  EXPECT_EQ(back.test.protocol, 5);
  EXPECT_TRUE(back.test.out_of_band);
  EXPECT_EQ(back.test.max_protocol, 3);
  EXPECT_TRUE(equal(back.test.value, r.test.value));
  EXPECT_EQ(message_from_json(back.failing_message).frames.at(0).view(), "ab");
  EXPECT_EQ(list_cases({dir}), std::vector<fs::path>{path});
  // Another case of the same failure finds the file already saved.
  CaseRecord other = r;
  other.test = make_case(R"({"list": [1]})");
  EXPECT_NE(case_path(dir, other), path);
  EXPECT_EQ(saved_case(dir, other), path);
  other.fingerprint = "exception:UnpicklingError@loads";
  EXPECT_EQ(saved_case(dir, other), std::nullopt);
  EXPECT_THROW(list_cases({dir / "nope"}), std::runtime_error);
  fs::remove_all(dir);
}

}  // namespace
}  // namespace serialcheck
