// Golden vectors of every CPython version: corpus/golden-versions/<X.Y>/,
// written by that version's C pickler (scripts/make-golden-versions, which
// finds the interpreters; MANIFEST.json per version). For each case and
// protocol one test checks that
//   decode   the pickle decodes to the value in the expected canonical JSON;
//   encode   the reference at that version's target (PythonTarget) writes
//            the same bytes: from the decoded value ("decoded"), or from the
//            case's value ("value", for forms that are a pickler's way of
//            writing a value, such as a nested name's getattr reduces).
// A variant the reference does not reproduce says why in the manifest; one
// it must refuse to decode names the error kind ("refused").
// A supported target without a folder is a skipped test that says so.
// Negative control: with any one rule of target.h flipped, some vectors of
// the versions present fail (each rule is pinned by the corpus).
#include <gtest/gtest.h>

#include <algorithm>
#include <cctype>
#include <cstddef>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/target.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/files.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;
using pickle::PicklerRule;
using pickle::PythonTarget;
using test_support::read_file;

fs::path versions_dir() {
  return test_support::source_path("corpus/golden-versions");
}

struct VersionVariant {
  std::string version;  // "3.7"
  PythonTarget target;
  std::string case_name;
  int protocol = 0;
  std::string pickle_file;
  std::string json_file;   // empty: not in the corpus (a large payload)
  std::string value_file;  // the case's value
  std::string reproduce;   // "decoded", "value", or empty (with reason)
  std::string reason;
  std::string refused;  // the error kind the reference decoder must refuse it with
};

struct VersionFolder {
  PythonTarget target;
  bool present = false;
  std::string error;  // a folder that is there but cannot be read
  int default_protocol = -1, highest_protocol = -1;
  std::vector<VersionVariant> variants;
};

VersionFolder load_folder(const PythonTarget& target) {
  VersionFolder f;
  f.target = target;
  const fs::path dir = versions_dir() / target.name();
  auto text = read_file(dir / "MANIFEST.json");
  if (!text) return f;
  f.present = true;
  try {
    auto doc = nlohmann::json::parse(*text);
    if (doc.at("target").get<std::string>() != target.name()) {
      f.error = "MANIFEST.json names target " + doc.at("target").get<std::string>();
      return f;
    }
    f.default_protocol = doc.at("default_protocol").get<int>();
    f.highest_protocol = doc.at("highest_protocol").get<int>();
    for (const auto& c : doc.at("cases")) {
      for (const auto& v : c.at("variants")) {
        VersionVariant g;
        g.version = target.name();
        g.target = target;
        g.case_name = c.at("name").get<std::string>();
        g.value_file = c.value("value", nlohmann::json()).is_string()
                           ? c.at("value").get<std::string>()
                           : std::string();
        g.protocol = v.at("protocol").get<int>();
        g.pickle_file = v.at("pickle").get<std::string>();
        if (v.at("json").is_string()) g.json_file = v.at("json").get<std::string>();
        if (v.at("reproduce").is_string()) g.reproduce = v.at("reproduce").get<std::string>();
        g.reason = v.value("reason", std::string());
        g.refused = v.value("refused", std::string());
        f.variants.push_back(std::move(g));
      }
    }
  } catch (const nlohmann::json::exception& e) {
    f.error = std::string("bad MANIFEST.json: ") + e.what();
    f.variants.clear();
  }
  return f;
}

const std::vector<VersionFolder>& folders() {
  static const std::vector<VersionFolder> all = [] {
    std::vector<VersionFolder> out;
    for (const PythonTarget& t : pickle::supported_targets()) out.push_back(load_folder(t));
    return out;
  }();
  return all;
}

std::vector<VersionVariant> all_variants() {
  std::vector<VersionVariant> out;
  for (const VersionFolder& f : folders()) {
    out.insert(out.end(), f.variants.begin(), f.variants.end());
  }
  return out;
}

::testing::AssertionResult same_bytes(std::string_view what, std::string_view actual,
                                      std::string_view expected) {
  if (actual == expected) return ::testing::AssertionSuccess();
  std::size_t n = std::min(actual.size(), expected.size());
  std::size_t at = 0;
  while (at < n && actual[at] == expected[at]) ++at;
  return ::testing::AssertionFailure()
         << what << " differs from CPython's at offset " << at << " (sizes " << actual.size()
         << " vs " << expected.size() << ")";
}

// What the reference writes for the variant at `target`: the bytes, or the
// error message (prefixed "error: ").
struct Written {
  std::string bytes;
  std::string error;
};

// The value the variant's bytes are to be written from, into `graph`.
const Node* source_value(const VersionVariant& v, std::string_view data, Graph& graph,
                         std::string& error) {
  const fs::path dir = versions_dir() / v.version;
  if (v.reproduce == "value") {
    auto text = read_file(dir / v.value_file);
    if (!text) {
      error = "cannot read " + v.value_file;
      return nullptr;
    }
    try {
      return from_json(*text, graph);
    } catch (const JsonFormError& e) {
      error = v.value_file + " is not canonical JSON: " + e.what();
      return nullptr;
    }
  }
  try {
    return pickle::decode(data, graph).root;
  } catch (const pickle::PickleError& e) {
    error = "decoding failed at offset " + std::to_string(e.offset()) + ": " + e.what();
    return nullptr;
  }
}

Written write_at(const Node* value, int protocol, const PythonTarget& target) {
  Written w;
  pickle::EncodeOptions options;
  options.protocol = protocol;
  options.target = target;
  try {
    w.bytes = pickle::encode(value, options).bytes;
  } catch (const pickle::PickleError& e) {
    w.error = e.what();
  }
  return w;
}

// One variant; failures name its file.
void check_variant(const VersionVariant& v) {
  const fs::path dir = versions_dir() / v.version;
  auto data = read_file(dir / v.pickle_file);
  ASSERT_TRUE(data) << "cannot read " << v.pickle_file;

  Graph decoded;
  pickle::DecodeResult result;
  if (!v.refused.empty()) {
    try {
      (void)pickle::decode(*data, decoded);
      ADD_FAILURE() << "decoded " << v.pickle_file << ", which the reference must refuse ("
                    << v.reason << ")";
    } catch (const pickle::PickleError& e) {
      EXPECT_EQ(pickle::error_kind_name(e.kind()), v.refused) << e.what();
    }
    return;
  }
  try {
    result = pickle::decode(*data, decoded);
  } catch (const pickle::PickleError& e) {
    FAIL() << "decoding " << v.pickle_file << " failed at offset " << e.offset() << ": "
           << e.what();
  }
  EXPECT_EQ(result.consumed, data->size());
  EXPECT_EQ(result.protocol, v.protocol >= 2 ? v.protocol : 0);
  if (!v.json_file.empty()) {
    auto json_text = read_file(dir / v.json_file);
    ASSERT_TRUE(json_text) << "cannot read " << v.json_file;
    Graph expected;
    const Node* want = nullptr;
    try {
      want = from_json(*json_text, expected);
    } catch (const JsonFormError& e) {
      FAIL() << v.json_file << " is not canonical JSON at " << e.where() << ": " << e.what();
    }
    Difference why;
    EXPECT_TRUE(equal(result.root, want, &why))
        << v.pickle_file << " decodes to a value that differs from " << v.json_file << " at "
        << why.path << ": " << why.reason;
  }

  if (v.reproduce.empty()) {
    ::testing::Test::RecordProperty("bytes_not_checked", v.reason);
    return;
  }
  Graph graph;
  std::string error;
  const Node* source = source_value(v, *data, graph, error);
  ASSERT_NE(source, nullptr) << error;
  Written w = write_at(source, v.protocol, v.target);
  ASSERT_TRUE(w.error.empty()) << "encoding at target " << v.version << " failed: " << w.error;
  EXPECT_TRUE(same_bytes("the reference at target " + v.version, w.bytes, *data));
}

// One test per version folder present (one process for its few hundred
// pickles; ctest starts each test as a process of its own).
class GoldenVersionsTest : public ::testing::TestWithParam<std::string> {};

TEST_P(GoldenVersionsTest, DecodeAndEncodeAtTarget) {
  std::size_t checked = 0;
  for (const VersionVariant& v : all_variants()) {
    if (v.version != GetParam()) continue;
    SCOPED_TRACE(v.version + "/" + v.pickle_file);
    check_variant(v);
    ++checked;
  }
  EXPECT_GT(checked, 0u);
  RecordProperty("variants", static_cast<int>(checked));
}

std::vector<std::string> present_versions() {
  std::vector<std::string> out;
  for (const VersionFolder& f : folders()) {
    if (f.present) out.push_back(f.target.name());
  }
  return out;
}

std::string version_test_name(const ::testing::TestParamInfo<std::string>& row) {
  std::string n = "v" + row.param;
  for (char& c : n) {
    if (c == '.') c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(GoldenVersions, GoldenVersionsTest,
                         ::testing::ValuesIn(present_versions()), version_test_name);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(GoldenVersionsTest);

// One test per supported target: its folder is there and agrees with the
// target's protocols, or the test is skipped and says why.
class GoldenVersionFolderTest : public ::testing::TestWithParam<PythonTarget> {};

TEST_P(GoldenVersionFolderTest, PresentAndAgreesWithTarget) {
  const PythonTarget& t = GetParam();
  const VersionFolder* f = nullptr;
  for (const VersionFolder& g : folders()) {
    if (g.target == t) f = &g;
  }
  ASSERT_NE(f, nullptr);
  if (!f->present) {
    GTEST_SKIP() << "corpus/golden-versions/" << t.name()
                 << " is absent: run scripts/make-golden-versions where CPython " << t.name()
                 << " (or its Pyodide) is installed";
  }
  ASSERT_TRUE(f->error.empty()) << f->error;
  EXPECT_FALSE(f->variants.empty());
  EXPECT_EQ(f->default_protocol, t.default_protocol());
  EXPECT_EQ(f->highest_protocol, t.highest_protocol());
}

std::string folder_test_name(const ::testing::TestParamInfo<PythonTarget>& row) {
  std::string n = "v" + row.param.name();
  for (char& c : n) {
    if (c == '.') c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(GoldenVersions, GoldenVersionFolderTest,
                         ::testing::ValuesIn(pickle::supported_targets()), folder_test_name);

// Negative control: each rule flipped at every target makes some vector of
// the versions present come out wrong (or fail to encode), so no rule goes
// unchecked, and the test above would notice a rule assigned to the wrong
// versions.
class GoldenVersionsRuleTest : public ::testing::TestWithParam<PicklerRule> {};

TEST_P(GoldenVersionsRuleTest, FlippedRuleFailsSomeVectors) {
  const PicklerRule rule = GetParam();
  std::size_t checked = 0, failed = 0;
  std::string first_failure;
  for (const VersionFolder& f : folders()) {
    for (const VersionVariant& v : f.variants) {
      if (v.reproduce.empty()) continue;
      auto data = read_file(versions_dir() / v.version / v.pickle_file);
      ASSERT_TRUE(data) << "cannot read " << v.pickle_file;
      Graph graph;
      std::string error;
      const Node* source = source_value(v, *data, graph, error);
      ASSERT_NE(source, nullptr) << error;
      ++checked;
      Written w = write_at(source, v.protocol, v.target.with_flipped(rule));
      if (!w.error.empty() || w.bytes != *data) {
        if (failed++ == 0) first_failure = v.version + "/" + v.pickle_file;
      }
    }
  }
  if (checked == 0) GTEST_SKIP() << "no version folder in corpus/golden-versions";
  EXPECT_GT(failed, 0u) << "with " << pickle::rule_name(rule) << " flipped, all " << checked
                        << " reproducible vectors still match: the corpus does not pin the rule";
  RecordProperty("first_failure", first_failure);
}

std::vector<PicklerRule> all_rules() {
  std::vector<PicklerRule> out;
  for (int r = 0; r < static_cast<int>(PicklerRule::kCount); ++r) {
    out.push_back(static_cast<PicklerRule>(r));
  }
  return out;
}

std::string rule_test_name(const ::testing::TestParamInfo<PicklerRule>& row) {
  return std::string(pickle::rule_name(row.param));
}

INSTANTIATE_TEST_SUITE_P(GoldenVersions, GoldenVersionsRuleTest, ::testing::ValuesIn(all_rules()),
                         rule_test_name);

}  // namespace
}  // namespace serialcheck
