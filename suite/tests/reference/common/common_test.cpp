// The basic pieces of reference/common: the one UTF-8 validator (strict and
// surrogatepass), the conversions to and from code points, Python's repr
// escapes and the hex encoder and decoder. Each check of a rejection has its
// accepted neighbour next to it, so a validator that accepts everything (or
// nothing) fails here.
#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "reference/common/hex.h"
#include "reference/common/pyrepr.h"
#include "reference/common/utf8.h"

namespace serialcheck {
namespace {

using namespace std::string_literals;

constexpr auto npos = std::string_view::npos;

TEST(CommonUtf8, WellFormedSequencesOfEveryLength) {
  for (Surrogates mode : {Surrogates::Reject, Surrogates::Allow}) {
    EXPECT_TRUE(valid_utf8("", mode));
    EXPECT_TRUE(valid_utf8("plain ascii, longer than eight bytes", mode));
    EXPECT_TRUE(valid_utf8("\xc2\x80 \xdf\xbf", mode));                  // U+0080, U+07FF
    EXPECT_TRUE(valid_utf8("\xe0\xa0\x80 \xef\xbf\xbf", mode));          // U+0800, U+FFFF
    EXPECT_TRUE(valid_utf8("\xf0\x90\x80\x80 \xf4\x8f\xbf\xbf", mode));  // U+10000, U+10FFFF
    EXPECT_TRUE(valid_utf8("\xed\x9f\xbf", mode));  // U+D7FF, below the surrogates
  }
}

TEST(CommonUtf8, OverlongFormsAreRejected) {
  for (Surrogates mode : {Surrogates::Reject, Surrogates::Allow}) {
    EXPECT_EQ(utf8_error_at("a\xc0\x80", mode), 1u);         // U+0000 in two bytes
    EXPECT_EQ(utf8_error_at("ab\xc1\xbf", mode), 2u);        // U+007F in two bytes
    EXPECT_EQ(utf8_error_at("\xe0\x9f\xbf", mode), 0u);      // U+07FF in three bytes
    EXPECT_EQ(utf8_error_at("\xf0\x8f\xbf\xbf", mode), 0u);  // U+FFFF in four bytes
    // Control: the shortest forms of the same code points.
    EXPECT_EQ(utf8_error_at("a\x00"s, mode), npos);
    EXPECT_EQ(utf8_error_at("\xdf\xbf\xef\xbf\xbf", mode), npos);
  }
}

TEST(CommonUtf8, OutOfRangeAndStrayBytesAreRejected) {
  for (Surrogates mode : {Surrogates::Reject, Surrogates::Allow}) {
    EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80", mode));  // U+110000
    EXPECT_FALSE(valid_utf8("\xf5\x80\x80\x80", mode));
    EXPECT_FALSE(valid_utf8("\xff", mode));
    EXPECT_EQ(utf8_error_at("0123456789\x80", mode), 10u);  // lone continuation after the fast path
    EXPECT_EQ(utf8_error_at("\xc3\x28", mode), 0u);         // lead without its continuation
    EXPECT_TRUE(valid_utf8("\xf4\x8f\xbf\xbf", mode));      // control: U+10FFFF
  }
}

TEST(CommonUtf8, TruncatedSequencesAreRejectedAtTheirStart) {
  for (Surrogates mode : {Surrogates::Reject, Surrogates::Allow}) {
    EXPECT_EQ(utf8_error_at("ab\xc3", mode), 2u);
    EXPECT_EQ(utf8_error_at("ab\xe2\x82", mode), 2u);
    EXPECT_EQ(utf8_error_at("ab\xf0\x9f\x98", mode), 2u);
    EXPECT_EQ(utf8_error_at("ab\xf0\x9f\x98\x80", mode), npos);  // control: complete
  }
}

TEST(CommonUtf8, SurrogatesOnlyWithSurrogatepass) {
  const std::string lone_high = "x\xed\xa0\x80";  // U+D800
  const std::string lone_low = "\xed\xbf\xbf";    // U+DFFF
  EXPECT_EQ(utf8_error_at(lone_high, Surrogates::Reject), 1u);
  EXPECT_EQ(utf8_error_at(lone_low, Surrogates::Reject), 0u);
  EXPECT_TRUE(valid_utf8(lone_high, Surrogates::Allow));
  EXPECT_TRUE(valid_utf8(lone_low, Surrogates::Allow));
  EXPECT_EQ(utf8_sequence_length(lone_low, 0, Surrogates::Allow), 3u);
  EXPECT_EQ(utf8_sequence_length(lone_low, 0, Surrogates::Reject), 0u);
}

TEST(CommonUtf8, IsAscii) {
  EXPECT_TRUE(is_ascii(""));
  EXPECT_TRUE(is_ascii("abc"));
  EXPECT_TRUE(is_ascii("abcdefghijklmnopq"));
  EXPECT_FALSE(is_ascii("ab\x80"));
  EXPECT_FALSE(is_ascii("abcd\xe9"));
  EXPECT_FALSE(is_ascii("abcdefghijklmnop\xff"));  // in the last, overlapping word
  EXPECT_FALSE(is_ascii("\xffxbcdefghijklmnop"));
}

TEST(CommonUtf8, CodePointsRoundTrip) {
  const std::string utf8 = "a\xc3\xa9\xed\xa0\x80\xf0\x9f\x98\x80";
  const std::u32string cps = U"a\u00e9\xd800\U0001f600";
  EXPECT_EQ(utf8_to_code_points(utf8), cps);
  EXPECT_EQ(utf8_from_code_points(cps), utf8);
  std::size_t i = 1;
  EXPECT_EQ(utf8_next_code_point(utf8, i), U'\u00e9');
  EXPECT_EQ(i, 3u);
  // Ill-formed bytes stand for themselves and are never read past.
  EXPECT_EQ(utf8_to_code_points("\xe2\x82"), U"\xe2\x82"s);
  EXPECT_NE(utf8_to_code_points("\xe2\x82\xac"), U"\xe2\x82\xac"s);  // control: U+20AC
}

TEST(CommonRepr, AsciiMatchesPython) {
  // ascii() of each string, as CPython 3.11 writes it.
  EXPECT_EQ(ascii_repr("abc"), "'abc'");
  EXPECT_EQ(ascii_repr("a'b"), "\"a'b\"");
  EXPECT_EQ(ascii_repr("a\"b'"), "'a\"b\\''");
  EXPECT_EQ(ascii_repr("a\"b"), "'a\"b'");
  EXPECT_EQ(ascii_repr("\t\n\r\\"s + '\0' + "\x1f\x7f"), "'\\t\\n\\r\\\\\\x00\\x1f\\x7f'");
  EXPECT_EQ(ascii_repr("\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80"), "'\\xe9\\u20ac\\U0001f600'");
  EXPECT_EQ(ascii_repr("\xed\xb2\x80"), "'\\udc80'");
  EXPECT_NE(ascii_repr("\xc3\xa9"), "'\\xc3\\xa9'");  // control: a code point, not its bytes
}

TEST(CommonRepr, BytesMatchesPython) {
  EXPECT_EQ(bytes_repr("a'b"), "b\"a'b\"");
  EXPECT_EQ(bytes_repr("\x00\x80\xff\\\t"s), "b'\\x00\\x80\\xff\\\\\\t'");
  EXPECT_EQ(bytes_repr("a\"b'"), "b'a\"b\\''");
  EXPECT_EQ(bytes_repr("xy", ""), "'xy'");
  EXPECT_NE(bytes_repr("\xc3\xa9"), "b'\\xe9'");  // control: bytes, not code points
}

TEST(CommonRepr, LimitStopsAfterTheTextGrowsPastIt) {
  EXPECT_EQ(ascii_repr("abcdef", 3), "'abc'");
  EXPECT_EQ(bytes_repr("abcdef", "b", 3), "b'ab'");
  EXPECT_EQ(ascii_repr("abcdef", 100), "'abcdef'");  // control: under the limit
}

TEST(CommonRepr, MessageEscapes) {
  std::string out;
  append_escaped_bytes(out, "a'\\\x01\x7f\xc3\xa9 z", Shown::PrintableAscii);
  EXPECT_EQ(out, "a\\x27\\x5c\\x01\\x7f\\xc3\\xa9 z");
  out.clear();
  append_escaped_bytes(out, "a'\\\x01\x7f\xc3\xa9 z", Shown::AllButControls);
  EXPECT_EQ(out, "a'\\x5c\\x01\\x7f\xc3\xa9 z");
  out.clear();
  append_hex_escape(out, 0xAB);
  EXPECT_EQ(out, "\\xab");
}

TEST(CommonHex, EncodeAndDecode) {
  EXPECT_EQ(hex_encode(""), "");
  EXPECT_EQ(hex_encode("\x00\x0f\x7f\xff"s), "000f7fff");
  EXPECT_EQ(hex_decode("000F7fFF"), "\x00\x0f\x7f\xff"s);
  EXPECT_EQ(hex_decode(""), "");
  EXPECT_EQ(hex_decode("abc"), std::nullopt);  // odd length
  EXPECT_EQ(hex_decode("0g"), std::nullopt);   // not a digit
  EXPECT_EQ(hex_decode("0 "), std::nullopt);
  EXPECT_EQ(hex_digit_value('f'), 15);
  EXPECT_EQ(hex_digit_value('F'), 15);
  EXPECT_EQ(hex_digit_value('G'), -1);
  std::string out = "x";
  append_hex_digits(out, 0x1f600, 8);
  EXPECT_EQ(out, "x0001f600");
}

}  // namespace
}  // namespace serialcheck
