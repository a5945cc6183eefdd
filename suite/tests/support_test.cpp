// Tests of the test-support library (suite/tests/support/): each helper on a
// case it must get right, and each matcher reporting a failure for the wrong
// kind, the wrong offset and a call that throws nothing.
#include <gmock/gmock.h>
#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

#include "reference/frames/errors.h"
#include "reference/pickle/errors.h"
#include "suite/tests/support/bytes.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/decode_outcome.h"
#include "suite/tests/support/errors.h"
#include "suite/tests/support/files.h"
#include "suite/tests/support/values.h"

namespace serialcheck::test_support {
namespace {

using pickle::ErrorKind;

TEST(SupportBytes, LiteralsKeepTheirNuls) {
  EXPECT_EQ(bin("a\0b"), std::string("a\0b", 3));
  EXPECT_EQ(bin("").size(), 0u);
}

TEST(SupportBytes, LittleEndianIntegers) {
  EXPECT_EQ(le32(0x01020304), bin("\x04\x03\x02\x01"));
  EXPECT_EQ(le64(0x0102030405060708ULL), bin("\x08\x07\x06\x05\x04\x03\x02\x01"));
}

TEST(SupportBytes, RepeatWritesTheUnitNTimes) {
  EXPECT_EQ(repeat("ab", 3), "ababab");
  EXPECT_EQ(repeat("ab", 0), "");
}

TEST(SupportBytes, HexBothWays) {
  EXPECT_EQ(hex(bin("\x00\xff\x10")), "00ff10");
  EXPECT_EQ(unhex("00FF10"), bin("\x00\xff\x10"));
  EXPECT_THROW(unhex("0g"), std::invalid_argument);
  EXPECT_THROW(unhex("abc"), std::invalid_argument);
}

TEST(SupportBytes, Fnv1aOfKnownInputs) {
  EXPECT_EQ(fnv1a(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(fnv1a("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(fnv1a("N."), 0x09209a07b5b5db4dULL);  // the encoder table's None at protocol 0
}

TEST(SupportBytes, FirstDifferenceNamesTheByte) {
  EXPECT_THAT(first_difference("abcdef", "abcXef"),
              ::testing::StartsWith("first difference at byte 3"));
  EXPECT_THAT(first_difference("abc", "abcd"), ::testing::StartsWith("first difference at byte 3"));
}

TEST(SupportFiles, ReadsASourceFileAndSaysWhenItCannot) {
  std::optional<std::string> text = read_file(source_path("suite/tests/support/files.h"));
  ASSERT_TRUE(text.has_value());
  EXPECT_NE(text->find("read_file"), std::string::npos);
  EXPECT_FALSE(read_file(source_path("suite/tests/support/no-such-file")).has_value());
}

TEST(SupportValues, BuildsWhatTheGraphBuilds) {
  Graph g;
  Values v{g};
  Node* shared = v.s("x");
  Node* root = v.L({v.none(), v.t(), v.i(-1), v.big("-18446744073709551616"), v.fl(0.5), shared,
                    shared, v.b("b"), v.ba("ba"), v.T({v.i(1)}), v.D({v.s("k"), v.i(2)}),
                    v.S({v.i(3)}), v.FS({v.i(4)}), v.G("mod", "f")});
  ASSERT_EQ(root->items.size(), 14u);
  EXPECT_EQ(root->items[5], root->items[6]);
  EXPECT_EQ(root->items[3]->kind, Kind::Int);
  EXPECT_EQ(root->items[13]->kind, Kind::Global);
  EXPECT_THROW(v.big("12a"), std::invalid_argument);
  EXPECT_EQ(v.ints(3)->items.size(), 3u);
}

TEST(SupportValues, ObjectsAreTheReduceFormsTheEncoderWrites) {
  Graph g;
  Values v{g};
  Node* o = v.newobj({v.i(1)}, v.D());
  EXPECT_EQ(o->obj()->callable->name(), "__newobj__");
  ASSERT_EQ(o->obj()->args->items.size(), 2u);
  EXPECT_EQ(o->obj()->args->items[0]->name(), "Obj");
  EXPECT_NE(o->obj()->state, nullptr);
  Node* ex = v.newobj_ex(v.T(), v.D());
  EXPECT_EQ(ex->obj()->callable->name(), "__newobj_ex__");
  EXPECT_EQ(v.make(v.T())->obj()->callable->name(), "make");
}

TEST(SupportValues, WithLayoutFillsAnArrayOrTensorNode) {
  Graph g;
  Node* n = with_layout(g.ndarray(), "<f8", {2, 3}, {24, 8}, 8, std::string(56, '\0'));
  EXPECT_EQ(n->kind, Kind::NDArray);
  EXPECT_EQ(n->array()->dtype, "<f8");
  EXPECT_EQ(n->array()->shape, (std::vector<std::int64_t>{2, 3}));
  EXPECT_EQ(n->array()->strides, (std::vector<std::int64_t>{24, 8}));
  EXPECT_EQ(n->array()->offset, 8);
  EXPECT_EQ(n->payload().size(), 56u);
  EXPECT_FALSE(n->borrowed());
  EXPECT_EQ(with_layout(g.tensor(), "float32", {1}, {1}, 0, "abcd")->kind, Kind::Tensor);
}

TEST(SupportCodec, EncodesDecodesAndCompares) {
  Graph g;
  Values v{g};
  Node* value = v.L({v.i(1), v.s("a")});
  const std::string p2 = encode_at(value, 2);
  EXPECT_EQ(p2.substr(0, 2), bin("\x80\x02"));
  Graph back;
  Node* decoded = decode_into(p2, back);
  EXPECT_EQ(why_unequal(value, decoded), "");
  EXPECT_NE(why_unequal(value, v.L({v.i(2), v.s("a")})), "");  // negative control
}

// ---- the error matchers ---------------------------------------------------------------

TEST(SupportErrors, PickleErrorMatchesKindAndOffset) {
  EXPECT_TRUE(is_pickle_error(decode_error("e."), ErrorKind::MissingMark, 0));
  EXPECT_TRUE(is_pickle_error(decode_error("N"), ErrorKind::Truncated));
  EXPECT_FALSE(decode_error("N.").has_value());
  auto call = [] {
    Graph g;
    pickle::decode("\x80\x04(K\x01\x86.", g);
  };
  EXPECT_TRUE(throws_pickle_error(call, ErrorKind::StackUnderflow, 5));
  EXPECT_THAT(call, ThrowsPickleError(ErrorKind::StackUnderflow));
  EXPECT_THAT(call, ThrowsPickleError(ErrorKind::StackUnderflow, 5u));
}

TEST(SupportErrors, PickleErrorMatchersReportTheWrongKindOffsetOrNoError) {
  auto call = [] {
    Graph g;
    pickle::decode("e.", g);
  };
  auto fine = [] {
    Graph g;
    pickle::decode("N.", g);
  };
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(throws_pickle_error(call, ErrorKind::Truncated)),
                          "expected truncated");
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(throws_pickle_error(call, ErrorKind::MissingMark, 1)),
                          "at byte 0");
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(throws_pickle_error(fine, ErrorKind::MissingMark)),
                          "no PickleError");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(call, ThrowsPickleError(ErrorKind::BadValue)),
                          "expected bad-value");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(call, ThrowsPickleError(ErrorKind::MissingMark, 7u)),
                          "expected missing-mark at byte 7");
}

TEST(SupportErrors, ARefusalReadsAsThePickleErrorItWas) {
  const pickle::Allowlist none{};
  Graph g;
  const DecodeOutcome refused = decode_under("cos\nsystem\n.", &none, g);
  EXPECT_TRUE(is_pickle_error(refused.error(), ErrorKind::ForbiddenGlobal, 0));
  EXPECT_FALSE(is_pickle_error(refused.error(), ErrorKind::ForbiddenGlobal, 1));  // control
  Graph g2;
  EXPECT_FALSE(decode_under("N.", &none, g2).error().has_value());
}

TEST(SupportErrors, FrameErrorMatchesKindOffsetAndFrame) {
  auto call = [] { throw FrameError(FrameErrorKind::FrameOutOfRange, "past the end", 16, 2); };
  EXPECT_TRUE(throws_frame_error(call, FrameErrorKind::FrameOutOfRange, 16, 2));
  EXPECT_THAT(call, ThrowsFrameError(FrameErrorKind::FrameOutOfRange));
  EXPECT_THAT(call, ThrowsFrameError(FrameErrorKind::FrameOutOfRange, 16u));
  EXPECT_THAT(call, ThrowsFrameError(FrameErrorKind::FrameOutOfRange, 16u, 2u));
  auto no_place = [] { throw FrameError(FrameErrorKind::HeaderSchema, "not a map"); };
  EXPECT_TRUE(throws_frame_error(no_place, FrameErrorKind::HeaderSchema, FrameError::kNone,
                                 FrameError::kNone));
}

TEST(SupportErrors, FrameErrorMatchersReportTheWrongKindOffsetFrameOrNoError) {
  auto call = [] { throw FrameError(FrameErrorKind::FrameOutOfRange, "past the end", 16, 2); };
  auto fine = [] {};
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(throws_frame_error(call, FrameErrorKind::TrailingBytes)),
                          "expected trailing-bytes");
  EXPECT_NONFATAL_FAILURE(
      EXPECT_TRUE(throws_frame_error(call, FrameErrorKind::FrameOutOfRange, 15)), "at byte 16");
  EXPECT_NONFATAL_FAILURE(
      EXPECT_TRUE(throws_frame_error(call, FrameErrorKind::FrameOutOfRange, 16, 1)), "in frame 2");
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(throws_frame_error(fine, FrameErrorKind::FrameOutOfRange)),
                          "no FrameError");
  EXPECT_NONFATAL_FAILURE(EXPECT_THAT(call, ThrowsFrameError(FrameErrorKind::FrameOutOfRange, 0u)),
                          "expected frame-out-of-range at byte 0");
  EXPECT_NONFATAL_FAILURE(
      EXPECT_THAT(call, ThrowsFrameError(FrameErrorKind::FrameOutOfRange, 16u, 0u)),
      "expected frame-out-of-range at byte 16 in frame 0");
}

TEST(SupportErrors, JsonRefusalMatchesTheElement) {
  EXPECT_TRUE(json_refused_at(R"({"list":[{"tuple":7}]})", "/list/0/tuple"));
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(json_refused_at(R"({"list":[{"tuple":7}]})", "/list")),
                          "expected at '/list'");
  EXPECT_NONFATAL_FAILURE(EXPECT_TRUE(json_refused_at(R"({"list":[]})", "/list")), "accepted");
}

TEST(SupportErrors, ErrorOfReturnsTheErrorOrFailsTheTest) {
  FrameError none(FrameErrorKind::CompressionFailed, "none thrown");
  FrameError e =
      error_of<FrameError>([] { throw FrameError(FrameErrorKind::HeaderLimit, "deep"); }, none);
  EXPECT_EQ(e.kind(), FrameErrorKind::HeaderLimit);
  EXPECT_NONFATAL_FAILURE(
      EXPECT_EQ(error_of<FrameError>([] {}, none).kind(), FrameErrorKind::CompressionFailed),
      "the call threw no error");
}

}  // namespace
}  // namespace serialcheck::test_support
