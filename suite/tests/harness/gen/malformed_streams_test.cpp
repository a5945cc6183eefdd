// The grammar's malformed streams (harness/gen/malformed.h): which are made
// from a stream, that each changes exactly the instruction it names, the
// memo guard that keeps CPython from sizing a memo of gigabytes, and the
// stream without its frames that the ignores-frame-length control reads.
#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <algorithm>
#include <iostream>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "harness/gen/malformed.h"
#include "reference/pickle/encoder.h"
#include "harness/props/gate_props.h"
#include "reference/pickle/opcodes.h"
#include "reference/value/json.h"

namespace serialcheck::gen {
namespace {

std::string encode(const char* json, int protocol) {
  Graph g;
  const Node* v = from_json(json, g);
  return pickle::encode(v, {.protocol = protocol}).bytes;
}

std::set<std::string> kinds_of(const std::vector<MalformedStream>& streams) {
  std::set<std::string> out;
  for (const MalformedStream& m : streams) out.insert(m.mutation);
  return out;
}

constexpr const char* kValue =
    R"({"list": [{"dict": [["k", {"float": "1.5"}]]}, "text", {"bytes": "0001"}, 300, {"tuple": [1, 2]}, "text"]})";

TEST(GrammarMutations, EachPairOnceAtItsFirstInstruction) {
  for (int protocol = 0; protocol <= 5; ++protocol) {
    const std::string valid = encode(kValue, protocol);
    const std::vector<MalformedStream> streams = grammar_mutations(valid);
    ASSERT_FALSE(streams.empty()) << protocol;
    std::set<std::string> names;
    for (const MalformedStream& m : streams) {
      EXPECT_TRUE(names.insert(m.name()).second) << protocol << ": " << m.name() << " twice";
      EXPECT_NE(m.bytes, valid) << m.name();
      ASSERT_LT(m.offset, valid.size()) << m.name();
      // The instruction named is the one at the offset, and no earlier one
      // of its kind is in the stream.
      const auto* row = pickle::kOpcodeIndex[static_cast<std::uint8_t>(valid[m.offset])];
      ASSERT_NE(row, nullptr) << m.name();
      EXPECT_EQ(row->name, m.opcode) << m.name();
      EXPECT_NE(m.detail.find(m.opcode + " at byte " + std::to_string(m.offset)), std::string::npos)
          << m.detail;
      // Every stream keeps the bytes before the instruction it changes
      // (`empty-stack` inserts right after PROTO, before any other).
      if (m.mutation != "empty-stack") {
        EXPECT_EQ(m.bytes.substr(0, m.offset), valid.substr(0, m.offset)) << m.name();
      }
    }
  }
}

TEST(GrammarMutations, ReachEveryKindTheFormatHas) {
  std::set<std::string> seen;
  for (int protocol = 0; protocol <= 5; ++protocol) {
    for (const std::string& k : kinds_of(grammar_mutations(encode(kValue, protocol))))
      seen.insert(k);
  }
  // BINSTRING and LONG4 are read signed; a STRING line is quoted.
  const std::string binstring(
      "\x80\x02T\x02\x00\x00\x00"
      "ab.",
      10);
  const std::string long4("\x80\x02\x8b\x01\x00\x00\x00\x05.", 9);
  const std::string string0("S'ab'\n.");
  // A list that holds itself: a memo read.
  const std::string binget(
      "\x80\x02]q\x00h\x00"
      "a.",
      9);
  for (const std::string& s : {binstring, long4, string0, binget}) {
    for (const std::string& k : kinds_of(grammar_mutations(s))) seen.insert(k);
  }
  for (const std::string& kind : grammar_mutation_kinds()) {
    EXPECT_TRUE(seen.count(kind)) << kind << " is never made";
  }
}

TEST(GrammarMutations, TheirBytesAreWhatTheySay) {
  // PROTO 4, FRAME, EMPTY_LIST, MEMOIZE, SHORT_BINUNICODE 'ab', APPEND, STOP.
  const std::string frame_body(
      "]\x94\x8c\x02"
      "ab"
      "a.",
      8);
  const std::string valid =
      std::string("\x80\x04\x95\x08\x00\x00\x00\x00\x00\x00\x00", 11) + frame_body;
  std::map<std::string, std::string> by_name;
  for (const MalformedStream& m : grammar_mutations(valid)) by_name[m.name()] = m.bytes;
  // APPEND is at byte 17.
  EXPECT_EQ(by_name.at("delete/APPEND"), valid.substr(0, 17) + ".");
  EXPECT_EQ(by_name.at("duplicate/APPEND"), valid.substr(0, 17) + "aa.");
  EXPECT_EQ(by_name.at("truncate/APPEND"), valid.substr(0, 18));
  EXPECT_EQ(by_name.at("empty-stack/APPEND"), valid.substr(0, 2) + "a" + valid.substr(2));
  // The text's length, 2, and what the field can say.
  EXPECT_EQ(by_name.at("length-short/SHORT_BINUNICODE"),
            valid.substr(0, 14) + "\x01" + valid.substr(15));
  EXPECT_EQ(by_name.at("length-huge/SHORT_BINUNICODE"),
            valid.substr(0, 14) + "\xff" + valid.substr(15));
  EXPECT_EQ(by_name.at("utf8-invalid/SHORT_BINUNICODE"),
            valid.substr(0, 16) + "\xff" + valid.substr(17));
  // FRAME's length one past what follows it.
  EXPECT_EQ(by_name.at("length-past-end/FRAME"),
            valid.substr(0, 3) + std::string("\x09\x00\x00\x00\x00\x00\x00\x00", 8) + frame_body);
  EXPECT_EQ(by_name.at("two-items-at-stop/STOP"), valid.substr(0, 18) + "N.");
  // A loader that reads frames by their contents alone sees this.
  EXPECT_EQ(without_frames(by_name.at("length-past-end/FRAME")),
            std::string("\x80\x04", 2) + frame_body);
  EXPECT_EQ(without_frames(valid), std::string("\x80\x04", 2) + frame_body);
}

TEST(GrammarMutations, NoneFromAStreamThatIsNotAPickle) {
  EXPECT_TRUE(grammar_mutations("").empty());
  EXPECT_TRUE(grammar_mutations(std::string("\x80\x04\xff.", 4)).empty());
}

// What a gate cell of loads.rejects-malformed tries: its plan's cases (the
// gate's case generator, 100 cases at RapidCheck's sizes, three seeds),
// each encoded at its protocol, and the grammar's streams of each.
TEST(GrammarMutations, AGateCellTriesDozensOfStreamsACaseAndMostKinds) {
  CasePlan plan;
  plan.python_safe = true;
  plan.graph_shaped = true;
  plan.out_of_band = false;
  const rc::Gen<TestCase> cases = case_generator(plan);
  for (std::uint64_t seed : {20261129ull, 20261205ull, 7ull}) {
    rc::Random random(seed);
    std::size_t total = 0, fewest = SIZE_MAX, most = 0, encoded = 0;
    std::set<std::string> kinds;
    for (int i = 0; i < 100; ++i) {
      const TestCase c = cases(random.split(), i * 100 / 99).value();
      std::string valid;
      try {
        valid = pickle::encode(c.value, {.protocol = c.protocol}).bytes;
      } catch (const std::exception&) {
        continue;  // the property discards it too
      }
      const std::vector<MalformedStream> streams = grammar_mutations(valid);
      ++encoded;
      total += streams.size();
      fewest = std::min(fewest, streams.size());
      most = std::max(most, streams.size());
      for (const MalformedStream& m : streams) kinds.insert(m.mutation);
    }
    std::cout << "seed " << seed << ": " << encoded << " cases, streams a case " << fewest << " to "
              << most << ", " << total / std::max<std::size_t>(encoded, 1) << " on average, "
              << kinds.size() << " of " << grammar_mutation_kinds().size() << " kinds\n";
    EXPECT_GE(encoded, 90u) << seed;
    EXPECT_GE(fewest, 20u) << seed << ": every valid stream has a few instructions to break";
    EXPECT_GE(total, 50 * encoded) << seed;
    EXPECT_GE(kinds.size(), 13u) << seed;
  }
}

TEST(StoresMemoBeyond, FindsEveryPutAboveTheBound) {
  const std::uint64_t bound = 1 << 20;
  EXPECT_FALSE(stores_memo_beyond(encode(kValue, 2), bound));
  EXPECT_FALSE(
      stores_memo_beyond(std::string("N\x94q\x05r\x00\x00\x10\x00p1048576\n.", 19), bound));
  // LONG_BINPUT 2**31, even after an instruction a loader would refuse.
  EXPECT_TRUE(stores_memo_beyond(std::string("a0r\x00\x00\x00\x80.", 8), bound));
  EXPECT_TRUE(stores_memo_beyond("Np1048577\n.", bound));
  // Not past where the walk can read.
  EXPECT_FALSE(stores_memo_beyond(std::string("\xffr\x00\x00\x00\x80.", 7), bound));
}

}  // namespace
}  // namespace serialcheck::gen
