// PythonTarget (reference/pickle/target.h): parsing, each version's
// protocols and rules, and each rule's effect on the encoder in one small
// example (the golden vectors of corpus/golden-versions check them all;
// golden_versions_test.cpp).
#include "reference/pickle/target.h"

#include <gtest/gtest.h>

#include <string>

#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/value/value.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_literals;

PythonTarget at(const char* version) {
  auto t = PythonTarget::parse(version);
  EXPECT_TRUE(t.has_value()) << version;
  return t.value_or(PythonTarget{});
}

std::string write(const Node* value, int protocol, const PythonTarget& target) {
  EncodeOptions o;
  o.protocol = protocol;
  o.target = target;
  return encode(value, o).bytes;
}

TEST(PythonTarget, ParsesMajorMinorAndIgnoresThePatchLevel) {
  EXPECT_EQ(at("3.7").name(), "3.7");
  EXPECT_EQ(at("3.7.16").name(), "3.7");
  EXPECT_EQ(at("3.15.0a2").name(), "3.15");
  EXPECT_EQ(PythonTarget::default_target().name(), "3.11");
  for (const char* bad : {"", "3", "3.", "3.5", "3.16", "2.7", "4.0", "3.x", "3.7.", "3.7.x"}) {
    EXPECT_FALSE(PythonTarget::parse(bad).has_value()) << bad;
  }
}

TEST(PythonTarget, ProtocolsOfEachVersion) {
  EXPECT_EQ(at("3.6").default_protocol(), 3);
  EXPECT_EQ(at("3.7").highest_protocol(), 4);
  EXPECT_EQ(at("3.8").default_protocol(), 4);
  EXPECT_EQ(at("3.8").highest_protocol(), 5);
  EXPECT_EQ(at("3.13").default_protocol(), 4);
  EXPECT_EQ(at("3.14").default_protocol(), 5);
  EXPECT_EQ(at("3.15").highest_protocol(), 5);
  EXPECT_EQ(supported_targets().size(), 10u);
  EXPECT_EQ(supported_targets().front().name(), "3.6");
  EXPECT_EQ(supported_targets().back().name(), "3.15");
}

TEST(PythonTarget, RulesOfEachVersion) {
  EXPECT_TRUE(at("3.6").ints_as_long_at_protocol_0());
  EXPECT_FALSE(at("3.7").ints_as_long_at_protocol_0());
  EXPECT_FALSE(at("3.6").escapes_cr_nul_sub_in_text());
  EXPECT_TRUE(at("3.7").escapes_cr_nul_sub_in_text());
  EXPECT_TRUE(at("3.6").frames_tiny_frames());
  EXPECT_TRUE(at("3.6").frames_large_payloads());
  EXPECT_FALSE(at("3.7").frames_large_payloads());
  EXPECT_FALSE(at("3.12").nested_names_unmemoized());
  EXPECT_TRUE(at("3.13").nested_names_unmemoized());
  EXPECT_FALSE(at("3.14").exact_batches_like_items());
  EXPECT_TRUE(at("3.15").exact_batches_like_items());
  EXPECT_TRUE(at("3.9").empty_frozenset_singleton());
  EXPECT_FALSE(at("3.10").empty_frozenset_singleton());
  // The default target has none of the rules that set a version apart
  // from 3.11, and 3.11 differs from 3.10 and 3.12 in none, and from 3.8
  // and 3.9 only in the empty frozenset.
  for (int r = 0; r < static_cast<int>(PicklerRule::kCount); ++r) {
    const auto rule = static_cast<PicklerRule>(r);
    for (const char* v : {"3.8", "3.9", "3.10", "3.12"}) {
      if (rule == PicklerRule::kEmptyFrozensetSingleton && at(v).minor <= 9) continue;
      EXPECT_EQ(at(v).has(rule), PythonTarget{}.has(rule)) << rule_name(rule) << " " << v;
    }
    EXPECT_NE(PythonTarget{}.with_flipped(rule).has(rule), PythonTarget{}.has(rule));
    EXPECT_FALSE(PythonTarget{}.with_flipped(rule) == PythonTarget{});
  }
}

// Up to 3.9 the empty frozenset is one object: empty frozensets made apart
// are written once and then fetched from the memo, at every protocol.
TEST(PythonTargetEncoding, Python39WritesEmptyFrozensetsAsOne) {
  for (int protocol = 0; protocol <= 4; ++protocol) {
    Graph g;
    const Node* value = g.list({g.frozenset({}), g.frozenset({})});
    const std::string at39 = write(value, protocol, at("3.9"));
    const std::string at310 = write(value, protocol, at("3.10"));
    EXPECT_LT(at39.size(), at310.size()) << protocol;
    Graph shared;
    Node* one = shared.frozenset({});
    // 3.9's bytes are those of one frozenset held twice...
    EXPECT_EQ(at39, write(shared.list({one, one}), protocol, at("3.10"))) << protocol;
    // ...and a non-empty frozenset is never merged (the negative control).
    Graph full;
    const Node* two =
        full.list({full.frozenset({full.integer(1)}), full.frozenset({full.integer(1)})});
    EXPECT_EQ(write(two, protocol, at("3.9")), write(two, protocol, at("3.10"))) << protocol;
  }
}

TEST(PythonTargetEncoding, ProtocolAboveTheVersionsHighestFails) {
  Graph g;
  EXPECT_THROW(write(g.none(), 5, at("3.7")), PickleError);
  EncodeOptions o;
  o.protocol = -1;
  o.target = at("3.7");
  EXPECT_EQ(encode(g.none(), o).bytes, std::string("\x80\x04N.", 4));  // 3.7's highest, 4
}

TEST(PythonTargetEncoding, Python36WritesIntsAsLongAndFramesTinyPickles) {
  Graph g;
  EXPECT_EQ(write(g.integer(5), 0, at("3.6")), "L5L\n.");
  EXPECT_EQ(write(g.integer(5), 0, at("3.7")), "I5\n.");
  EXPECT_EQ(write(g.none(), 4, at("3.6")),
            std::string("\x80\x04\x95\x02\x00\x00\x00\x00\x00\x00\x00N.", 13));
  EXPECT_EQ(write(g.none(), 4, at("3.7")), std::string("\x80\x04N.", 4));
}

TEST(PythonTargetEncoding, Python36LeavesCrNulSubRawInProtocol0Text) {
  Graph g;
  Node* s = g.str(std::string("a\rb\0c\x1a\n", 7));
  EXPECT_EQ(write(s, 0, at("3.6")), std::string("Va\rb\0c\x1a\\u000a\np0\n.", 18));
  EXPECT_EQ(write(s, 0, at("3.7")), "Va\\u000db\\u0000c\\u001a\\u000a\np0\n.");
}

TEST(PythonTargetEncoding, Python313WritesNestedNamesWithoutMemo) {
  Graph g;
  Node* nested = g.global("m", "A.B");
  // 3.11: GLOBAL getattr, GLOBAL m A memoized, the argument tuple memoized.
  EXPECT_EQ(write(nested, 2, at("3.11")),
            "\x80\x02"
            "c__builtin__\ngetattr\nq\x00"
            "cm\nA\nq\x01"
            "X\x01\x00\x00\x00"
            "Bq\x02"
            "\x86q\x03"
            "Rq\x04."s);
  EXPECT_EQ(write(nested, 2, at("3.13")),
            "\x80\x02"
            "c__builtin__\ngetattr\nq\x00"
            "cm\nA\n"
            "X\x01\x00\x00\x00"
            "Bq\x01"
            "\x86"
            "Rq\x02."s);
}

TEST(PythonTargetEncoding, Python315WritesALastBatchOfOneWithAppend) {
  Graph g;
  std::vector<Node*> items;
  for (int i = 0; i < 1001; ++i) items.push_back(g.none());
  Node* list = g.list(items);
  const std::string old = write(list, 2, at("3.14"));
  const std::string now = write(list, 2, at("3.15"));
  EXPECT_EQ(old.substr(old.size() - 4), "(Ne.");  // MARK NONE APPENDS STOP
  EXPECT_EQ(now.substr(now.size() - 4), "eNa.");  // ... APPENDS NONE APPEND STOP
  std::vector<Node*> entries;
  for (int i = 0; i < 1000; ++i) {
    entries.push_back(g.integer(i));
    entries.push_back(g.none());
  }
  Node* dict = g.dict(entries);
  EXPECT_EQ(write(dict, 2, at("3.14")).substr(write(dict, 2, at("3.14")).size() - 4), "u(u.");
  EXPECT_EQ(write(dict, 2, at("3.15")).substr(write(dict, 2, at("3.15")).size() - 3), "Nu.");
}

}  // namespace
}  // namespace serialcheck::pickle
