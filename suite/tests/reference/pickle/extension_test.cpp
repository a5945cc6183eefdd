// Globals in copyreg's extension registry (reference/pickle/extension.h):
// the reference writes an extension reference as EXT1/EXT2/EXT4 exactly as
// CPython 3.11's C pickler writes a registered global, so decoding a CPython
// stream that holds EXT and encoding it again gives the same bytes; the
// coverage of the three opcodes. The Python bridge and the fixtures
// module's registered globals: extension_python_test.cpp.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/props/coverage.h"
#include "harness/report/markdown_report.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/extension.h"
#include "reference/value/equal.h"
#include "reference/value/value.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/errors.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_view_literals;

using test_support::encode_at;

// What CPython 3.11 writes for [f, f, (C, Outer.Inner)] with f, C and
// Outer.Inner registered under 0xf7, 0xf7f6 and 0xf7f6f5.
constexpr std::string_view kGlobalsP2 =
    "\x80\x02]q\x00(\x82\xf7\x82\xf7\x83\xf6\xf7\x84\xf5\xf6\xf7\x00\x86q\x01"
    "e."sv;
constexpr std::string_view kGlobalsP4 =
    "\x80\x04\x95\x13\x00\x00\x00\x00\x00\x00\x00]\x94(\x82\xf7\x82\xf7\x83\xf6\xf7"
    "\x84\xf5\xf6\xf7\x00\x86\x94"
    "e."sv;
// [c, c, C()] and an instance with a __dict__, C registered under 0xf7f6:
// NEWOBJ takes the class from EXT2.
constexpr std::string_view kInstancesP3 =
    "\x80\x03]q\x00(\x83\xf6\xf7)\x81q\x01h\x01\x83\xf6\xf7)\x81q\x02"
    "e."sv;
constexpr std::string_view kInstanceStateP5 =
    "\x80\x05\x95\x11\x00\x00\x00\x00\x00\x00\x00\x83\xf6\xf7)\x81\x94}\x94\x8c\x01"
    "a\x94K\x01sb."sv;

TEST(Extension, RecognisesOnlyTheRegistryCallWithOneCode) {
  Graph g;
  EXPECT_EQ(extension_code(extension_ref(g, 1)), 1);
  EXPECT_EQ(extension_code(extension_ref(g, kMaxExtensionCode)), kMaxExtensionCode);
  Node* registry = g.global("copyreg", "_inverted_registry");
  EXPECT_EQ(extension_code(g.object(registry, g.tuple({g.integer(0)}))), 0);
  EXPECT_EQ(extension_code(g.object(registry, g.tuple({g.integer(-3)}))), 0);
  EXPECT_EQ(extension_code(g.object(registry, g.tuple({g.integer(kMaxExtensionCode + 1)}))), 0);
  EXPECT_EQ(extension_code(g.object(registry, g.tuple({g.integer(1), g.integer(2)}))), 0);
  EXPECT_EQ(extension_code(g.object(registry, g.tuple({g.str("1")}))), 0);
  EXPECT_EQ(extension_code(g.object(g.global("copyreg", "other"), g.tuple({g.integer(1)}))), 0);
  Node* with_state = extension_ref(g, 5);
  with_state->obj()->state = g.dict();
  EXPECT_EQ(extension_code(with_state), 0);
  EXPECT_EQ(extension_code(g.global("copyreg", "_inverted_registry")), 0);
  EXPECT_EQ(extension_code(nullptr), 0);
}

TEST(Extension, CodeSizeChoosesTheOpcodeAsCPythonDoes) {
  struct Case {
    std::int64_t code;
    std::string_view bytes;  // pickle.dumps(f, 2) with f registered under code
  };
  for (const Case& c : {Case{1, "\x80\x02\x82\x01."sv}, Case{0xff, "\x80\x02\x82\xff."sv},
                        Case{0x100, "\x80\x02\x83\x00\x01."sv},
                        Case{0xffff, "\x80\x02\x83\xff\xff."sv},
                        Case{0x10000, "\x80\x02\x84\x00\x00\x01\x00."sv},
                        Case{0x7fffffff, "\x80\x02\x84\xff\xff\xff\x7f."sv}}) {
    Graph g;
    EXPECT_EQ(encode_at(extension_ref(g, c.code), 2), c.bytes) << c.code;
  }
}

TEST(Extension, WrittenAsEXTAndNeverMemoized) {
  Graph g;
  Node* f = extension_ref(g, 0xf7);  // one node reached twice: EXT1 both times
  Node* value = g.list({f, f, g.tuple({extension_ref(g, 0xf7f6), extension_ref(g, 0xf7f6f5)})});
  EXPECT_EQ(encode_at(value, 2), kGlobalsP2);
  EXPECT_EQ(encode_at(value, 4), kGlobalsP4);
}

TEST(Extension, BelowProtocol2IsRefused) {
  Graph g;
  for (int protocol : {0, 1}) {
    const std::optional<PickleError> e = test_support::thrown<PickleError>(
        [&] { encode_at(g.list({extension_ref(g, 0xf7)}), protocol); });
    ASSERT_TRUE(test_support::is_pickle_error(e, ErrorKind::Unpicklable)) << protocol;
    EXPECT_NE(e->detail().find("extension code 247 needs protocol 2"), std::string::npos)
        << e->detail();
  }
}

TEST(Extension, OtherRegistryCallsAreWrittenAsCalls) {
  // Code 0 is no registered global: the node stays the call it spells.
  Graph g;
  Node* zero = g.object(g.global("copyreg", "_inverted_registry"), g.tuple({g.integer(0)}));
  EXPECT_EQ(encode_at(zero, 3), "\x80\x03"
            "ccopyreg\n_inverted_registry\nq\x00K\x00\x85q\x01Rq\x02."sv);
}

TEST(Extension, DecodingAndEncodingACPythonStreamIsTheIdentity) {
  struct Case {
    std::string_view bytes;
    int protocol;
  };
  for (const Case& c : {Case{kGlobalsP2, 2}, Case{kGlobalsP4, 4}, Case{kInstancesP3, 3},
                        Case{kInstanceStateP5, 5}}) {
    Graph g;
    DecodeResult r = decode(c.bytes, g);
    ASSERT_NE(r.root, nullptr);
    EXPECT_EQ(encode_at(r.root, c.protocol), c.bytes) << c.protocol;
  }
}

TEST(Extension, EachEXTDecodesToANodeOfItsOwn) {
  Graph g;
  DecodeResult r = decode(kGlobalsP2, g);
  ASSERT_EQ(r.root->items.size(), 3u);
  EXPECT_NE(r.root->items[0], r.root->items[1]);
  EXPECT_EQ(extension_code(r.root->items[0]), 0xf7);
  EXPECT_EQ(extension_code(r.root->items[2]->items[1]), 0xf7f6f5);
}

// ---- coverage -------------------------------------------------------------

TEST(ExtensionCoverage, EXTOpcodesAreEmittableFromProtocol2) {
  EXPECT_TRUE(coverage_list_problems().empty());
  for (std::string_view name : {"EXT1"sv, "EXT2"sv, "EXT4"sv}) {
    int found = 0;
    for (const EmittableOpcode& e : emittable_opcodes()) {
      if (e.name != name) continue;
      ++found;
      EXPECT_EQ(e.min_protocol, 2) << name;
      EXPECT_EQ(e.max_protocol, 5) << name;
    }
    EXPECT_EQ(found, 1) << name;
    for (const UnemittedOpcode& u : unemitted_opcodes()) EXPECT_NE(u.name, name);
  }
}

TEST(ExtensionCoverage, ARunWithoutEXT2MissesIt) {
  // Negative control of the gate's coverage check: everything else seen.
  std::map<std::string, std::set<int>> seen;
  for (const EmittableOpcode& e : emittable_opcodes()) {
    if (e.name != "EXT2") seen[std::string(e.name)] = {e.min_protocol};
  }
  EXPECT_EQ(missing_opcodes(seen), std::vector<std::string>{"EXT2"});
  seen["EXT2"] = {2};
  EXPECT_TRUE(missing_opcodes(seen).empty());
}

TEST(ExtensionCoverage, ReportsSayWhichOpcodesCPythonNeverWrites) {
  const std::string summary = unemitted_summary();
  const std::string never = "Not emitted, because CPython 3.11's pickler never writes them: ";
  ASSERT_EQ(summary.rfind(never, 0), 0u) << summary;
  const std::size_t large = summary.find("payloads too large for a test: ");
  ASSERT_NE(large, std::string::npos) << summary;
  for (const UnemittedOpcode& u : unemitted_opcodes()) {
    const std::size_t at = summary.find(std::string(u.name) + " (" + std::string(u.why) + ")");
    ASSERT_NE(at, std::string::npos) << u.name;
    // Each under the sentence that is true of it.
    EXPECT_EQ(at > large, u.cpython_writes) << u.name;
  }
  EXPECT_EQ(summary.find("EXT"), std::string::npos);

  RunReport r;
  r.coverage.opcodes["PROTO"] = {2};
  EXPECT_NE(markdown_report(r).find(summary), std::string::npos);
}

// ---- the Python bridge and the fixtures module ------------------------------

}  // namespace
}  // namespace serialcheck::pickle
