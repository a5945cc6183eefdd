// One binary form for header bytes in every JSON the tool writes
// ({"binary": "<hex>"}, docs/value-json.md), and case files saved in the
// earlier form ({"bytes": [...], "subtype": ...}) still read.
#include <gtest/gtest.h>
#include <rapidcheck.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "harness/corpus/corpus.h"
#include "harness/props/case.h"
#include "harness/props/gate_props.h"
#include "harness/subjects/mutant_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/files.h"
#include "reference/frames/header_json.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;

json bin(std::vector<std::uint8_t> bytes) { return json::binary(std::move(bytes)); }

// What distributed's "dask" family writes for a bytes value: the type pickled.
json dask_header() {
  return {{"serializer", "dask"},
          {"sub-header", json::object()},
          {"type", "bytes"},
          {"type-serialized", bin({0x80, 0x05, 0x2e})},
          {"sub-headers", json::array({{{"ext", json::binary({0x01}, 5)}}})}};
}

TEST(HeaderJson, WritesBytesAsHexAndReadsThemBack) {
  const json text = header_to_text_json(dask_header());
  EXPECT_EQ(text["type-serialized"], json({{"binary", "80052e"}}));
  EXPECT_EQ(text["sub-headers"][0]["ext"], json({{"binary", "01"}, {"subtype", 5}}));
  EXPECT_EQ(text.dump().find("{\"bytes\":"), std::string::npos) << text.dump();
  EXPECT_EQ(header_from_text_json(text), dask_header());
  // Through text, as a worker sends a message to the runner.
  EXPECT_EQ(header_from_text_json(json::parse(text.dump())), dask_header());
}

TEST(HeaderJson, ReadsTheEarlierFormOfSavedCases) {
  const json old = json::parse(R"({"type-serialized": {"bytes": [128, 5, 46], "subtype": null},
                                   "e": {"bytes": [1], "subtype": 5}})");
  EXPECT_EQ(header_from_text_json(old),
            json({{"type-serialized", bin({0x80, 0x05, 0x2e})}, {"e", json::binary({0x01}, 5)}}));
}

TEST(HeaderJson, MapsThatAreNotExactlyABinaryFormStayMaps) {
  for (const char* text : {
           R"({"binary": "xyz"})",                      // not hex
           R"({"binary": "00", "other": 1})",           // another member
           R"({"binary": 7})",                          // not a string
           R"({"binary": "00", "subtype": -1})",        // not an ext type
           R"({"bytes": [1, 2]})",                      // no subtype member
           R"({"bytes": [1, 256], "subtype": null})",   // not a byte
           R"({"bytes": "0102", "subtype": null})",     // not a list
       }) {
    const json j = json::parse(text);
    EXPECT_EQ(header_from_text_json(j), j) << text;
  }
}

class SavedCase : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("serialcheck-header-json-" + std::to_string(::getpid()));
    fs::remove_all(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  static CaseRecord record() {
    CaseRecord r;
    r.subject = "distributed";
    r.property = "roundtrip.identity";
    r.fingerprint = "mismatch:sharing";
    r.test.graph = std::make_shared<Graph>();
    r.test.value = from_json(R"({"list": [{"bytes": "00"}]})", *r.test.graph);
    Message m;
    m.header = dask_header();
    m.frames.push_back(Frame::owned("ab"));
    r.failing_message = message_to_json(m);
    return r;
  }

  fs::path dir_;
};

TEST_F(SavedCase, HoldsHeaderBytesInTheBinaryFormOnly) {
  const fs::path path = save_case(dir_, record());
  const std::string text = test_support::read_file(path).value_or("");
  EXPECT_EQ(text.find("\"bytes\": ["), std::string::npos) << text;
  EXPECT_EQ(text.find("\"subtype\": null"), std::string::npos) << text;
  EXPECT_NE(text.find("\"binary\": \"80052e\""), std::string::npos) << text;
  const Message back = message_from_json(load_case(path).failing_message);
  EXPECT_EQ(back.header, dask_header());
  EXPECT_EQ(back.frames.at(0).view(), "ab");
}

TEST_F(SavedCase, WrittenInTheEarlierFormStillReads) {
  json old = record_to_json(record());
  old["failing_message"]["header"]["type-serialized"] =
      json::parse(R"({"bytes": [128, 5, 46], "subtype": null})");
  fs::create_directories(dir_);
  const fs::path path = dir_ / "old.json";
  std::ofstream(path) << old.dump(2);
  const Message back = message_from_json(load_case(path).failing_message);
  EXPECT_EQ(back.header, dask_header());
}

// The explanation of a header difference shows the headers the same way.
TEST(HeaderJson, ExplanationsShowHeaderBytesInTheBinaryForm) {
  const GateProperty* property = find_property("header.sub-header-intact");
  ASSERT_NE(property, nullptr);
  std::unique_ptr<Subject> mutant = make_mutant_subject("clobbers-sub-header");
  ASSERT_NE(mutant, nullptr);
  ReferenceSubject reference;
  PropertyEnv env = test_support::env_with({{"reference", &reference}});
  Applicability a = applicability(*property, *mutant, env);
  ASSERT_EQ(a.skip_reason, "");
  rc::Gen<TestCase> gen = case_generator(a.plan);
  rc::Random random(20261129);
  for (int i = 0; i < 100; ++i) {
    Outcome o = check_case(*property, *mutant, gen(random.split(), i % 101).value(), env);
    if (!o.failed()) continue;
    EXPECT_NE(o.explanation.find("\"type-serialized\":{\"binary\":\""), std::string::npos)
        << o.explanation;
    EXPECT_EQ(o.explanation.find("{\"bytes\":"), std::string::npos) << o.explanation;
    return;
  }
  FAIL() << "the mutant never failed";
}

}  // namespace
}  // namespace serialcheck
