// Decoder tests against exact streams written by CPython 3.11's C pickler
// (pickle.dumps at protocols 0-5), plus hand-written streams for the opcodes
// CPython 3 no longer writes (INST, OBJ, STRING, DUP...), identity, out-of-band
// buffers, protocol negotiation and limits.
#include "reference/pickle/decoder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "reference/pickle/compat.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/text.h"
#include "reference/types/builtin_reduce.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/bytes.h"
#include "suite/tests/support/errors.h"

namespace serialcheck::pickle {
namespace {

using namespace std::string_literals;
using namespace std::string_view_literals;

// ---- streams written by CPython (pickle.dumps(value, protocol=N)) ---------
constexpr std::string_view kNone[] = {
    "N."sv, "N."sv, "\x80\x02N."sv, "\x80\x03N."sv, "\x80\x04N."sv, "\x80\x05N."sv,
};
constexpr std::string_view kBools[] = {
    "(lp0\nI01\naI00\na."sv,
    "]q\x00(I01\nI00\ne."sv,
    "\x80\x02]q\x00(\x88\x89"
    "e."sv,
    "\x80\x03]q\x00(\x88\x89"
    "e."sv,
    "\x80\x04\x95\x07\x00\x00\x00\x00\x00\x00\x00]\x94(\x88\x89"
    "e."sv,
    "\x80\x05\x95\x07\x00\x00\x00\x00\x00\x00\x00]\x94(\x88\x89"
    "e."sv,
};
constexpr std::string_view kInts[] = {
    "(lp0\nI0\naI1\naI255\naI256\naI65535\naI65536\naI-1\naI-2147483648\naI2147483647\naL214748"
    "3648L\naL9223372036854775808L\naL-9223372036854775809L\naL1267650600228229401496703205376L"
    "\na."sv,
    "]q\x00(K\x00K\x01K\xffM\x00\x01M\xff\xffJ\x00\x00\x01\x00J\xff\xff\xff\xffJ\x00\x00\x00"
    "\x80J\xff\xff\xff\x7fL2147483648L\nL9223372036854775808L\nL-9223372036854775809L\nL1267650"
    "600228229401496703205376L\ne."sv,
    "\x80\x02]q\x00(K\x00K\x01K\xffM\x00\x01M\xff\xffJ\x00\x00\x01\x00J\xff\xff\xff\xffJ\x00"
    "\x00\x00\x80J\xff\xff\xff\x7f\x8a\x05\x00\x00\x00\x80\x00\x8a\x09\x00\x00\x00\x00\x00\x00"
    "\x00\x80\x00\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff\x8a\x0d\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x10"
    "e."sv,
    "\x80\x03]q\x00(K\x00K\x01K\xffM\x00\x01M\xff\xffJ\x00\x00\x01\x00J\xff\xff\xff\xffJ\x00"
    "\x00\x00\x80J\xff\xff\xff\x7f\x8a\x05\x00\x00\x00\x80\x00\x8a\x09\x00\x00\x00\x00\x00\x00"
    "\x00\x80\x00\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff\x8a\x0d\x00\x00\x00\x00\x00\x00"
    "\x00\x00\x00\x00\x00\x00\x10"
    "e."sv,
    "\x80\x04\x95Q\x00\x00\x00\x00\x00\x00\x00]\x94(K\x00K\x01K\xffM\x00\x01M\xff\xffJ\x00\x00"
    "\x01\x00J\xff\xff\xff\xffJ\x00\x00\x00\x80J\xff\xff\xff\x7f\x8a\x05\x00\x00\x00\x80\x00"
    "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff"
    "\x8a\x0d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"
    "e."sv,
    "\x80\x05\x95Q\x00\x00\x00\x00\x00\x00\x00]\x94(K\x00K\x01K\xffM\x00\x01M\xff\xffJ\x00\x00"
    "\x01\x00J\xff\xff\xff\xffJ\x00\x00\x00\x80J\xff\xff\xff\x7f\x8a\x05\x00\x00\x00\x80\x00"
    "\x8a\x09\x00\x00\x00\x00\x00\x00\x00\x80\x00\x8a\x09\xff\xff\xff\xff\xff\xff\xff\x7f\xff"
    "\x8a\x0d\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10"
    "e."sv,
};
constexpr std::string_view kFloats[] = {
    "(lp0\nF1.5\naF-0.0\naFinf\naF1e+300\na."sv,
    "]q\x00(G\x3f\xf8\x00\x00\x00\x00\x00\x00G\x80\x00\x00\x00\x00\x00\x00\x00G\x7f\xf0\x00\x00"
    "\x00\x00\x00\x00G~7\xe4<\x88\x00u\x9c"
    "e."sv,
    "\x80\x02]q\x00(G\x3f\xf8\x00\x00\x00\x00\x00\x00G\x80\x00\x00\x00\x00\x00\x00\x00G\x7f\xf0"
    "\x00\x00\x00\x00\x00\x00G~7\xe4<\x88\x00u\x9c"
    "e."sv,
    "\x80\x03]q\x00(G\x3f\xf8\x00\x00\x00\x00\x00\x00G\x80\x00\x00\x00\x00\x00\x00\x00G\x7f\xf0"
    "\x00\x00\x00\x00\x00\x00G~7\xe4<\x88\x00u\x9c"
    "e."sv,
    "\x80\x04\x95)\x00\x00\x00\x00\x00\x00\x00]\x94(G\x3f\xf8\x00\x00\x00\x00\x00\x00G\x80\x00"
    "\x00\x00\x00\x00\x00\x00G\x7f\xf0\x00\x00\x00\x00\x00\x00G~7\xe4<\x88\x00u\x9c"
    "e."sv,
    "\x80\x05\x95)\x00\x00\x00\x00\x00\x00\x00]\x94(G\x3f\xf8\x00\x00\x00\x00\x00\x00G\x80\x00"
    "\x00\x00\x00\x00\x00\x00G\x7f\xf0\x00\x00\x00\x00\x00\x00G~7\xe4<\x88\x00u\x9c"
    "e."sv,
};
constexpr std::string_view kStrs[] = {
    "(lp0\nV\np1\naVa\np2\naV\xe9\np3\naV\\u20ac\np4\naV\\U0001f600\np5\naV\\ud800\np6\naVa\\u0"
    "05cb\\u000a\\u000d\\u001a\\u0000\np7\naVxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\np8\na."sv,
    "]q\x00(X\x00\x00\x00\x00q\x01X\x01\x00\x00\x00"
    "aq\x02X\x02\x00\x00\x00\xc3\xa9q\x03X\x03"
    "\x00\x00\x00\xe2\x82\xacq\x04X\x04\x00\x00\x00\xf0\x9f\x98\x80q\x05X\x03\x00\x00\x00\xed"
    "\xa0\x80q\x06X\x07\x00\x00\x00"
    "a\\b\n\x0d\x1a\x00q\x07X,\x01\x00\x00xxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxq\x08"
    "e."sv,
    "\x80\x02]q\x00(X\x00\x00\x00\x00q\x01X\x01\x00\x00\x00"
    "aq\x02X\x02\x00\x00\x00\xc3\xa9q"
    "\x03X\x03\x00\x00\x00\xe2\x82\xacq\x04X\x04\x00\x00\x00\xf0\x9f\x98\x80q\x05X\x03\x00\x00"
    "\x00\xed\xa0\x80q\x06X\x07\x00\x00\x00"
    "a\\b\n\x0d\x1a\x00q\x07X,\x01\x00\x00xxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxq\x08"
    "e."sv,
    "\x80\x03]q\x00(X\x00\x00\x00\x00q\x01X\x01\x00\x00\x00"
    "aq\x02X\x02\x00\x00\x00\xc3\xa9q"
    "\x03X\x03\x00\x00\x00\xe2\x82\xacq\x04X\x04\x00\x00\x00\xf0\x9f\x98\x80q\x05X\x03\x00\x00"
    "\x00\xed\xa0\x80q\x06X\x07\x00\x00\x00"
    "a\\b\n\x0d\x1a\x00q\x07X,\x01\x00\x00xxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxq\x08"
    "e."sv,
    "\x80\x04\x95`\x01\x00\x00\x00\x00\x00\x00]\x94(\x8c\x00\x94\x8c\x01"
    "a\x94\x8c\x02\xc3"
    "\xa9\x94\x8c\x03\xe2\x82\xac\x94\x8c\x04\xf0\x9f\x98\x80\x94\x8c\x03\xed\xa0\x80\x94\x8c"
    "\x07"
    "a\\b\n\x0d\x1a\x00\x94X,\x01\x00\x00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\x94"
    "e."sv,
    "\x80\x05\x95`\x01\x00\x00\x00\x00\x00\x00]\x94(\x8c\x00\x94\x8c\x01"
    "a\x94\x8c\x02\xc3"
    "\xa9\x94\x8c\x03\xe2\x82\xac\x94\x8c\x04\xf0\x9f\x98\x80\x94\x8c\x03\xed\xa0\x80\x94\x8c"
    "\x07"
    "a\\b\n\x0d\x1a\x00\x94X,\x01\x00\x00xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx\x94"
    "e."sv,
};
constexpr std::string_view kBytes[] = {
    "(lp0\nc__builtin__\nbytes\np1\n(tRp2\nac_codecs\nencode\np3\n(Vab\np4\nVlatin1\np5\ntp6\nR"
    "p7\nag3\n(V\xff\\u0000\np8\ng5\ntp9\nRp10\nag3\n(Vyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\np11\ng5"
    "\ntp12\nRp13\na."sv,
    "]q\x00(c__builtin__\nbytes\nq\x01)Rq\x02"
    "c_codecs\nencode\nq\x03(X\x02\x00\x00\x00"
    "abq"
    "\x04X\x06\x00\x00\x00latin1q\x05tq\x06Rq\x07h\x03(X\x03\x00\x00\x00\xc3\xbf\x00q\x08h\x05t"
    "q\x09Rq\nh\x03(X,\x01\x00\x00yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyq\x0bh\x05tq\x0cRq\x0d"
    "e."sv,
    "\x80\x02]q\x00(c__builtin__\nbytes\nq\x01)Rq\x02"
    "c_codecs\nencode\nq\x03X\x02\x00\x00"
    "\x00"
    "abq\x04X\x06\x00\x00\x00latin1q\x05\x86q\x06Rq\x07h\x03X\x03\x00\x00\x00\xc3\xbf"
    "\x00q\x08h\x05\x86q\x09Rq\nh\x03X,\x01\x00\x00yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyq\x0bh\x05\x86"
    "q\x0cRq\x0d"
    "e."sv,
    "\x80\x03]q\x00(C\x00q\x01"
    "C\x02"
    "abq\x02"
    "C\x02\xff\x00q\x03"
    "B,\x01\x00\x00yyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyq\x04"
    "e."sv,
    "\x80\x04\x95"
    "D\x01\x00\x00\x00\x00\x00\x00]\x94(C\x00\x94"
    "C\x02"
    "ab\x94"
    "C\x02\xff"
    "\x00\x94"
    "B,\x01\x00\x00yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\x94"
    "e."sv,
    "\x80\x05\x95"
    "D\x01\x00\x00\x00\x00\x00\x00]\x94(C\x00\x94"
    "C\x02"
    "ab\x94"
    "C\x02\xff"
    "\x00\x94"
    "B,\x01\x00\x00yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy"
    "yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\x94"
    "e."sv,
};
constexpr std::string_view kByteArrays[] = {
    "(lp0\nc__builtin__\nbytearray\np1\n(c_codecs\nencode\np2\n(Vab\np3\nVlatin1\np4\ntp5\nRp6"
    "\ntp7\nRp8\nag1\n(tRp9\na."sv,
    "]q\x00(c__builtin__\nbytearray\nq\x01(c_codecs\nencode\nq\x02(X\x02\x00\x00\x00"
    "abq\x03X"
    "\x06\x00\x00\x00latin1q\x04tq\x05Rq\x06tq\x07Rq\x08h\x01)Rq\x09"
    "e."sv,
    "\x80\x02]q\x00(c__builtin__\nbytearray\nq\x01"
    "c_codecs\nencode\nq\x02X\x02\x00\x00\x00"
    ""
    "abq\x03X\x06\x00\x00\x00latin1q\x04\x86q\x05Rq\x06\x85q\x07Rq\x08h\x01)Rq\x09"
    "e."sv,
    "\x80\x03]q\x00(cbuiltins\nbytearray\nq\x01"
    "C\x02"
    "abq\x02\x85q\x03Rq\x04h\x01)Rq\x05"
    ""
    "e."sv,
    "\x80\x04\x95,\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x08"
    "builtins\x94\x8c\x09"
    "bytearray"
    "\x94\x93\x94"
    "C\x02"
    "ab\x94\x85\x94R\x94h\x03)R\x94"
    "e."sv,
    "\x80\x05\x95\x1b\x00\x00\x00\x00\x00\x00\x00]\x94(\x96\x02\x00\x00\x00\x00\x00\x00\x00"
    "a"
    "b\x94\x96\x00\x00\x00\x00\x00\x00\x00\x00\x94"
    "e."sv,
};
constexpr std::string_view kContainers[] = {
    "(lp0\n(lp1\nI1\naI2\naa(I3\ntp2\na(dp3\nVk\np4\nI4\nsVj\np5\nI5\nsac__builtin__\nset\np6\n"
    "((lp7\nI1\naI2\natp8\nRp9\nac__builtin__\nfrozenset\np10\n((lp11\nI7\natp12\nRp13\nag6\n(("
    "lp14\ntp15\nRp16\nag10\n((lp17\ntp18\nRp19\na."sv,
    "]q\x00(]q\x01(K\x01K\x02"
    "e(K\x03tq\x02}q\x03(X\x01\x00\x00\x00kq\x04K\x04X\x01\x00\x00"
    "\x00jq\x05K\x05uc__builtin__\nset\nq\x06(]q\x07(K\x01K\x02"
    "etq\x08Rq\x09"
    "c__builtin__"
    "\nfrozenset\nq\n(]q\x0bK\x07"
    "atq\x0cRq\x0dh\x06(]q\x0etq\x0fRq\x10h\n(]q\x11tq\x12Rq\x13"
    ""
    "e."sv,
    "\x80\x02]q\x00(]q\x01(K\x01K\x02"
    "eK\x03\x85q\x02}q\x03(X\x01\x00\x00\x00kq\x04K\x04X\x01"
    "\x00\x00\x00jq\x05K\x05uc__builtin__\nset\nq\x06]q\x07(K\x01K\x02"
    "e\x85q\x08Rq\x09"
    "c__"
    "builtin__\nfrozenset\nq\n]q\x0bK\x07"
    "a\x85q\x0cRq\x0dh\x06]q\x0e\x85q\x0fRq\x10h\n]q\x11"
    "\x85q\x12Rq\x13"
    "e."sv,
    "\x80\x03]q\x00(]q\x01(K\x01K\x02"
    "eK\x03\x85q\x02}q\x03(X\x01\x00\x00\x00kq\x04K\x04X\x01"
    "\x00\x00\x00jq\x05K\x05ucbuiltins\nset\nq\x06]q\x07(K\x01K\x02"
    "e\x85q\x08Rq\x09"
    "cbuilt"
    "ins\nfrozenset\nq\n]q\x0bK\x07"
    "a\x85q\x0cRq\x0dh\x06]q\x0e\x85q\x0fRq\x10h\n]q\x11\x85q"
    "\x12Rq\x13"
    "e."sv,
    "\x80\x04\x95"
    "3\x00\x00\x00\x00\x00\x00\x00]\x94(]\x94(K\x01K\x02"
    "eK\x03\x85\x94}\x94("
    "\x8c\x01k\x94K\x04\x8c\x01j\x94K\x05u\x8f\x94(K\x01K\x02\x90(K\x07\x91\x94\x8f\x94(\x91"
    "\x94"
    "e."sv,
    "\x80\x05\x95"
    "3\x00\x00\x00\x00\x00\x00\x00]\x94(]\x94(K\x01K\x02"
    "eK\x03\x85\x94}\x94("
    "\x8c\x01k\x94K\x04\x8c\x01j\x94K\x05u\x8f\x94(K\x01K\x02\x90(K\x07\x91\x94\x8f\x94(\x91"
    "\x94"
    "e."sv,
};
constexpr std::string_view kTuples[] = {
    "(lp0\n(ta(I1\ntp1\na(I1\nI2\ntp2\na(I1\nI2\nI3\ntp3\na(I1\nI2\nI3\nI4\ntp4\na."sv,
    "]q\x00()(K\x01tq\x01(K\x01K\x02tq\x02(K\x01K\x02K\x03tq\x03(K\x01K\x02K\x03K\x04tq\x04"
    "e"
    "."sv,
    "\x80\x02]q\x00()K\x01\x85q\x01K\x01K\x02\x86q\x02K\x01K\x02K\x03\x87q\x03(K\x01K\x02K\x03K"
    "\x04tq\x04"
    "e."sv,
    "\x80\x03]q\x00()K\x01\x85q\x01K\x01K\x02\x86q\x02K\x01K\x02K\x03\x87q\x03(K\x01K\x02K\x03K"
    "\x04tq\x04"
    "e."sv,
    "\x80\x04\x95#\x00\x00\x00\x00\x00\x00\x00]\x94()K\x01\x85\x94K\x01K\x02\x86\x94K\x01K\x02K"
    "\x03\x87\x94(K\x01K\x02K\x03K\x04t\x94"
    "e."sv,
    "\x80\x05\x95#\x00\x00\x00\x00\x00\x00\x00]\x94()K\x01\x85\x94K\x01K\x02\x86\x94K\x01K\x02K"
    "\x03\x87\x94(K\x01K\x02K\x03K\x04t\x94"
    "e."sv,
};
constexpr std::string_view kGlobals[] = {
    "(lp0\nc__builtin__\nlen\np1\naccollections\nOrderedDict\np2\nac__builtin__\nreduce\np3\na."sv,
    "]q\x00(c__builtin__\nlen\nq\x01"
    "ccollections\nOrderedDict\nq\x02"
    "c__builtin__\nreduce"
    "\nq\x03"
    "e."sv,
    "\x80\x02]q\x00(c__builtin__\nlen\nq\x01"
    "ccollections\nOrderedDict\nq\x02"
    "c__builtin__"
    "\nreduce\nq\x03"
    "e."sv,
    "\x80\x03]q\x00(cbuiltins\nlen\nq\x01"
    "ccollections\nOrderedDict\nq\x02"
    "c_functools\nred"
    "uce\nq\x03"
    "e."sv,
    "\x80\x04\x95N\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x08"
    "builtins\x94\x8c\x03len\x94\x93"
    "\x94\x8c\x0b"
    "collections\x94\x8c\x0bOrderedDict\x94\x93\x94\x8c\n_functools\x94\x8c\x06r"
    "educe\x94\x93\x94"
    "e."sv,
    "\x80\x05\x95N\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x08"
    "builtins\x94\x8c\x03len\x94\x93"
    "\x94\x8c\x0b"
    "collections\x94\x8c\x0bOrderedDict\x94\x93\x94\x8c\n_functools\x94\x8c\x06r"
    "educe\x94\x93\x94"
    "e."sv,
};
constexpr std::string_view kOrderedDict[] = {
    "ccollections\nOrderedDict\np0\n(tRp1\nVa\np2\nI1\ns."sv,
    "ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00"
    "aq\x02K\x01s."sv,
    "\x80\x02"
    "ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00"
    "aq\x02K\x01s."sv,
    "\x80\x03"
    "ccollections\nOrderedDict\nq\x00)Rq\x01X\x01\x00\x00\x00"
    "aq\x02K\x01s."sv,
    "\x80\x04\x95)\x00\x00\x00\x00\x00\x00\x00\x8c\x0b"
    "collections\x94\x8c\x0bOrderedDict\x94"
    "\x93\x94)R\x94\x8c\x01"
    "a\x94K\x01s."sv,
    "\x80\x05\x95)\x00\x00\x00\x00\x00\x00\x00\x8c\x0b"
    "collections\x94\x8c\x0bOrderedDict\x94"
    "\x93\x94)R\x94\x8c\x01"
    "a\x94K\x01s."sv,
};
constexpr std::string_view kNamespace[] = {
    "ctypes\nSimpleNamespace\np0\n(tRp1\n(dp2\nVa\np3\nI1\nsb."sv,
    "ctypes\nSimpleNamespace\nq\x00)Rq\x01}q\x02X\x01\x00\x00\x00"
    "aq\x03K\x01sb."sv,
    "\x80\x02"
    "ctypes\nSimpleNamespace\nq\x00)Rq\x01}q\x02X\x01\x00\x00\x00"
    "aq\x03K\x01sb."sv,
    "\x80\x03"
    "ctypes\nSimpleNamespace\nq\x00)Rq\x01}q\x02X\x01\x00\x00\x00"
    "aq\x03K\x01sb."sv,
    "\x80\x04\x95*\x00\x00\x00\x00\x00\x00\x00\x8c\x05types\x94\x8c\x0fSimpleNamespace\x94\x93"
    "\x94)R\x94}\x94\x8c\x01"
    "a\x94K\x01sb."sv,
    "\x80\x05\x95*\x00\x00\x00\x00\x00\x00\x00\x8c\x05types\x94\x8c\x0fSimpleNamespace\x94\x93"
    "\x94)R\x94}\x94\x8c\x01"
    "a\x94K\x01sb."sv,
};
constexpr std::string_view kInstance[] = {
    "ccopy_reg\n_reconstructor\np0\n(cmod\nC\np1\nc__builtin__\nobject\np2\nNtp3\nRp4\n(dp5\nVa"
    "\np6\nI1\nsb."sv,
    "ccopy_reg\n_reconstructor\nq\x00(cmod\nC\nq\x01"
    "c__builtin__\nobject\nq\x02Ntq\x03Rq\x04"
    "}q\x05X\x01\x00\x00\x00"
    "aq\x06K\x01sb."sv,
    "\x80\x02"
    "cmod\nC\nq\x00)\x81q\x01}q\x02X\x01\x00\x00\x00"
    "aq\x03K\x01sb."sv,
    "\x80\x03"
    "cmod\nC\nq\x00)\x81q\x01}q\x02X\x01\x00\x00\x00"
    "aq\x03K\x01sb."sv,
    "\x80\x04\x95\x1a\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x01"
    "C\x94\x93\x94)\x81"
    "\x94}\x94\x8c\x01"
    "a\x94K\x01sb."sv,
    "\x80\x05\x95\x1a\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x01"
    "C\x94\x93\x94)\x81"
    "\x94}\x94\x8c\x01"
    "a\x94K\x01sb."sv,
};
constexpr std::string_view kListSub[] = {
    "ccopy_reg\n_reconstructor\np0\n(cmod\nL\np1\nc__builtin__\nlist\np2\n(lp3\nI1\naI2\natp4\n"
    "Rp5\n."sv,
    "ccopy_reg\n_reconstructor\nq\x00(cmod\nL\nq\x01"
    "c__builtin__\nlist\nq\x02]q\x03(K\x01K"
    "\x02"
    "etq\x04Rq\x05."sv,
    "\x80\x02"
    "cmod\nL\nq\x00)\x81q\x01(K\x01K\x02"
    "e."sv,
    "\x80\x03"
    "cmod\nL\nq\x00)\x81q\x01(K\x01K\x02"
    "e."sv,
    "\x80\x04\x95\x16\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x01L\x94\x93\x94)\x81\x94("
    "K\x01K\x02"
    "e."sv,
    "\x80\x05\x95\x16\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x01L\x94\x93\x94)\x81\x94("
    "K\x01K\x02"
    "e."sv,
};
constexpr std::string_view kBigIntP0 =
    "L12302319221611171769315588132767525146407138957368337157661180291600588006146729487753600"
    "678385934595824296492540518049085128841808982368235850824820653483312349593503558450174130"
    "233201113606669226247282397568804164344783156936750134130907572086903767932966588106629418"
    "244934884517265053037129160053467479086237026734809193539368131057366204023527447769038404"
    "778836511003224093019834883638029305404824879097634840982539407286851320444088637347542712"
    "125924717786439494866885117210515619704327807474548237768084641806971030838618121843485655"
    "227401957966826222055118455120805520103100502558015893496459280011337454742207150136834139"
    "075427790637598338761013542351842450966700421607206294115815023712480084304471848420986103"
    "205804179922066622473287221220885136436839076703602091626536706411309369970021705006755013"
    "747239987660058275793007232534748906122501351718891748990799112915123997738721785190182299"
    "89376L\n."sv;
constexpr std::string_view kSelfList[] = {
    "(lp0\ng0\na."sv,
    "]q\x00h\x00"
    "a."sv,
    "\x80\x02]q\x00h\x00"
    "a."sv,
    "\x80\x03]q\x00h\x00"
    "a."sv,
    "\x80\x04\x95\x06\x00\x00\x00\x00\x00\x00\x00]\x94h\x00"
    "a."sv,
    "\x80\x05\x95\x06\x00\x00\x00\x00\x00\x00\x00]\x94h\x00"
    "a."sv,
};
constexpr std::string_view kSharedTuple[] = {
    "(lp0\n(I1\nI2\ntp1\nag1\na."sv,
    "]q\x00((K\x01K\x02tq\x01h\x01"
    "e."sv,
    "\x80\x02]q\x00(K\x01K\x02\x86q\x01h\x01"
    "e."sv,
    "\x80\x03]q\x00(K\x01K\x02\x86q\x01h\x01"
    "e."sv,
    "\x80\x04\x95\x0d\x00\x00\x00\x00\x00\x00\x00]\x94(K\x01K\x02\x86\x94h\x01"
    "e."sv,
    "\x80\x05\x95\x0d\x00\x00\x00\x00\x00\x00\x00]\x94(K\x01K\x02\x86\x94h\x01"
    "e."sv,
};
constexpr std::string_view kRecTuple[] = {
    "((lp0\n(g0\ntp1\na00g1\n."sv,
    "(]q\x00(h\x00tq\x01"
    "a1h\x01."sv,
    "\x80\x02]q\x00h\x00\x85q\x01"
    "a0h\x01."sv,
    "\x80\x03]q\x00h\x00\x85q\x01"
    "a0h\x01."sv,
    "\x80\x04\x95\x0b\x00\x00\x00\x00\x00\x00\x00]\x94h\x00\x85\x94"
    "a0h\x01."sv,
    "\x80\x05\x95\x0b\x00\x00\x00\x00\x00\x00\x00]\x94h\x00\x85\x94"
    "a0h\x01."sv,
};
// o = mod.make() with state {'k': r}, r = mod.make(o, [r]): r's argument
// tuple reaches r again, so the pickler writes r twice and drops the outer
// copy (REDUCE, POP, then the memo's r) before o's BUILD. What the C pickler
// writes (encoder-hashes row obj_reached_from_its_args); from protocol 2 the
// dropped call is on a TUPLE2 tuple, as a state_setter's call is.
constexpr std::string_view kReachedFromArgs[] = {
    "cmod\nmake\np0\n(tRp1\n(dp2\nVk\np3\ng0\n(g1\n(lp4\ng0\n(g1\ng4\ntp5\nRp6\na000g5\nR0g6\nsb."sv,
    "cmod\nmake\nq\x00)Rq\x01}q\x02X\x01\x00\x00\x00kq\x03h\x00(h\x01]q\x04h\x00("
    "h\x01h\x04tq\x05Rq\x06"
    "a1h\x05R0h\x06sb."sv,
    "\x80\x02"
    "cmod\nmake\nq\x00)Rq\x01}q\x02X\x01\x00\x00\x00kq\x03h\x00h\x01]"
    "q\x04h\x00h\x01h\x04\x86q\x05Rq\x06"
    "a00h\x05R0h\x06sb."sv,
    "\x80\x03"
    "cmod\nmake\nq\x00)Rq\x01}q\x02X\x01\x00\x00\x00kq\x03h\x00h\x01]"
    "q\x04h\x00h\x01h\x04\x86q\x05Rq\x06"
    "a00h\x05R0h\x06sb."sv,
    "\x80\x04\x95"
    "4\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x04make\x94\x93\x94)R\x94}"
    "\x94\x8c\x01k\x94h\x02h\x03]\x94h\x02h\x03h\x06\x86\x94R\x94"
    "a00h\x07R0h\x08sb."sv,
    "\x80\x05\x95"
    "4\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x04make\x94\x93\x94)R\x94}"
    "\x94\x8c\x01k\x94h\x02h\x03]\x94h\x02h\x03h\x06\x86\x94R\x94"
    "a00h\x07R0h\x08sb."sv,
};
constexpr std::string_view kKwP4 =
    "\x80\x04\x95\x1d\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x02KW\x94\x93\x94K\x01\x85"
    "\x94}\x94\x8c\x01k\x94K\x02s\x92\x94."sv;
constexpr std::string_view kKwP5 =
    "\x80\x05\x95\x1d\x00\x00\x00\x00\x00\x00\x00\x8c\x03mod\x94\x8c\x02KW\x94\x93\x94K\x01\x85"
    "\x94}\x94\x8c\x01k\x94K\x02s\x92\x94."sv;
// The same reduce at protocol 2: partial(cls.__new__, cls, 1, k=2)(), where
// KW's __new__ is object.__new__ and KWN has one of its own.
constexpr std::string_view kKwP2 =
    "\x80\x02"
    "cfunctools\x0apartial\x0aq\x00"
    "c__builtin__\x0agetattr\x0aq\x01"
    "c__builtin__\x0aobject\x0aq\x02X\x07\x00\x00\x00__new__q\x03\x86q\x04Rq\x05\x85q\x06Rq\x07"
    "(h\x05"
    "cmod\x0aKW\x0aq\x08K\x01\x86q\x09}q\x0aX\x01\x00\x00\x00kq\x0bK\x02sNtq\x0c"
    "b)Rq\x0d."sv;
constexpr std::string_view kKwNewP2 =
    "\x80\x02"
    "cfunctools\x0apartial\x0aq\x00"
    "c__builtin__\x0agetattr\x0aq\x01"
    "cmod\x0aKWN\x0aq\x02X\x07\x00\x00\x00__new__q\x03\x86q\x04Rq\x05\x85q\x06Rq\x07(h\x05h\x02"
    "K\x01\x86q\x08}q\x09X\x01\x00\x00\x00kq\x0aK\x02sNtq\x0b"
    "b)Rq\x0c."sv;
constexpr std::string_view kSetterP2 =
    "\x80\x02"
    "cmod\nS\nq\x00)Rq\x01"
    "cmod\nsetter\nq\x02h\x01}q\x03X\x01\x00\x00\x00sq\x04K"
    "\x01s\x86R0."sv;
constexpr std::string_view kSetterP0 =
    "cmod\nS\np0\n(tRp1\ncmod\nsetter\np2\ng1\n(dp3\nVs\np4\nI1\ns\x86R0."sv;
constexpr std::string_view kPersIdP0 = "(lp0\nPpid1\na."sv;
constexpr std::string_view kPersIdP2 = "\x80\x02]q\x00X\x04\x00\x00\x00pid1q\x01Qa."sv;
constexpr std::string_view kExtP2 =
    "\x80\x02]q\x00(\x82\x01\x83,\x01\x84p\x11\x01\x00"
    "e."sv;
constexpr std::string_view kOutOfBandP5 =
    "\x80\x05\x95\x08\x00\x00\x00\x00\x00\x00\x00]\x94(\x97\x97\x98"
    "e."sv;
constexpr std::string_view kInBandP5 =
    "\x80\x05\x95\x16\x00\x00\x00\x00\x00\x00\x00]\x94(\x96\x02\x00\x00\x00\x00\x00\x00\x00"
    "a"
    "b\x94"
    "C\x02"
    "cd\x94"
    "e."sv;

// ---- helpers ----------------------------------------------------------------

using test_support::le32;
using test_support::le64;

// Builds expected values.
struct Build {
  Graph& g;
  std::map<std::string, Node*> globals;
  Node* none() { return g.none(); }
  Node* t() { return g.boolean(true); }
  Node* f() { return g.boolean(false); }
  Node* i(std::int64_t v) { return g.integer(v); }
  Node* fl(double v) { return g.floating(v); }
  Node* s(std::string_view v) { return g.str(std::string(v)); }
  Node* b(std::string_view v) { return g.bytes(std::string(v)); }
  Node* ba(std::string_view v) { return g.bytearray(std::string(v)); }
  Node* list(std::vector<Node*> items) { return g.list(std::move(items)); }
  Node* tuple(std::vector<Node*> items) { return g.tuple(std::move(items)); }
  Node* dict(std::vector<Node*> kv) { return g.dict(std::move(kv)); }
  Node* set(std::vector<Node*> items) { return g.set(std::move(items)); }
  Node* frozenset(std::vector<Node*> items) { return g.frozenset(std::move(items)); }
  // Interned, as the decoder interns them: one node per qualified name.
  Node* glob(std::string_view m, std::string_view n) {
    Node*& slot = globals[std::string(m) + "\n" + std::string(n)];
    if (slot == nullptr) slot = g.global(std::string(m), std::string(n));
    return slot;
  }
  Node* obj(Node* callable, Node* args) { return g.object(callable, args); }
  Node* newobj(std::string_view m, std::string_view n, std::vector<Node*> args = {}) {
    args.insert(args.begin(), glob(m, n));
    return obj(glob("copyreg", "__newobj__"), tuple(std::move(args)));
  }
};

void expect_same(const Node* got, const Node* want, const std::string& context = "") {
  if (got == nullptr) {
    ADD_FAILURE() << context << ": nothing decoded";
    return;
  }
  Difference why;
  EXPECT_TRUE(equal(got, want, &why))
      << context << ": differs at " << why.path << ": " << why.reason;
}

const Node* decode_ok(std::string_view data, Graph& g, const DecodeOptions& options = {}) {
  try {
    DecodeResult r = decode(data, g, options);
    EXPECT_EQ(g.root, r.root);
    return r.root;
  } catch (const PickleError& e) {
    ADD_FAILURE() << "unexpected error: " << e.what();
    return nullptr;
  }
}

// decode_ok() with the decode's statistics.
const Node* decode_counted(std::string_view data, Graph& g, DecodeStats& stats) {
  DecodeOptions options;
  options.stats = &stats;
  return decode_ok(data, g, options);
}

// Decoding `data` fails with `kind` at byte `offset`.
void expect_failure_at(std::string_view data, ErrorKind kind, std::size_t offset,
                       const DecodeOptions& options = {}) {
  EXPECT_TRUE(
      test_support::is_pickle_error(test_support::decode_error(data, options), kind, offset));
}

#define EXPECT_DECODE_ERROR(data, expected_kind, ...) \
  EXPECT_TRUE(test_support::is_pickle_error(          \
      test_support::decode_error((data)__VA_OPT__(, ) __VA_ARGS__), expected_kind))

// Runs `check` on every protocol's stream of one value.
template <typename Check>
void each_protocol(const std::string_view (&streams)[6], Check check) {
  for (int p = 0; p <= 5; ++p) {
    SCOPED_TRACE("protocol " + std::to_string(p));
    Graph got;
    DecodeResult r;
    try {
      r = decode(streams[p], got);
    } catch (const PickleError& e) {
      ADD_FAILURE() << "unexpected error: " << e.what();
      continue;
    }
    EXPECT_EQ(r.protocol, p >= 2 ? p : 0);
    EXPECT_EQ(r.consumed, streams[p].size());
    Graph want;
    Build w{want};
    check(p, r.root, w);
  }
}

// ---- every builtin value, protocols 0-5 ----------------------------------

TEST(Decoder, NoneEveryProtocol) {
  each_protocol(kNone, [](int, const Node* got, Build& w) { expect_same(got, w.none()); });
}

TEST(Decoder, BoolsEveryProtocol) {
  each_protocol(kBools, [](int, const Node* got, Build& w) {
    expect_same(got, w.list({w.t(), w.f()}));
  });
}

TEST(Decoder, IntsEveryProtocol) {
  each_protocol(kInts, [](int, const Node* got, Build& w) {
    const std::string two63("\0\0\0\0\0\0\0\x80\0", 9);
    const std::string minus_two63_minus1("\xff\xff\xff\xff\xff\xff\xff\x7f\xff", 9);
    const std::string two100 = std::string(12, '\0') + "\x10";
    expect_same(
        got, w.list({w.i(0), w.i(1), w.i(255), w.i(256), w.i(65535), w.i(65536), w.i(-1),
                     w.i(-2147483648LL), w.i(2147483647), w.i(2147483648LL), w.g.integer_le(two63),
                     w.g.integer_le(minus_two63_minus1), w.g.integer_le(two100)}));
  });
}

TEST(Decoder, BigIntLongAndLong4) {
  // 2**3000: LONG (904 decimal digits) at protocol 0, LONG4 at protocol 2.
  const std::string twos = std::string(375, '\0') + "\x01";
  const std::string long4 = "\x80\x02\x8b" + le32(376) + twos + ".";
  Graph g0, g2, want;
  const Node* p0 = decode_ok(kBigIntP0, g0);
  const Node* p2 = decode_ok(long4, g2);
  Node* expected = want.integer_le(twos);
  ASSERT_TRUE(p0 && p2);
  EXPECT_TRUE(p0->big);
  expect_same(p0, expected, "LONG");
  expect_same(p2, expected, "LONG4");
}

TEST(Decoder, FloatsEveryProtocol) {
  each_protocol(kFloats, [](int, const Node* got, Build& w) {
    expect_same(got, w.list({w.fl(1.5), w.fl(-0.0), w.fl(HUGE_VAL), w.fl(1e300)}));
  });
}

TEST(Decoder, StrsEveryProtocol) {
  each_protocol(kStrs, [](int, const Node* got, Build& w) {
    expect_same(got,
                w.list({w.s(""), w.s("a"), w.s("\xc3\xa9"), w.s("\xe2\x82\xac"),
                        w.s("\xf0\x9f\x98\x80"), w.s("\xed\xa0\x80"),
                        w.s(std::string_view("a\\b\n\r\x1a\0", 7)), w.s(std::string(300, 'x'))}));
  });
}

TEST(Decoder, BytesEveryProtocolIncludingCodecsEncodeForm) {
  // Protocols 0-2 spell bytes as _codecs.encode(str, 'latin1') and bytes();
  // they must decode to Bytes like BINBYTES does.
  each_protocol(kBytes, [](int, const Node* got, Build& w) {
    expect_same(got, w.list({w.b(""), w.b("ab"), w.b(std::string_view("\xff\0", 2)),
                             w.b(std::string(300, 'y'))}));
  });
}

TEST(Decoder, ByteArraysEveryProtocol) {
  each_protocol(kByteArrays, [](int, const Node* got, Build& w) {
    expect_same(got, w.list({w.ba("ab"), w.ba("")}));
  });
}

TEST(Decoder, ContainersEveryProtocol) {
  each_protocol(kContainers, [](int, const Node* got, Build& w) {
    expect_same(got, w.list({w.list({w.i(1), w.i(2)}), w.tuple({w.i(3)}),
                             w.dict({w.s("k"), w.i(4), w.s("j"), w.i(5)}), w.set({w.i(1), w.i(2)}),
                             w.frozenset({w.i(7)}), w.set({}), w.frozenset({})}));
  });
}

TEST(Decoder, TuplesEveryProtocol) {
  each_protocol(kTuples, [](int, const Node* got, Build& w) {
    expect_same(got, w.list({w.tuple({}), w.tuple({w.i(1)}), w.tuple({w.i(1), w.i(2)}),
                             w.tuple({w.i(1), w.i(2), w.i(3)}),
                             w.tuple({w.i(1), w.i(2), w.i(3), w.i(4)})}));
  });
}

TEST(Decoder, GlobalsMapPython2NamesBelowProtocol3) {
  each_protocol(kGlobals, [](int p, const Node* got, Build& w) {
    // functools.reduce is written as __builtin__.reduce below protocol 3 and
    // as _functools.reduce from 3 on; fix_imports maps the first back.
    expect_same(got,
                w.list({w.glob("builtins", "len"), w.glob("collections", "OrderedDict"),
                        p < 3 ? w.glob("functools", "reduce") : w.glob("_functools", "reduce")}));
  });
}

TEST(Decoder, GlobalsKeepPython2NamesWithoutFixImports) {
  DecodeOptions options;
  options.fix_imports = false;
  Graph g, want;
  Build w{want};
  const Node* got = decode_ok(kGlobals[2], g, options);
  expect_same(got, w.list({w.glob("__builtin__", "len"), w.glob("collections", "OrderedDict"),
                           w.glob("__builtin__", "reduce")}));
}

TEST(Decoder, ReduceWithDictItems) {
  each_protocol(kOrderedDict, [](int, const Node* got, Build& w) {
    Node* o = w.obj(w.glob("collections", "OrderedDict"), w.tuple({}));
    o->obj()->dictitems.emplace_back(w.s("a"), w.i(1));
    expect_same(got, o);
  });
}

TEST(Decoder, ReduceWithBuild) {
  each_protocol(kNamespace, [](int, const Node* got, Build& w) {
    Node* o = w.obj(w.glob("types", "SimpleNamespace"), w.tuple({}));
    o->obj()->state = w.dict({w.s("a"), w.i(1)});
    expect_same(got, o);
  });
}

TEST(Decoder, InstanceReconstructorAndNewobj) {
  each_protocol(kInstance, [](int p, const Node* got, Build& w) {
    Node* o = p < 2 ? w.obj(w.glob("copyreg", "_reconstructor"),
                            w.tuple({w.glob("mod", "C"), w.glob("builtins", "object"), w.none()}))
                    : w.newobj("mod", "C");
    o->obj()->state = w.dict({w.s("a"), w.i(1)});
    expect_same(got, o);
  });
}

TEST(Decoder, ListSubclassItemsGoToListitems) {
  each_protocol(kListSub, [](int p, const Node* got, Build& w) {
    Node* o = nullptr;
    if (p < 2) {
      o = w.obj(
          w.glob("copyreg", "_reconstructor"),
          w.tuple({w.glob("mod", "L"), w.glob("builtins", "list"), w.list({w.i(1), w.i(2)})}));
    } else {
      o = w.newobj("mod", "L");
      o->obj()->listitems = {w.i(1), w.i(2)};
    }
    expect_same(got, o);
  });
}

TEST(Decoder, NewobjEx) {
  for (std::string_view stream : {kKwP4, kKwP5}) {
    Graph g, want;
    Build w{want};
    const Node* got = decode_ok(stream, g);
    Node* args = w.tuple({w.glob("mod", "KW"), w.tuple({w.i(1)}), w.dict({w.s("k"), w.i(2)})});
    expect_same(got, w.obj(w.glob("copyreg", "__newobj_ex__"), args));
  }
}

// Below protocol 4 the partial call stands for __newobj_ex__ only when it
// calls object.__new__ (what the encoder writes for __newobj_ex__); a
// class's own __new__ stays the call it is, so that writing the value again
// names that __new__.
TEST(Decoder, NewobjExBelowProtocol4) {
  {
    Graph g, want;
    Build w{want};
    const Node* got = decode_ok(kKwP2, g);
    Node* args = w.tuple({w.glob("mod", "KW"), w.tuple({w.i(1)}), w.dict({w.s("k"), w.i(2)})});
    expect_same(got, w.obj(w.glob("copyreg", "__newobj_ex__"), args));
  }
  Graph g, want;
  Build w{want};
  const Node* got = decode_ok(kKwNewP2, g);
  Node* cls = w.glob("mod", "KWN");
  Node* fn = w.obj(w.glob("builtins", "getattr"), w.tuple({cls, w.s("__new__")}));
  Node* partial = w.obj(w.glob("functools", "partial"), w.tuple({fn}));
  partial->obj()->state = w.tuple({fn, w.tuple({cls, w.i(1)}), w.dict({w.s("k"), w.i(2)}), w.none()});
  expect_same(got, w.obj(partial, w.tuple({})));
}

TEST(Decoder, StateSetterIsRecognised) {
  // CPython writes setter, obj, state, TUPLE2, REDUCE, POP for a reduce value
  // with a state_setter (TUPLE2 even at protocol 0).
  for (std::string_view stream : {kSetterP0, kSetterP2}) {
    Graph g, want;
    Build w{want};
    const Node* got = decode_ok(stream, g);
    Node* o = w.obj(w.glob("mod", "S"), w.tuple({}));
    o->obj()->state = w.dict({w.s("s"), w.i(1)});
    o->obj()->state_setter = w.glob("mod", "setter");
    expect_same(got, o);
  }
}

// The setter's TUPLE2 read by the general loop rather than the fast one:
// the fast loop takes at most 4,096 bytes at a time, and here TUPLE2 is the
// first byte after such a run (BINGET, EMPTY_LIST, MARK, 4,091 NONEs,
// APPENDS).
TEST(Decoder, StateSetterIsRecognisedWhereTheFastLoopStops) {
  constexpr std::size_t kNones = 4091;
  std::string stream =
      "\x80\x02"
      "cmod\nS\nq\x00)Rq\x01"
      "cmod\nsetter\nq\x02"s;
  const std::size_t run_start = stream.size();
  stream += "h\x01]("s + std::string(kNones, 'N') + "e";
  ASSERT_EQ(stream.size() - run_start, 4096u);
  stream += "\x86R0.";
  Graph g, want;
  Build w{want};
  const Node* got = decode_ok(stream, g);
  Node* o = w.obj(w.glob("mod", "S"), w.tuple({}));
  std::vector<Node*> nones;
  for (std::size_t i = 0; i < kNones; ++i) nones.push_back(w.none());
  o->obj()->state = w.list(nones);
  o->obj()->state_setter = w.glob("mod", "setter");
  expect_same(got, o);
}

// REDUCE then POP on a tuple from the memo is not a state_setter's call,
// even when the tuple is (object without state, value): it drops a second
// copy of an object its own arguments reached, and the object's BUILD
// follows. Taking it for a setter gave o the state r's copy and refused
// o's own BUILD as a second one.
TEST(Decoder, AReduceReachedFromItsArgumentsIsNoStateSetter) {
  each_protocol(kReachedFromArgs, [](int, const Node* got, Build& w) {
    Node* o = w.obj(w.glob("mod", "make"), w.tuple({}));
    Node* inner = w.list({});
    Node* r = w.obj(w.glob("mod", "make"), w.tuple({o, inner}));
    inner->items.push_back(r);
    o->obj()->state = w.dict({w.s("k"), r});
    expect_same(got, o);
    ASSERT_EQ(got->kind, Kind::Object);
    EXPECT_EQ(got->obj()->state_setter, nullptr);
  });
}

TEST(Decoder, PersistentIds) {
  for (std::string_view stream : {kPersIdP0, kPersIdP2}) {
    Graph g, want;
    Build w{want};
    const Node* got = decode_ok(stream, g);
    expect_same(got, w.list({want.persid(w.s("pid1"))}));
  }
}

TEST(Decoder, ExtensionCodesAreInert) {
  Graph g, want;
  Build w{want};
  const Node* got = decode_ok(kExtP2, g);  // EXT1 1, EXT2 300, EXT4 70000
  Node* registry = w.glob("copyreg", "_inverted_registry");
  auto ext = [&](std::int64_t code) { return w.obj(registry, w.tuple({w.i(code)})); };
  expect_same(got, w.list({ext(1), ext(300), ext(70000)}));
}

// ---- identity ---------------------------------------------------------------

TEST(Decoder, GlobalsAreInternedByName) {
  // Two GLOBAL opcodes for one name without a memo between them, and two
  // NEWOBJ objects: one Global node each, as one object in Python.
  Graph g;
  const Node* got = decode_ok(
      "\x80\x02(cm\nC\n)\x81"
      "cm\nC\n)\x81"
      "l."sv,
      g);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 2u);
  const ObjectParts& a = *got->items[0]->obj();
  const ObjectParts& b = *got->items[1]->obj();
  EXPECT_EQ(a.callable, b.callable);
  EXPECT_EQ(a.args->items[0], b.args->items[0]);
  EXPECT_NE(a.args, b.args);
  Graph want;
  Build w{want};
  expect_same(got, w.list({w.newobj("m", "C"), w.newobj("m", "C")}));
}

TEST(Decoder, GlobalsPastTheFirstFewAreInternedToo) {
  // A decode keeps the first eight names it meets in a short list and the
  // rest in a table: each name is one node either way, and ab.c is not
  // a.bc in either.
  std::vector<std::pair<std::string, std::string>> names = {{"ab", "c"}, {"a", "bc"}};
  for (int i = 0; i < 6; ++i) names.emplace_back("m", "g" + std::to_string(i));
  names.emplace_back("ab", "cd");  // past the short list
  names.emplace_back("a", "bcd");
  for (int i = 0; i < 4; ++i) names.emplace_back("m", "h" + std::to_string(i));
  std::string data = "\x80\x02(";
  for (int round = 0; round < 2; ++round) {
    for (const auto& [module, qualname] : names) data += "c" + module + "\n" + qualname + "\n";
  }
  data += "l.";
  Graph g;
  const Node* got = decode_ok(data, g);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 2 * names.size());
  std::set<const Node*> distinct;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const Node* first = got->items[i];
    SCOPED_TRACE(names[i].first + "." + names[i].second);
    EXPECT_EQ(first, got->items[names.size() + i]);
    EXPECT_EQ(first->payload(), names[i].first);
    EXPECT_EQ(first->name(), names[i].second);
    distinct.insert(first);
  }
  EXPECT_EQ(distinct.size(), names.size());
}

TEST(Decoder, ListContainingItself) {
  each_protocol(kSelfList, [](int, const Node* got, Build& w) {
    ASSERT_EQ(got->kind, Kind::List);
    ASSERT_EQ(got->items.size(), 1u);
    EXPECT_EQ(got->items[0], got);
    Node* l = w.list({});
    l->items.push_back(l);
    expect_same(got, l);
  });
}

TEST(Decoder, SharedTupleIsOneNode) {
  each_protocol(kSharedTuple, [](int, const Node* got, Build& w) {
    ASSERT_EQ(got->items.size(), 2u);
    EXPECT_EQ(got->items[0], got->items[1]);
    Node* t = w.tuple({w.i(1), w.i(2)});
    expect_same(got, w.list({t, t}));
  });
}

TEST(Decoder, RecursiveTupleThroughList) {
  // t = ([t],): POP (protocol 0) or POP_MARK (1) or POP (2+) drop the first
  // copy of the tuple, then the memo gives the finished one.
  each_protocol(kRecTuple, [](int, const Node* got, Build& w) {
    ASSERT_EQ(got->kind, Kind::Tuple);
    ASSERT_EQ(got->items.size(), 1u);
    const Node* list = got->items[0];
    ASSERT_EQ(list->kind, Kind::List);
    ASSERT_EQ(list->items.size(), 1u);
    EXPECT_EQ(list->items[0], got);
    Node* l = w.list({});
    Node* t = w.tuple({l});
    l->items.push_back(t);
    expect_same(got, t);
  });
}

TEST(Decoder, LongBinputAndLongBinget) {
  // pickle.dumps(['s0', ..., 's299', 's299'], protocol=1): memo keys above
  // 255 use LONG_BINPUT, the repeat a LONG_BINGET.
  std::string stream = "]q\x00("s;
  for (int i = 0; i < 300; ++i) {
    const std::string s = "s" + std::to_string(i);
    stream += "X" + le32(static_cast<std::uint32_t>(s.size())) + s;
    const int key = i + 1;
    stream += key < 256 ? std::string("q") + static_cast<char>(key) : "r" + le32(key);
  }
  stream += "j" + le32(300) + "e.";
  Graph g;
  const Node* got = decode_ok(stream, g);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 301u);
  EXPECT_EQ(got->items[299], got->items[300]);
  EXPECT_EQ(got->items[299]->payload(), "s299");
  EXPECT_NE(got->items[0], got->items[1]);
}

TEST(Decoder, DupPushesTheSameNode) {
  Graph g;
  const Node* got = decode_ok("]2a."sv, g);  // l = []; l.append(l)
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 1u);
  EXPECT_EQ(got->items[0], got);
}

// ---- opcodes CPython 3 does not write --------------------------------------

TEST(Decoder, InstAndObj) {
  Graph g1, g2, g3, want;
  Build w{want};
  expect_same(decode_ok("(icollections\nOrderedDict\n."sv, g1),
              w.obj(w.glob("collections", "OrderedDict"), w.tuple({})), "INST");
  expect_same(decode_ok("(ccollections\nOrderedDict\no."sv, g2),
              w.obj(w.glob("collections", "OrderedDict"), w.tuple({})), "OBJ");
  expect_same(decode_ok("(ccollections\nOrderedDict\nK\x05]o."sv, g3),
              w.obj(w.glob("collections", "OrderedDict"), w.tuple({w.i(5), w.list({})})),
              "OBJ with args");
  Graph g4;
  // INST names go through fix_imports too.
  expect_same(decode_ok("(I1\ni__builtin__\nset\n."sv, g4),
              w.obj(w.glob("builtins", "set"), w.tuple({w.i(1)})), "INST fix_imports");
}

// INST and OBJ mark their object instantiate (a loader makes it as pickle's
// instantiate() does); REDUCE and NEWOBJ do not. The encoder ignores the
// mark: the object is written as REDUCE, as an unmarked one is.
TEST(Decoder, InstAndObjAreMarkedInstantiate) {
  // CPython's pickletester (test_load_classic_instance): an old-style
  // instance with an empty state dict, at protocols 0 (INST), 1 and 2 (OBJ).
  const std::string_view streams[] = {
      "(i__main__\nD\np0\n(dp1\nb."sv,
      "(c__main__\nD\nq\x00oq\x01}q\x02"
      "b."sv,
      "\x80\x02(c__main__\nD\nq\x00oq\x01}q\x02"
      "b."sv,
      "(c__main__\nD\nK\x01o."sv,  // OBJ with args is marked too
  };
  for (std::string_view stream : streams) {
    Graph g;
    const Node* got = decode_ok(stream, g);
    ASSERT_TRUE(got);
    ASSERT_EQ(got->kind, Kind::Object);
    EXPECT_TRUE(got->flag) << testing::PrintToString(std::string(stream));
    EXPECT_NE(to_json(got).find(R"("instantiate":true)"), std::string::npos);
    Graph h;
    Build w{h};
    Node* plain = w.obj(w.glob("__main__", "D"),
                        got->obj()->args->items.empty() ? w.tuple({}) : w.tuple({w.i(1)}));
    if (got->obj()->state != nullptr) plain->obj()->state = h.dict({});
    EXPECT_TRUE(equal(got, plain));
    for (int protocol = 0; protocol <= 5; ++protocol) {
      pickle::EncodeOptions options;
      options.protocol = protocol;
      EXPECT_EQ(pickle::encode(got, options).bytes, pickle::encode(plain, options).bytes)
          << "protocol " << protocol;
    }
  }
  // Negative controls: REDUCE and NEWOBJ objects are not marked.
  for (std::string_view stream : {"c__main__\nD\n)R."sv,
                                  "\x80\x02"
                                  "c__main__\nD\n)\x81."sv}) {
    Graph g;
    const Node* got = decode_ok(stream, g);
    ASSERT_TRUE(got);
    ASSERT_EQ(got->kind, Kind::Object);
    EXPECT_FALSE(got->flag) << testing::PrintToString(std::string(stream));
    EXPECT_EQ(to_json(got).find("instantiate"), std::string::npos);
  }
}

// BUILD with None is kept as a state of None, apart from no state: a loader
// calls __setstate__(None) for it (a class without __setstate__ ignores it).
// A pickler never writes it (a reduce's None state is no state), so only a
// decoded value holds one, and writing that value again writes NONE, BUILD:
// the stream the value came from, byte for byte.
TEST(Decoder, BuildWithNoneIsWrittenBackAsItWasRead) {
  const std::string_view streams[] = {
      "c__main__\nC\np0\n(tRp1\nNb."sv,  // protocol 0
      "\x80\x02"
      "c__main__\nC\nq\x00)\x81q\x01Nb."sv,  // protocol 2, NEWOBJ
  };
  for (std::string_view stream : streams) {
    Graph g;
    const Node* got = decode_ok(stream, g);
    ASSERT_TRUE(got);
    ASSERT_EQ(got->kind, Kind::Object);
    ASSERT_NE(got->obj()->state, nullptr);
    EXPECT_EQ(got->obj()->state->kind, Kind::None);
    EXPECT_NE(to_json(got).find(R"("state":null)"), std::string::npos) << to_json(got);
    pickle::EncodeOptions options;
    options.protocol = stream[0] == '\x80' ? 2 : 0;
    const std::string again = pickle::encode(got, options).bytes;
    EXPECT_EQ(test_support::hex(again), test_support::hex(stream));
    Graph h;
    const Node* back = decode_ok(again, h);
    ASSERT_TRUE(back);
    EXPECT_TRUE(equal(got, back)) << test_support::hex(again);
    // Negative control: without its state the value is another one.
    Graph k;
    Build w{k};
    Node* stateless = w.obj(w.glob("__main__", "C"), w.tuple({}));
    EXPECT_FALSE(equal(got, stateless));
  }
}

TEST(Decoder, Python2StringsAreAsciiText) {
  Graph g1, g2, g3, g4, g5, want;
  Build w{want};
  expect_same(decode_ok("S'ab\\x41'\n."sv, g1), w.s("abA"), "STRING");
  expect_same(decode_ok("S\"q'\"\n."sv, g2), w.s("q'"), "STRING double quotes");
  expect_same(decode_ok("S'\\101\\n\\\\'\n."sv, g3), w.s("A\n\\"), "STRING octal");
  expect_same(decode_ok("T\x02\x00\x00\x00"
                        "ab."sv,
                        g4),
              w.s("ab"), "BINSTRING");
  expect_same(decode_ok("U\x02"
                        "ab."sv,
                        g5),
              w.s("ab"), "SHORT_BINSTRING");
  EXPECT_DECODE_ERROR("U\x01\xff."sv, ErrorKind::BadValue);
  EXPECT_DECODE_ERROR("S'ab\n."sv, ErrorKind::BadValue);
  EXPECT_DECODE_ERROR("S'\\x4'\n."sv, ErrorKind::BadValue);
  EXPECT_DECODE_ERROR("T\xff\xff\xff\xff."sv, ErrorKind::BadValue);  // negative length
}

TEST(Decoder, EightByteLengths) {
  Graph g1, g2, g3, want;
  Build w{want};
  expect_same(decode_ok("\x8d\x02\x00\x00\x00\x00\x00\x00\x00"
                        "ab."sv,
                        g1),
              w.s("ab"));
  expect_same(decode_ok("\x8e\x02\x00\x00\x00\x00\x00\x00\x00"
                        "ab."sv,
                        g2),
              w.b("ab"));
  expect_same(decode_ok("\x96\x02\x00\x00\x00\x00\x00\x00\x00"
                        "ab."sv,
                        g3),
              w.ba("ab"));
}

TEST(Decoder, TextIntsAndMarks) {
  Graph g1, g2, g3, g4, want;
  Build w{want};
  expect_same(decode_ok("(I1\n1N."sv, g1), w.none(), "POP_MARK");
  // POP takes the mark when nothing is above it, so APPEND reaches the list.
  expect_same(decode_ok("]K\x01(0a."sv, g2), w.list({w.i(1)}), "POP of a mark");
  expect_same(decode_ok("I-5\n."sv, g3), w.i(-5));
  expect_same(decode_ok("L0\n."sv, g4), w.i(0));
  EXPECT_DECODE_ERROR("Il\n."sv, ErrorKind::BadValue);
  EXPECT_DECODE_ERROR("I010\n."sv, ErrorKind::BadValue);  // octal to C, an error to pickle.py
  EXPECT_DECODE_ERROR("F1e999\n."sv, ErrorKind::BadValue);
  EXPECT_DECODE_ERROR(("L" + std::string(4301, '7') + "\n."), ErrorKind::LimitExceeded);
}

TEST(Decoder, ProtocolZeroGetPutAndPersid) {
  Graph g;
  const Node* got = decode_ok("(lp7\nPabc\np8\nag8\nag7\na."sv, g);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 3u);
  EXPECT_EQ(got->items[0], got->items[1]);
  EXPECT_EQ(got->items[2], got);
  EXPECT_DECODE_ERROR("P\xc3\xa9\n."sv, ErrorKind::BadValue);  // PERSID must be ASCII
}

// ---- out-of-band buffers ------------------------------------------------------

TEST(Decoder, OutOfBandBuffersAreBorrowed) {
  std::vector<std::uint8_t> ab{'a', 'b'};
  std::vector<std::uint8_t> cd{'c', 'd'};
  const BufferView buffers[] = {{ab.data(), ab.size(), false}, {cd.data(), cd.size(), false}};
  DecodeOptions options;
  options.buffers = buffers;
  Graph g;
  const Node* got = decode_ok(kOutOfBandP5, g, options);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 2u);
  const Node* first = got->items[0];
  const Node* second = got->items[1];
  ASSERT_EQ(first->kind, Kind::PickleBuffer);
  ASSERT_EQ(second->kind, Kind::PickleBuffer);
  EXPECT_FALSE(first->flag);
  EXPECT_TRUE(second->flag);  // READONLY_BUFFER
  EXPECT_TRUE(first->borrowed());
  EXPECT_TRUE(second->borrowed());
  // Zero copy: the nodes point into the caller's memory.
  EXPECT_EQ(static_cast<const void*>(first->payload().data()), ab.data());
  EXPECT_EQ(static_cast<const void*>(second->payload().data()), cd.data());
  EXPECT_EQ(second->payload(), "cd");
}

// STACK_GLOBAL's strs are the interned names: a str value the stream shares
// with one is marked; one it does not share stays plain.
TEST(Decoder, StrsThatStackGlobalTakesAreInterned) {
  // ["collections", collections.OrderedDict, "OrderedDict"] as CPython 3.11
  // writes it at protocol 4 (the last str is an equal but distinct object).
  constexpr std::string_view kShared =
      "\x80\x04\x95\x33\x00\x00\x00\x00\x00\x00\x00]\x94(\x8c\x0b"
      "collections\x94h\x01\x8c\x0b"
      "OrderedDict\x94\x93\x94\x8c\x0b"
      "OrderedDict\x94"
      "e."sv;
  Graph g;
  const Node* got = decode_ok(kShared, g);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 3u);
  EXPECT_TRUE(got->items[0]->flag);
  EXPECT_EQ(got->items[1]->kind, Kind::Global);
  EXPECT_FALSE(got->items[2]->flag);
}

// The stream says whether each buffer was read-only when pickled; the
// loader's memory is recorded beside that, whichever kind it supplies.
TEST(Decoder, OutOfBandReadonlyIsTheStreamsAndSuppliedIsTheLoaders) {
  std::vector<std::uint8_t> ab{'a', 'b'};
  std::vector<std::uint8_t> cd{'c', 'd'};
  for (bool supplied_readonly : {true, false}) {
    SCOPED_TRACE(supplied_readonly ? "read-only memory" : "writable memory");
    const BufferView buffers[] = {{ab.data(), ab.size(), supplied_readonly},
                                  {cd.data(), cd.size(), supplied_readonly}};
    DecodeOptions options;
    options.buffers = buffers;
    Graph g;
    const Node* got = decode_ok(kOutOfBandP5, g, options);
    ASSERT_TRUE(got);
    ASSERT_EQ(got->items.size(), 2u);
    const Node* first = got->items[0];   // NEXT_BUFFER
    const Node* second = got->items[1];  // NEXT_BUFFER READONLY_BUFFER
    const Supplied want = supplied_readonly ? Supplied::ReadOnly : Supplied::Writable;
    EXPECT_FALSE(first->flag);
    EXPECT_TRUE(second->flag);
    EXPECT_EQ(first->supplied, want);
    EXPECT_EQ(second->supplied, want);
    EXPECT_EQ(loaded_readonly(*first), supplied_readonly);
    EXPECT_TRUE(loaded_readonly(*second));
    EXPECT_EQ(static_cast<const void*>(second->payload().data()), cd.data());
  }
}

TEST(Decoder, InBandBuffersAreBytesAndBytearray) {
  Graph g, want;
  Build w{want};
  expect_same(decode_ok(kInBandP5, g), w.list({w.ba("ab"), w.b("cd")}));
}

TEST(Decoder, MissingOutOfBandBuffer) {
  std::vector<std::uint8_t> ab{'a', 'b'};
  const BufferView one[] = {{ab.data(), ab.size(), false}};
  DecodeOptions options;
  options.buffers = one;
  expect_failure_at(kOutOfBandP5, ErrorKind::MissingBuffer, 15, options);  // the second NEXT_BUFFER
  EXPECT_DECODE_ERROR(kOutOfBandP5, ErrorKind::MissingBuffer);
}

TEST(Decoder, ReadonlyBufferOnBytearrayAndBytes) {
  Graph g1, g2;
  const Node* a = decode_ok(
      "\x80\x05\x96\x02\x00\x00\x00\x00\x00\x00\x00"
      "ab\x98."sv,
      g1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, Kind::PickleBuffer);
  EXPECT_TRUE(a->flag);
  EXPECT_EQ(a->payload(), "ab");
  const Node* b = decode_ok(
      "\x80\x05"
      "C\x02"
      "ab\x98."sv,
      g2);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, Kind::Bytes);
  EXPECT_DECODE_ERROR(
      "\x80\x05"
      "K\x01\x98."sv,
      ErrorKind::BadValue);
}

// ---- protocol negotiation -----------------------------------------------------

TEST(Decoder, ProtocolAboveMaxNamesBoth) {
  DecodeOptions options;
  options.max_protocol = 4;
  Graph g;
  try {
    decode(kNone[5], g, options);
    FAIL() << "protocol 5 stream decoded by a protocol 4 loader";
  } catch (const UnsupportedProtocolError& e) {
    EXPECT_EQ(e.kind(), ErrorKind::UnsupportedProtocol);
    EXPECT_EQ(e.offset(), 0u);
    EXPECT_EQ(e.found(), 5);
    EXPECT_EQ(e.max(), 4);
    EXPECT_NE(std::string(e.what()).find("unsupported pickle protocol: 5"), std::string::npos);
    EXPECT_NE(e.detail().find("4"), std::string::npos);
  }
  Graph g4;
  EXPECT_TRUE(decode_ok(kNone[4], g4, options));
  // Without a PROTO opcode, a protocol 5 opcode is unknown to a protocol 4 loader.
  EXPECT_DECODE_ERROR("\x96\x00\x00\x00\x00\x00\x00\x00\x00."sv, ErrorKind::UnknownOpcode, options);
  // No loader reads protocol 6.
  EXPECT_DECODE_ERROR("\x80\x06N."sv, ErrorKind::UnsupportedProtocol);
}

// ---- frames ---------------------------------------------------------------------

TEST(Decoder, FramesAndLargeArgumentsOutsideThem) {
  // pickle.dumps([b'a'*70000, [1, 2, 3], 'z'*70000], protocol=4): the big
  // payloads are written outside frames, the small opcodes inside one.
  const std::string stream = "\x80\x04]\x94(B" + le32(70000) + std::string(70000, 'a') + "\x95" +
                             le64(11) +
                             "\x94]\x94(K\x01K\x02K\x03"
                             "e" +
                             "X" + le32(70000) + std::string(70000, 'z') + "\x94" + "e.";
  Graph g, want;
  Build w{want};
  const Node* got = decode_ok(stream, g);
  expect_same(got, w.list({w.b(std::string(70000, 'a')), w.list({w.i(1), w.i(2), w.i(3)}),
                           w.s(std::string(70000, 'z'))}));
}

TEST(Decoder, FrameRules) {
  Graph g1, g2;
  // An argument may start exactly where the frame ends.
  EXPECT_TRUE(decode_ok("\x95\x01\x00\x00\x00\x00\x00\x00\x00I1\n."sv, g1));
  EXPECT_TRUE(decode_ok("\x95\x02\x00\x00\x00\x00\x00\x00\x00N.xyz"sv, g2));
  // ...but must not start inside it and end outside.
  expect_failure_at("\x95\x02\x00\x00\x00\x00\x00\x00\x00I1\n."sv, ErrorKind::BadValue, 9);
  // A FRAME inside a frame that still has bytes left.
  expect_failure_at("\x95\x0b\x00\x00\x00\x00\x00\x00\x00\x95\x00\x00\x00\x00\x00\x00\x00\x00N."sv,
                    ErrorKind::BadValue, 9);
  // A frame longer than the input.
  expect_failure_at("\x95\x00\x01\x00\x00\x00\x00\x00\x00N."sv, ErrorKind::Truncated, 0);
}

// ---- results and errors -----------------------------------------------------

TEST(Decoder, TrailingDataIsLeftUnread) {
  Graph g;
  DecodeResult r = decode("\x80\x02K\x07.garbage"sv, g);
  EXPECT_EQ(r.consumed, 5u);
  EXPECT_EQ(r.protocol, 2);
  ASSERT_TRUE(r.root);
  EXPECT_EQ(r.root->small(), 7);
}

TEST(Decoder, ErrorsCarryOffsets) {
  expect_failure_at("\x80\x02K\x01\xff."sv, ErrorKind::UnknownOpcode, 4);
  expect_failure_at("N0h\x05."sv, ErrorKind::MissingMemo, 2);
  expect_failure_at(
      "X\x05\x00\x00\x00"
      "ab"sv,
      ErrorKind::Truncated, 0);
  expect_failure_at("N"sv, ErrorKind::Truncated, 1);
  expect_failure_at("(a."sv, ErrorKind::StackUnderflow, 1);  // the list would be below the mark
  EXPECT_DECODE_ERROR("e."sv, ErrorKind::MissingMark);
  EXPECT_DECODE_ERROR("X\x01\x00\x00\x00\xff."sv, ErrorKind::BadValue);
  EXPECT_DECODE_ERROR("]Nb."sv, ErrorKind::BadValue);
}

TEST(Decoder, BuildRules) {
  // BUILD only on objects, and only once per object (the model holds one state).
  EXPECT_DECODE_ERROR("]}b."sv, ErrorKind::BadValue);
  EXPECT_DECODE_ERROR("cm\nC\n)R}b}b."sv, ErrorKind::BadValue);
  Graph g;
  const Node* got = decode_ok("cm\nC\n)R}b."sv, g);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->kind, Kind::Object);
  EXPECT_NE(got->obj()->state, nullptr);
}

TEST(Decoder, KnownFormsNeedTheExactShape) {
  // _codecs.encode with a code point above 255, or another encoding, stays a call.
  Graph g1, g2, g3;
  const Node* a =
      decode_ok("c_codecs\nencode\nX\x02\x00\x00\x00\xc4\x80X\x06\x00\x00\x00latin1\x86R."sv, g1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a->kind, Kind::Object);
  const Node* b = decode_ok(
      "c_codecs\nencode\nX\x01\x00\x00\x00"
      "aX\x05\x00\x00\x00utf-8\x86R."sv,
      g2);
  ASSERT_TRUE(b);
  EXPECT_EQ(b->kind, Kind::Object);
  // bytearray(str, 'latin-1'), as older CPython 3 releases wrote it.
  const Node* c = decode_ok(
      "cbuiltins\nbytearray\nX\x03\x00\x00\x00\xc3\xbf"
      "a"
      "X\x07\x00\x00\x00latin-1\x86R."sv,
      g3);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->kind, Kind::ByteArray);
  EXPECT_EQ(c->payload(),
            "\xff"
            "a");
}

TEST(Decoder, ConvertedNodeIsTheMemoizedNode) {
  // bytes at protocol 2, memoized after REDUCE and fetched twice.
  Graph g;
  const Node* got = decode_ok(
      "\x80\x02]q\x00(c_codecs\nencode\nq\x01X\x02\x00\x00\x00"
      "abq\x02"
      "X\x06\x00\x00\x00latin1q\x03\x86q\x04Rq\x05h\x05"
      "e."sv,
      g);
  ASSERT_TRUE(got);
  ASSERT_EQ(got->items.size(), 2u);
  EXPECT_EQ(got->items[0]->kind, Kind::Bytes);
  EXPECT_EQ(got->items[0], got->items[1]);
}

// ---- limits -------------------------------------------------------------------

TEST(Decoder, MarkDepthLimit) {
  DecodeOptions options;
  options.limits.max_depth = 8;
  expect_failure_at(std::string(9, '(') + "N.", ErrorKind::LimitExceeded, 8, options);
  Graph g;
  EXPECT_TRUE(decode_ok(std::string(8, '(') + "N.", g, options));
}

// The decoder runs the commonest opcodes in a fast loop that stops before
// anything it does not handle; each of these lands on such a stop after a
// run of fast opcodes, and must fail (or decode) exactly as the general loop
// does, at the offset of the opcode concerned.
TEST(Decoder, FastOpcodeRunsStopBeforeAnythingTheyDoNotCheck) {
  // BININT1 x3 then a BININT cut short: Truncated at the BININT (offset 7).
  { expect_failure_at("\x80\x04(K\x01K\x02K\x03J\x01\x02"sv, ErrorKind::Truncated, 9); }
  // A frame of 6 bytes (offsets 11-16) and a BININT at 14 whose argument
  // starts inside it and runs past its end. (An argument that starts
  // exactly at a frame's end is read from outside it, as CPython does.)
  {
    std::optional<PickleError> f = test_support::decode_error(
        "\x80\x04\x95\x06\x00\x00\x00\x00\x00\x00\x00"
        "(K\x01J\x01\x02\x03\x04l."sv);
    EXPECT_TRUE(test_support::is_pickle_error(f, ErrorKind::BadValue, 14));
    EXPECT_NE(std::string(f->what()).find("frame"), std::string::npos) << f->what();
  }
  // Non-ASCII and invalid UTF-8 after ASCII strs: the first decodes, the
  // second fails at its own SHORT_BINUNICODE.
  {
    Graph g;
    const Node* root = decode_ok(
        "\x80\x04(\x8c\x01"
        "a\x8c\x02\xc3\xa9l."sv,
        g);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->kind, Kind::List);
    ASSERT_EQ(root->items.size(), 2u);
    EXPECT_EQ(root->items[1]->payload(), "\xc3\xa9");
    expect_failure_at(
        "\x80\x04(\x8c\x01"
        "a\x8c\x01\xffl."sv,
        ErrorKind::BadValue, 6);
  }
  // A memo miss after hits: MissingMemo at the second BINGET.
  { expect_failure_at("\x80\x04N\x94h\x00h\x01."sv, ErrorKind::MissingMemo, 6); }
  // A loader of protocols up to 3 refuses MEMOIZE after a run it can read.
  {
    DecodeOptions options;
    options.max_protocol = 3;
    expect_failure_at("K\x01K\x02\x94."sv, ErrorKind::UnknownOpcode, 4, options);
  }
  // The marks limit and the memo limit, reached inside a run.
  {
    DecodeOptions options;
    options.limits.max_depth = 3;
    expect_failure_at("K\x01((((N."sv, ErrorKind::LimitExceeded, 5, options);
    options = {};
    options.limits.max_memo = 2;
    expect_failure_at("\x80\x04N\x94N\x94N\x94."sv, ErrorKind::LimitExceeded, 7, options);
    // The same after strs.
    expect_failure_at("\x80\x04\x8c\x01" "a\x94\x8c\x01" "b\x94\x8c\x01" "c\x94."sv,
                      ErrorKind::LimitExceeded, 13, options);
  }
  // A str and its MEMOIZE, then BINGET of it: one node, two steps.
  {
    Graph g;
    DecodeStats stats;
    const Node* root = decode_counted("\x80\x04(\x8c\x01" "a\x94h\x00l."sv, g, stats);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->items.size(), 2u);
    EXPECT_EQ(root->items[0]->payload(), "a");
    EXPECT_EQ(root->items[0], root->items[1]);
    EXPECT_EQ(stats.steps, 7u);  // PROTO, MARK, str, MEMOIZE, BINGET, LIST, STOP
  }
  // The allocation budget, reached in a long run of BININTs: LimitExceeded
  // at an opcode of the run, never a decode past the budget.
  {
    DecodeOptions options;
    options.limits.alloc_per_input_byte = 1;
    options.limits.alloc_constant = 0;
    std::string s = "\x80\x04(";
    for (int i = 0; i < 100; ++i) s += "J\x00\x01\x00\x00"s;
    s += "l.";
    std::optional<PickleError> f = test_support::decode_error(s, options);
    ASSERT_TRUE(test_support::is_pickle_error(f, ErrorKind::LimitExceeded));
    EXPECT_GE(f->offset(), 3u);
    EXPECT_EQ((f->offset() - 3) % 5, 0u) << "not at a BININT: " << f->offset();
  }
  // The run charges the same bytes whether the budget left covers its worst
  // case (no check per opcode) or not (a check before each charge): for
  // [1, 2, (3,), None, 'ab'] five nodes, two bytes of str, and 5 + 1 items
  // moved, 7 * 32 + 2 + 6 * 8 = 274 bytes. With exactly that budget it
  // decodes; with a byte less it stops at the last opcode that charges.
  {
    const std::string_view s =
        "\x80\x04](K\x01K\x02K\x03\x85N\x8c\x02"
        "abe."sv;
    DecodeStats roomy;
    DecodeOptions options;
    options.stats = &roomy;
    Graph g;
    ASSERT_NE(decode_ok(s, g, options), nullptr);
    EXPECT_EQ(roomy.allocated, 274u);
    DecodeStats exact;
    options.stats = &exact;
    options.limits.alloc_per_input_byte = 0;
    options.limits.alloc_constant = 274;
    Graph g2;
    ASSERT_NE(decode_ok(s, g2, options), nullptr);
    EXPECT_EQ(exact.allocated, 274u);
    options.limits.alloc_constant = 273;
    options.stats = nullptr;
    expect_failure_at(s, ErrorKind::LimitExceeded, 16, options);  // the APPENDS
  }
  // APPENDS and SETITEMS after a run: each wrong case fails at the opcode.
  expect_failure_at(
      "\x80\x04]K\x01"
      "e."sv,
      ErrorKind::MissingMark, 5);  // no mark
  expect_failure_at(
      "\x80\x04}(K\x01"
      "e."sv,
      ErrorKind::BadValue, 6);                                            // APPENDS onto a dict
  expect_failure_at("\x80\x04](K\x01K\x02u."sv, ErrorKind::BadValue, 8);  // SETITEMS onto a list
  expect_failure_at("\x80\x04}(K\x01u."sv, ErrorKind::BadValue, 6);       // an odd SETITEMS
  expect_failure_at(
      "\x80\x04(K\x01"
      "e."sv,
      ErrorKind::StackUnderflow, 5);  // nothing below the mark
  expect_failure_at(
      "\x80\x04]((K\x01"
      "e."sv,
      ErrorKind::StackUnderflow, 7);  // the target is behind another mark
  // TUPLE2 with one item above the mark: fails at the TUPLE2, as before.
  expect_failure_at("\x80\x04(K\x01\x86."sv, ErrorKind::StackUnderflow, 5);
  // ((1, 2), (3,)) from TUPLE2, TUPLE1, TUPLE2.
  {
    Graph g;
    DecodeStats stats;
    const Node* root = decode_counted("\x80\x04K\x01K\x02\x86K\x03\x85\x86."sv, g, stats);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->kind, Kind::Tuple);
    ASSERT_EQ(root->items.size(), 2u);
    ASSERT_EQ(root->items[0]->kind, Kind::Tuple);
    ASSERT_EQ(root->items[0]->items.size(), 2u);
    EXPECT_EQ(root->items[0]->items[1]->small(), 2);
    ASSERT_EQ(root->items[1]->items.size(), 1u);
    EXPECT_EQ(root->items[1]->items[0]->small(), 3);
    EXPECT_EQ(stats.max_stack, 2u);
    EXPECT_EQ(stats.steps, 8u);
  }
  // Nested lists and dicts built in the fast loop: the value, and the stack
  // depth and item moves its statistics report.
  {
    Graph g;
    DecodeStats stats;
    // [[1, 2], {3: None}, []] with APPENDS, SETITEMS and an empty APPENDS.
    const Node* root = decode_counted(
        "\x80\x04](](K\x01K\x02"
        "e}(K\x03Nu](ee."sv, g, stats);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->kind, Kind::List);
    ASSERT_EQ(root->items.size(), 3u);
    EXPECT_EQ(root->items[0]->kind, Kind::List);
    ASSERT_EQ(root->items[0]->items.size(), 2u);
    EXPECT_EQ(root->items[0]->items[1]->small(), 2);
    EXPECT_EQ(root->items[1]->kind, Kind::Dict);
    ASSERT_EQ(root->items[1]->items.size(), 2u);
    EXPECT_EQ(root->items[1]->items[0]->small(), 3);
    EXPECT_EQ(root->items[1]->items[1]->kind, Kind::None);
    EXPECT_TRUE(root->items[2]->items.empty());
    EXPECT_EQ(stats.max_stack, 5u);  // outer list, inner list, dict, 3, None
    EXPECT_EQ(stats.steps, 18u);     // PROTO and STOP included
  }
  // Runs of small ints and Nones, which the fast loop reads in a loop of
  // their own once each value has been made: [1, 2, 1, None, None, 2, 3,
  // None, 1]. Every one is a step, the repeated ones are the node made
  // first, and the budget is charged for five nodes (the list, 1, 2, None,
  // 3) and nine items moved: 5 * 32 + 9 * 8 = 232 bytes.
  {
    const std::string_view s =
        "\x80\x04](K\x01K\x02K\x01NNK\x02K\x03NK\x01"
        "e."sv;
    Graph g;
    DecodeStats stats;
    DecodeOptions options;
    options.stats = &stats;
    const Node* root = decode_ok(s, g, options);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->items.size(), 9u);
    const std::int64_t want[] = {1, 2, 1, -1, -1, 2, 3, -1, 1};  // -1: None
    for (std::size_t i = 0; i < 9; ++i) {
      if (want[i] < 0) {
        EXPECT_EQ(root->items[i]->kind, Kind::None) << i;
      } else {
        ASSERT_EQ(root->items[i]->kind, Kind::Int) << i;
        EXPECT_EQ(root->items[i]->small(), want[i]) << i;
      }
    }
    EXPECT_EQ(root->items[0], root->items[2]);
    EXPECT_EQ(root->items[0], root->items[8]);
    EXPECT_EQ(root->items[3], root->items[7]);
    EXPECT_EQ(stats.steps, 14u);  // PROTO, EMPTY_LIST, MARK, nine, APPENDS, STOP
    EXPECT_EQ(stats.nodes, 5u);
    EXPECT_EQ(stats.allocated, 232u);
    // A byte less of budget stops at the APPENDS (offset 19), as before.
    options.stats = nullptr;
    options.limits.alloc_per_input_byte = 0;
    options.limits.alloc_constant = 231;
    expect_failure_at(s, ErrorKind::LimitExceeded, 19, options);
  }
  // A run whose last BININT1 is cut short by the input's end fails at that
  // BININT1, as the general loop reports it.
  expect_failure_at("\x80\x04](K\x01K\x02NK"sv, ErrorKind::Truncated, 9);
  // A run that meets its frame's end (a frame of four bytes, offsets 11-14)
  // at a BININT1 whose argument lies just past it: the run stops before it,
  // and the general loop reads the argument from outside the frame, as
  // CPython's loaders do ([1, 2]).
  {
    Graph g;
    const Node* root = decode_ok(
        "\x80\x04\x95\x04\x00\x00\x00\x00\x00\x00\x00"
        "(K\x01K\x02l."sv,
        g);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->items.size(), 2u);
    EXPECT_EQ(root->items[0]->small(), 1);
    EXPECT_EQ(root->items[1]->small(), 2);
  }
  // Runs of BININT are made a chunk of nodes at a time: 1,000 of them
  // (5,000 bytes, past one run's 4,096 and across 32-node chunks), each
  // its own value and its own node, every opcode a step.
  {
    std::string s = "\x80\x04](";
    for (std::uint32_t i = 0; i < 1000; ++i) {
      const std::uint32_t v = 70000 + 3 * i;
      s += 'J';
      for (int b = 0; b < 4; ++b) s += static_cast<char>((v >> (8 * b)) & 0xff);
    }
    s += "e.";
    Graph g;
    DecodeStats stats;
    const Node* root = decode_counted(s, g, stats);
    ASSERT_NE(root, nullptr);
    ASSERT_EQ(root->items.size(), 1000u);
    std::set<const Node*> distinct;
    for (std::size_t i = 0; i < 1000; ++i) {
      ASSERT_EQ(root->items[i]->kind, Kind::Int) << i;
      EXPECT_EQ(root->items[i]->small(), static_cast<std::int64_t>(70000 + 3 * i)) << i;
      distinct.insert(root->items[i]);
    }
    EXPECT_EQ(distinct.size(), 1000u);
    EXPECT_EQ(stats.steps, 1005u);  // PROTO, EMPTY_LIST, MARK, 1,000, APPENDS, STOP
    EXPECT_EQ(stats.nodes, 1001u);
  }
  // A BININT run with the budget for two of its nodes only (not roomy): it
  // makes those two and stops at the third, which fails as the general
  // loop reports it. PROTO, MARK and three BININTs; 2 * 32 bytes for the
  // first two nodes.
  {
    const std::string_view s = "\x80\x04(J\x00\x00\x01\x00J\x00\x00\x02\x00J\x00\x00\x03\x00l."sv;
    DecodeOptions options;
    options.limits.alloc_per_input_byte = 0;
    options.limits.alloc_constant = 64;
    expect_failure_at(s, ErrorKind::LimitExceeded, 13, options);
    // With what a roomy decode charges, exactly, it decodes.
    DecodeStats roomy;
    DecodeOptions unlimited;
    unlimited.stats = &roomy;
    Graph g0;
    ASSERT_NE(decode_ok(s, g0, unlimited), nullptr);
    options.limits.alloc_constant = roomy.allocated;
    Graph g;
    const Node* root = decode_ok(s, g, options);
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->items.size(), 3u);
  }
  // STOP ends a run when the item it takes lies above the topmost mark;
  // otherwise the general loop fails at it, as before.
  {
    Graph g;
    DecodeStats stats;
    const Node* root = decode_counted("\x80\x04K\x07.trailing"sv, g, stats);
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->small(), 7);
    EXPECT_EQ(stats.steps, 3u);
  }
  expect_failure_at("\x80\x04K\x01(."sv, ErrorKind::StackUnderflow, 5);
  expect_failure_at("\x80\x04."sv, ErrorKind::StackUnderflow, 2);
}

// PROTO then FRAME, the opening of nearly every protocol 4 and 5 pickle, is
// read without the general loop when neither can fail; when one can, the
// general loop reads it and fails as before.
TEST(Decoder, TheCommonOpeningReadsAsTheGeneralLoopReadsIt) {
  {
    Graph g;
    DecodeStats stats;
    const Node* root = decode_counted(
        "\x80\x05\x95\x03\x00\x00\x00\x00\x00\x00\x00"
        "K\x05."sv, g, stats);
    ASSERT_NE(root, nullptr);
    EXPECT_EQ(root->small(), 5);
    EXPECT_EQ(stats.steps, 4u);
  }
  // The frame is longer than the input: Truncated at the FRAME.
  expect_failure_at("\x80\x05\x95\x09\x00\x00\x00\x00\x00\x00\x00K\x05."sv,
                    ErrorKind::Truncated, 2);
  // A loader of protocols up to 3 refuses FRAME; one of up to 4 refuses PROTO 5.
  {
    DecodeOptions options;
    options.max_protocol = 3;
    expect_failure_at("\x80\x03\x95\x03\x00\x00\x00\x00\x00\x00\x00K\x05."sv,
                      ErrorKind::UnknownOpcode, 2, options);
    options.max_protocol = 4;
    std::optional<PickleError> f = test_support::decode_error(
        "\x80\x05\x95\x03\x00\x00\x00\x00\x00\x00\x00K\x05."sv, options);
    ASSERT_TRUE(f.has_value());
    EXPECT_EQ(f->offset(), 0u);
  }
}

TEST(Decoder, BudgetIsPerByteTimesSizePlusConstantSaturating) {
  const std::string_view s = "\x80\x04K\x01."sv;  // 5 bytes
  auto budget = [&s](std::size_t per_byte, std::size_t constant) {
    DecodeStats stats;
    DecodeOptions options;
    options.stats = &stats;
    options.limits.alloc_per_input_byte = per_byte;
    options.limits.alloc_constant = constant;
    Graph g;
    decode(std::span(reinterpret_cast<const std::uint8_t*>(s.data()), s.size()), g, options);
    return stats.budget;
  };
  EXPECT_EQ(budget(64, 100), 64u * 5 + 100);
  EXPECT_EQ(budget(0, 1000), 1000u);
  EXPECT_EQ(budget(SIZE_MAX / 4, 0), SIZE_MAX);          // the product overflows
  EXPECT_EQ(budget(1, SIZE_MAX - 4), SIZE_MAX);          // the sum overflows
  EXPECT_EQ(budget(1, SIZE_MAX - 5), SIZE_MAX);          // exactly SIZE_MAX
  EXPECT_EQ(budget(SIZE_MAX / 5, 0), SIZE_MAX / 5 * 5);  // just fits
}

TEST(Decoder, MemoLimits) {
  DecodeOptions options;
  options.limits.max_memo = 4;
  EXPECT_DECODE_ERROR("Nq\x05."sv, ErrorKind::LimitExceeded, options);
  EXPECT_DECODE_ERROR("N\x94\x94\x94\x94\x94."sv, ErrorKind::LimitExceeded, options);
  // A single huge key is refused by default without allocating for it.
  EXPECT_DECODE_ERROR("Nr\xff\xff\xff\xff."sv, ErrorKind::LimitExceeded);
  Graph g;
  EXPECT_TRUE(decode_ok("N\x94\x94\x94\x94."sv, g, options));
}

TEST(Decoder, AllocationBudgetStopsNewobjAmplification) {
  // A 10,000-item tuple, then NEWOBJ on it again and again: each 5 bytes of
  // input would copy 10,000 pointers.
  std::string s = "\x80\x02(";
  for (int i = 0; i < 10000; ++i) s += "K\x01";
  s += "tq\x00"
       "cm\nC\nq\x01"s;
  for (int i = 0; i < 2000; ++i)
    s += "h\x01h\x00\x81"
         "0"s;
  s += "N.";
  EXPECT_DECODE_ERROR(s, ErrorKind::LimitExceeded);
}

TEST(Decoder, RepeatedWorkOnLongMemoizedStringsIsBudgeted) {
  // Two 100 KB strs, then STACK_GLOBAL on them 200 times (6 bytes each).
  const std::string big(100000, 'm');
  std::string s = "\x80\x04X"s + le32(100000) + big + "q\x00X"s + le32(100000) + big + "q\x01"s;
  for (int i = 0; i < 200; ++i)
    s += "h\x00h\x01\x93"
         "0"s;
  s += "N.";
  EXPECT_DECODE_ERROR(s, ErrorKind::LimitExceeded);
  // _codecs.encode of a long str that is no latin-1 form (its last code
  // point is above 255), 200 times.
  std::string t =
      "\x80\x02"
      "c_codecs\nencode\nq\x00X"s +
      le32(100002) + std::string(100000, 'a') +
      "\xc4\x80"
      "q\x01X\x06\x00\x00\x00latin1q\x02"s;
  for (int i = 0; i < 200; ++i) t += "h\x00h\x01h\x02\x86R0"s;
  t += "N.";
  EXPECT_DECODE_ERROR(t, ErrorKind::LimitExceeded);
}

TEST(Decoder, HugeDeclaredLengthsAreCheckedFirst) {
  EXPECT_DECODE_ERROR("\x8e\x00\x00\x00\x00\x00\x00\x00\x40."sv, ErrorKind::Truncated);  // 2^62
  EXPECT_DECODE_ERROR("\x8e\xff\xff\xff\xff\xff\xff\xff\xff."sv, ErrorKind::LimitExceeded);
}

TEST(Decoder, LongInputsStayLinear) {
  // A million MARK/POP_MARK pairs, then a 100,000-deep list built with APPEND.
  std::string marks;
  for (int i = 0; i < 1000000; ++i) marks += "(1";
  marks += "N.";
  Graph g1;
  EXPECT_TRUE(decode_ok(marks, g1));
  const std::size_t depth = 100000;
  std::string nested = "\x80\x02" + std::string(depth, ']') + std::string(depth - 1, 'a') + ".";
  Graph g2;
  const Node* root = decode_ok(nested, g2);
  ASSERT_TRUE(root);
  std::size_t levels = 1;
  for (const Node* n = root; !n->items.empty(); n = n->items[0]) ++levels;
  EXPECT_EQ(levels, depth);
}

TEST(Decoder, RandomInputOnlyEverFailsWithPickleError) {
  std::mt19937_64 rng(20240601);
  std::string data(1 << 20, '\0');
  for (char& c : data) c = static_cast<char>(rng() & 0xFF);
  for (std::size_t start : {0u, 1u, 7u, 1000u}) {
    Graph g;
    try {
      decode(std::string_view(data).substr(start), g);
    } catch (const PickleError&) {
      continue;
    }
  }
  // Random opcodes only (no arguments that could swallow the rest).
  const std::string ops = "()012NaebdeltuK}]\x85\x86\x87\x88\x89\x8f\x90\x91\x94";
  for (int round = 0; round < 200; ++round) {
    std::string s;
    for (int i = 0; i < 64; ++i) {
      const char op = ops[rng() % ops.size()];
      s += op;
      if (op == 'K') s += static_cast<char>(rng() & 0xFF);
    }
    s += '.';
    Graph g;
    try {
      decode(s, g);
    } catch (const PickleError&) {
    }
  }
  SUCCEED();
}

// ---- the text encodings and name mappings the codec relies on -------------

TEST(Text, RawUnicodeEscapeEncodeIsTheCPicklers) {
  // pickle.dumps('a\\b\n\r\x1a\x00\x7f\x80\xff\u0100\ud800\U0001f600\t\x1b', protocol=0)
  // writes exactly this UNICODE argument.
  const std::string in =
      "a\\b\n\r\x1a"s + '\0' + "\x7f\xc2\x80\xc3\xbf\xc4\x80\xed\xa0\x80\xf0\x9f\x98\x80\t\x1b";
  const std::string want =
      "a\\u005cb\\u000a\\u000d\\u001a\\u0000\x7f\x80\xff\\u0100\\ud800\\U0001f600\t\x1b";
  EXPECT_EQ(raw_unicode_escape_encode(in), want);
  EXPECT_EQ(raw_unicode_escape_decode(want), in);
}

TEST(Text, RawUnicodeEscapeDecodeEdges) {
  EXPECT_EQ(raw_unicode_escape_decode("\\\\u0041"), "\\\\u0041");  // a doubled backslash
  EXPECT_EQ(raw_unicode_escape_decode("\\U0001F600"), "\xf0\x9f\x98\x80");
  EXPECT_EQ(raw_unicode_escape_decode("a\\x41\\"), "a\\x41\\");
  EXPECT_EQ(raw_unicode_escape_decode("\\ud83d\\ude00"), "\xed\xa0\xbd\xed\xb8\x80");
  EXPECT_FALSE(raw_unicode_escape_decode("\\u00"));
  EXPECT_FALSE(raw_unicode_escape_decode("\\u00g0"));
  EXPECT_FALSE(raw_unicode_escape_decode("\\U00110000"));
}

TEST(Text, Utf8Surrogatepass) {
  EXPECT_TRUE(valid_utf8_surrogatepass("a\xc3\xa9\xe2\x82\xac\xf0\x9f\x98\x80\xed\xa0\x80"));
  EXPECT_FALSE(valid_utf8_surrogatepass("\xc0\x80"));          // overlong
  EXPECT_FALSE(valid_utf8_surrogatepass("\xe0\x80\x80"));      // overlong
  EXPECT_FALSE(valid_utf8_surrogatepass("\xf4\x90\x80\x80"));  // above U+10FFFF
  EXPECT_FALSE(valid_utf8_surrogatepass("\xe2\x82"));          // cut short
  EXPECT_FALSE(valid_utf8_surrogatepass("\x80"));              // lone continuation
  EXPECT_EQ(decode_utf8_surrogatepass("a\xed\xa0\x80\xf0\x9f\x98\x80"), U"a\xd800\U0001f600"s);
  EXPECT_EQ(encode_utf8_surrogatepass(U"a\xd800\U0001f600"), "a\xed\xa0\x80\xf0\x9f\x98\x80");
}

TEST(Text, StringLiteralDecode) {
  EXPECT_EQ(string_literal_decode("'a\\x41\\101\\n\\q'"), "aAA\n\\q");
  EXPECT_EQ(string_literal_decode("\"it's\""), "it's");
  EXPECT_EQ(string_literal_decode("'\\777'"), "\xff");
  EXPECT_FALSE(string_literal_decode("'abc\""));
  EXPECT_FALSE(string_literal_decode("'"));
  EXPECT_FALSE(string_literal_decode("'\\x4'"));
  EXPECT_FALSE(string_literal_decode("'\\'"));
}

// What pickle's _compat_pickle maps a name to: a Python 3 name written below
// protocol 3 (to_python2), and a Python 2 name read from a stream.
struct NameMapping {
  bool to_python2;
  const char* module;
  const char* name;
  const char* mapped_module;
  const char* mapped_name;
};

constexpr NameMapping kNameMappings[] = {
    {true, "builtins", "range", "__builtin__", "xrange"},
    {true, "builtins", "len", "__builtin__", "len"},
    {true, "copyreg", "_reconstructor", "copy_reg", "_reconstructor"},
    {true, "_functools", "reduce", "__builtin__", "reduce"},
    {true, "builtins", "ConnectionError", "exceptions", "OSError"},
    {true, "builtins", "ModuleNotFoundError", "exceptions", "ImportError"},
    {true, "builtins", "ValueError", "exceptions", "ValueError"},
    {true, "_pickle", "PickleError", "pickle", "PickleError"},
    {true, "dbm.ndbm", "open", "dbm", "open"},
    {true, "collections", "OrderedDict", "collections", "OrderedDict"},
    {false, "__builtin__", "xrange", "builtins", "range"},
    {false, "__builtin__", "basestring", "builtins", "str"},
    {false, "__builtin__", "reduce", "functools", "reduce"},
    {false, "exceptions", "StandardError", "builtins", "Exception"},
    {false, "cPickle", "loads", "pickle", "loads"},
    {false, "UserDict", "UserDict", "collections", "UserDict"},
    {false, "multiprocessing", "TimeoutError", "multiprocessing.context", "TimeoutError"},
    {false, "copy_reg", "_reconstructor", "copyreg", "_reconstructor"},
    {false, "mod", "C", "mod", "C"},
};

void expect_mappings(bool to_python2) {
  for (const NameMapping& m : kNameMappings) {
    if (m.to_python2 != to_python2) continue;
    const QualifiedName got =
        to_python2 ? py3_to_py2(m.module, m.name) : py2_to_py3(m.module, m.name);
    EXPECT_EQ(got, QualifiedName(m.mapped_module, m.mapped_name)) << m.module << " " << m.name;
  }
}

TEST(Compat, Python3ToPython2) {
  expect_mappings(true);
}

TEST(Compat, Python2ToPython3) {
  expect_mappings(false);
}

TEST(BuiltinReduce, TableAndShapes) {
  EXPECT_EQ(types::builtin_reduce_forms().size(), 5u);
  Graph g;
  Node* set = g.global("builtins", "set");
  Node* list = g.list({g.integer(1), g.integer(2)});
  Node* converted = types::convert_builtin_reduce(g, set, g.tuple({list}));
  ASSERT_TRUE(converted);
  EXPECT_EQ(converted->kind, Kind::Set);
  EXPECT_EQ(converted->items, list->items);
  EXPECT_FALSE(types::convert_builtin_reduce(g, set, g.tuple({list, list})));
  EXPECT_FALSE(types::convert_builtin_reduce(g, set, list));  // args must be a tuple
  EXPECT_FALSE(types::convert_builtin_reduce(g, g.global("__builtin__", "set"), g.tuple({list})));
  Node* bytes = types::convert_builtin_reduce(g, g.global("builtins", "bytes"), g.tuple({}));
  ASSERT_TRUE(bytes);
  EXPECT_EQ(bytes->kind, Kind::Bytes);
  EXPECT_EQ(bytes->payload(), "");
}

}  // namespace
}  // namespace serialcheck::pickle
