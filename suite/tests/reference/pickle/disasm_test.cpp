// Disassembler tests: the text is pickletools.dis's for the same stream (the
// expected texts below are its output), errors stop the listing at the right
// offset, and the opcode table it reads is complete and consistent.
#include "reference/pickle/disasm.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "reference/pickle/opcodes.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;

// pickle.dumps([1, (2, "a"), {"k": b"x"}, 1.5, None, True, 2**70, [1] * 3], protocol=4)
constexpr std::string_view kListP4 =
    "\x80\x04\x95:\x00\x00\x00\x00\x00\x00\x00]\x94(K\x01K\x02\x8c\x01"
    "a\x94\x86\x94}\x94\x8c"
    "\x01k\x94"
    "C\x01x\x94sG\x3f\xf8\x00\x00\x00\x00\x00\x00N\x88\x8a\x09\x00\x00\x00\x00\x00"
    "\x00\x00\x00@]\x94(K\x01K\x01K\x01"
    "ee."sv;
constexpr std::string_view kListP4Dis = R"(    0: \x80 PROTO      4
    2: \x95 FRAME      58
   11: ]    EMPTY_LIST
   12: \x94 MEMOIZE    (as 0)
   13: (    MARK
   14: K        BININT1    1
   16: K        BININT1    2
   18: \x8c     SHORT_BINUNICODE 'a'
   21: \x94     MEMOIZE    (as 1)
   22: \x86     TUPLE2
   23: \x94     MEMOIZE    (as 2)
   24: }        EMPTY_DICT
   25: \x94     MEMOIZE    (as 3)
   26: \x8c     SHORT_BINUNICODE 'k'
   29: \x94     MEMOIZE    (as 4)
   30: C        SHORT_BINBYTES b'x'
   33: \x94     MEMOIZE    (as 5)
   34: s        SETITEM
   35: G        BINFLOAT   1.5
   44: N        NONE
   45: \x88     NEWTRUE
   46: \x8a     LONG1      1180591620717411303424
   57: ]        EMPTY_LIST
   58: \x94     MEMOIZE    (as 6)
   59: (        MARK
   60: K            BININT1    1
   62: K            BININT1    1
   64: K            BININT1    1
   66: e            APPENDS    (MARK at 59)
   67: e        APPENDS    (MARK at 13)
   68: .    STOP
highest protocol among opcodes = 4
)";
// pickle.dumps([1, (2, "it's"), {"k": 1.5}, None, False, 2**70, -5, b"q"], protocol=0)
constexpr std::string_view kListP0 =
    "(lp0\nI1\na(I2\nVit's\np1\ntp2\na(dp3\nVk\np4\nF1.5\nsaNaI00\naL1180591620717411303424L\na"
    "I-5\nac_codecs\nencode\np5\n(Vq\np6\nVlatin1\np7\ntp8\nRp9\na."sv;
constexpr std::string_view kListP0Dis = R"(    0: (    MARK
    1: l        LIST       (MARK at 0)
    2: p    PUT        0
    5: I    INT        1
    8: a    APPEND
    9: (    MARK
   10: I        INT        2
   13: V        UNICODE    "it's"
   19: p        PUT        1
   22: t        TUPLE      (MARK at 9)
   23: p    PUT        2
   26: a    APPEND
   27: (    MARK
   28: d        DICT       (MARK at 27)
   29: p    PUT        3
   32: V    UNICODE    'k'
   35: p    PUT        4
   38: F    FLOAT      1.5
   43: s    SETITEM
   44: a    APPEND
   45: N    NONE
   46: a    APPEND
   47: I    INT        False
   51: a    APPEND
   52: L    LONG       1180591620717411303424
   77: a    APPEND
   78: I    INT        -5
   82: a    APPEND
   83: c    GLOBAL     '_codecs encode'
   99: p    PUT        5
  102: (    MARK
  103: V        UNICODE    'q'
  106: p        PUT        6
  109: V        UNICODE    'latin1'
  117: p        PUT        7
  120: t        TUPLE      (MARK at 102)
  121: p    PUT        8
  124: R    REDUCE
  125: p    PUT        9
  128: a    APPEND
  129: .    STOP
highest protocol among opcodes = 0
)";
// pickle.dumps(OrderedDict([('a', [1])]), protocol=2)
constexpr std::string_view kOrderedDictP2 =
    "\x80\x02"
    "ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00"
    "aq\x02]q\x03K\x01"
    ""
    "as."sv;
constexpr std::string_view kOrderedDictP2Dis = R"(    0: \x80 PROTO      2
    2: c    GLOBAL     'collections OrderedDict'
   27: q    BINPUT     0
   29: )    EMPTY_TUPLE
   30: R    REDUCE
   31: q    BINPUT     1
   33: X    BINUNICODE 'a'
   39: q    BINPUT     2
   41: ]    EMPTY_LIST
   42: q    BINPUT     3
   44: K    BININT1    1
   46: a    APPEND
   47: s    SETITEM
   48: .    STOP
highest protocol among opcodes = 2
)";
// pickle.dumps(t = ([],); t[0].append(t); t, protocol=1)
constexpr std::string_view kRecTupleP1 =
    "(]q\x00(h\x00tq\x01"
    "a1h\x01."sv;
constexpr std::string_view kRecTupleP1Dis = R"(    0: (    MARK
    1: ]        EMPTY_LIST
    2: q        BINPUT     0
    4: (        MARK
    5: h            BINGET     0
    7: t            TUPLE      (MARK at 4)
    8: q        BINPUT     1
   10: a        APPEND
   11: 1        POP_MARK   (MARK at 0)
   12: h    BINGET     1
   14: .    STOP
highest protocol among opcodes = 1
)";
// pickle.dumps(t = ([],); t[0].append(t); t, protocol=0)
constexpr std::string_view kRecTupleP0 = "((lp0\n(g0\ntp1\na00g1\n."sv;
constexpr std::string_view kRecTupleP0Dis = R"(    0: (    MARK
    1: (        MARK
    2: l            LIST       (MARK at 1)
    3: p        PUT        0
    6: (        MARK
    7: g            GET        0
   10: t            TUPLE      (MARK at 6)
   11: p        PUT        1
   14: a        APPEND
   15: 0        POP
   16: 0        POP        (MARK at 0)
   17: g    GET        1
   20: .    STOP
highest protocol among opcodes = 0
)";
// pickle.dumps(bytearray(b'ab"'), protocol=5)
constexpr std::string_view kByteArrayP5 =
    "\x80\x05\x95\x0e\x00\x00\x00\x00\x00\x00\x00\x96\x03\x00\x00\x00\x00\x00\x00\x00"
    "ab\""
    "\x94."sv;
constexpr std::string_view kByteArrayP5Dis = R"(    0: \x80 PROTO      5
    2: \x95 FRAME      14
   11: \x96 BYTEARRAY8 bytearray(b'ab"')
   23: \x94 MEMOIZE    (as 0)
   24: .    STOP
highest protocol among opcodes = 5
)";

Disassembly dis(std::string_view s) {
  return disassemble(
      std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()));
}

TEST(Disasm, MatchesPickletools) {
  const std::pair<std::string_view, std::string_view> cases[] = {
      {kListP4, kListP4Dis},
      {kListP0, kListP0Dis},
      {kOrderedDictP2, kOrderedDictP2Dis},
      {kRecTupleP1, kRecTupleP1Dis},
      {kRecTupleP0, kRecTupleP0Dis},
      {kByteArrayP5, kByteArrayP5Dis},
  };
  for (const auto& [stream, text] : cases) {
    const Disassembly d = dis(stream);
    EXPECT_TRUE(d.error.empty()) << d.error;
    EXPECT_EQ(format_disassembly(d), text);
  }
}

TEST(Disasm, InstructionsCarryOffsetsDepthAndProtocol) {
  const Disassembly d = dis(kListP4);
  ASSERT_EQ(d.instructions.size(), 31u);
  EXPECT_EQ(d.highest_protocol, 4);
  EXPECT_EQ(d.instructions[0].name, "PROTO");
  EXPECT_EQ(d.instructions[0].arg, "4");
  EXPECT_EQ(d.instructions[5].offset, 14u);
  EXPECT_EQ(d.instructions[5].depth, 1);
  EXPECT_EQ(d.instructions[5].code, 'K');
  EXPECT_EQ(d.instructions.back().name, "STOP");
}

TEST(Disasm, StopsAtTheFirstError) {
  // The offending opcode is listed, then the error, as pickletools does.
  const Disassembly memo = dis("(K\x01h\x05."sv);
  ASSERT_EQ(memo.instructions.size(), 3u);
  EXPECT_EQ(memo.instructions[2].name, "BINGET");
  EXPECT_EQ(memo.error_offset, 3u);
  EXPECT_NE(memo.error.find("missing-memo"), std::string::npos) << memo.error;
  const std::string text = format_disassembly(memo);
  EXPECT_NE(text.find("    3: h        BINGET     5\nerror: missing-memo at offset 3"),
            std::string::npos)
      << text;
  EXPECT_EQ(text.find("highest protocol"), std::string::npos);

  const Disassembly truncated =
      dis("\x80\x02X\x05\x00\x00\x00"
          "ab"sv);
  EXPECT_EQ(truncated.instructions.size(), 1u);
  EXPECT_EQ(truncated.error_offset, 2u);
  EXPECT_NE(truncated.error.find("truncated"), std::string::npos);

  // Each of these stops at the opcode that fails, named by its kind.
  const struct {
    std::string_view data;
    std::size_t offset;
    std::string_view kind;
  } kFailures[] = {{"N\xff."sv, 1, "unknown-opcode"},
                   {"Nt."sv, 1, "missing-mark"},
                   {"(NR."sv, 2, "stack-underflow"},
                   {"\x8c\x01\xff."sv, 0, "bad-value"}};
  for (const auto& failure : kFailures) {
    const Disassembly d = dis(failure.data);
    EXPECT_EQ(d.error_offset, failure.offset) << failure.kind;
    EXPECT_NE(d.error.find(failure.kind), std::string::npos) << d.error;
  }

  const Disassembly proto = dis("\x80\x06N."sv);
  EXPECT_NE(proto.error.find("unsupported pickle protocol: 6"), std::string::npos);
}

TEST(Disasm, StopsAfterStop) {
  const Disassembly d = dis("N.\xff\xff"sv);
  EXPECT_TRUE(d.error.empty());
  EXPECT_EQ(d.instructions.size(), 2u);
}

TEST(Disasm, ArgumentsAreShownAsPythonLiterals) {
  const Disassembly d =
      dis("(S'a\\'b'\nV\\u20ac\\U0001f600\nF-0.0\nI01\nL-12L\nPpid\ncmod\nname\n"
          "\x8c\x03"
          "a\"b"
          "C\x02\x00\xff"
          "\x8a\x02\xff\x7f"
          "\x82\x07"
          "\x84\x00\x00\x00\x01"
          "l."s);
  ASSERT_TRUE(d.error.empty()) << d.error;
  std::vector<std::string> args;
  for (const Instruction& i : d.instructions) args.push_back(i.arg);
  const std::vector<std::string> expected = {"",
                                             "\"a'b\"",
                                             "'\\u20ac\\U0001f600'",
                                             "-0.0",
                                             "True",
                                             "-12",
                                             "'pid'",
                                             "'mod name'",
                                             "'a\"b'",
                                             "b'\\x00\\xff'",
                                             "32767",
                                             "7",
                                             "16777216",
                                             "(MARK at 0)",
                                             ""};
  EXPECT_EQ(args, expected);
}

TEST(Disasm, LongArgumentsAreCut) {
  const std::string s =
      "\x80\x03"
      "B\xa0\x86\x01\x00"s +
      std::string(100000, 'z') + ".";
  const Disassembly d = dis(s);
  ASSERT_TRUE(d.error.empty()) << d.error;
  ASSERT_EQ(d.instructions.size(), 3u);
  EXPECT_LT(d.instructions[1].arg.size(), 200u);
  EXPECT_NE(d.instructions[1].arg.find("(100000 total)"), std::string::npos);
}

TEST(OpcodeTable, CompleteAndConsistent) {
  const auto table = opcode_table();
  EXPECT_EQ(table.size(), 68u);  // every opcode of protocols 0-5
  std::set<std::string_view> names;
  int previous = -1;
  int per_protocol[kHighestProtocol + 1] = {};
  for (const OpInfo& info : table) {
    const int code = static_cast<std::uint8_t>(info.op);
    EXPECT_GT(code, previous) << info.name << " is out of byte order";
    previous = code;
    EXPECT_TRUE(names.insert(info.name).second) << info.name;
    EXPECT_EQ(find_opcode(static_cast<std::uint8_t>(code)), &info);
    EXPECT_FALSE(info.doc.empty()) << info.name;
    ASSERT_GE(info.proto, 0);
    ASSERT_LE(info.proto, kHighestProtocol);
    ++per_protocol[info.proto];
  }
  // As pickletools counts them.
  EXPECT_EQ(per_protocol[0], 22);
  EXPECT_EQ(per_protocol[1], 19);
  EXPECT_EQ(per_protocol[2], 12);
  EXPECT_EQ(per_protocol[3], 2);
  EXPECT_EQ(per_protocol[4], 10);
  EXPECT_EQ(per_protocol[5], 3);
  int unknown = 0;
  for (int b = 0; b < 256; ++b) unknown += find_opcode(static_cast<std::uint8_t>(b)) ? 0 : 1;
  EXPECT_EQ(unknown, 256 - 68);
  EXPECT_EQ(find_opcode('c')->arg, ArgKind::StringNlPair);
  EXPECT_EQ(find_opcode(0x8e)->arg, ArgKind::Bytes8);
  EXPECT_EQ(find_opcode('J')->arg, ArgKind::I4);
}

}  // namespace
}  // namespace serialcheck::pickle
