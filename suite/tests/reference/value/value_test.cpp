// Unit tests for the object model: equality (kind-exact, NaN-aware,
// identity-aware, sets unordered), the canonical JSON form (exact texts,
// round trips, errors with JSON pointers), and values too deep or too shared
// to handle recursively. The examples in docs/value-json.md are checked here
// too, so the document cannot drift from the code.
#include "reference/value/value.h"

#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <fstream>
#include <functional>
#include <limits>
#include <memory>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/numeric.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/errors.h"
#include "suite/tests/support/values.h"

namespace serialcheck {
namespace {

double nan_with_bits(std::uint64_t bits) {
  return std::bit_cast<double>(bits);
}

Node* big_int(Graph& g, const char* decimal) {
  return test_support::Values{g}.big(decimal);
}

using test_support::why_unequal;

// Parses `text`, checks it writes back to the same text, returns the root.
Node* round_trip(const std::string& text, Graph& g, bool pretty = false) {
  Node* root = from_json(text, g);
  EXPECT_EQ(to_json(root, pretty), text);
  return root;
}

// ---------------------------------------------------------------------------
// copy_bytes: each size takes one of its branches (0, 1-3, 4-7, 8-16,
// 17-32, beyond); every one must copy exactly n bytes, all of them, and
// touch nothing around them.

TEST(CopyBytes, CopiesExactlyNBytesAtEverySize) {
  std::string src(80, '\0');
  for (std::size_t i = 0; i < src.size(); ++i) src[i] = static_cast<char>('A' + i % 50);
  for (std::size_t n = 0; n <= 70; ++n) {
    for (std::size_t at : {0, 1, 3}) {  // unaligned sources and destinations too
      std::string dst(n + 16, '.');
      copy_bytes(dst.data() + 8, src.data() + at, n);
      EXPECT_EQ(dst.substr(0, 8), "........") << "n=" << n << " at=" << at;
      EXPECT_EQ(dst.substr(8, n), src.substr(at, n)) << "n=" << n << " at=" << at;
      EXPECT_EQ(dst.substr(8 + n), "........") << "n=" << n << " at=" << at;
    }
  }
}

// ---------------------------------------------------------------------------
// Equality

TEST(Equal, Atoms) {
  Graph g;
  EXPECT_TRUE(equal(g.none(), g.none()));
  EXPECT_TRUE(equal(g.integer(3), g.integer(3)));
  EXPECT_EQ(why_unequal(g.integer(3), g.integer(4)), "root: int 3 != int 4");
  EXPECT_TRUE(equal(big_int(g, "123456789012345678901234567890"),
                    big_int(g, "123456789012345678901234567890")));
  EXPECT_FALSE(equal(big_int(g, "123456789012345678901234567890"),
                     big_int(g, "123456789012345678901234567891")));
  EXPECT_EQ(why_unequal(g.boolean(true), g.boolean(false)), "root: bool True != bool False");
  EXPECT_TRUE(equal(g.floating(1.5), g.floating(1.5)));
}

TEST(Equal, KindExact) {
  Graph g;
  EXPECT_EQ(why_unequal(g.integer(1), g.boolean(true)), "root: kind int != bool");
  EXPECT_EQ(why_unequal(g.integer(1), g.floating(1.0)), "root: kind int != float");
  EXPECT_EQ(why_unequal(g.list(), g.tuple()), "root: kind list != tuple");
  EXPECT_EQ(why_unequal(g.set(), g.frozenset()), "root: kind set != frozenset");
  EXPECT_EQ(why_unequal(g.bytes("a"), g.bytearray("a")), "root: kind bytes != bytearray");
  EXPECT_EQ(why_unequal(g.str("a"), g.bytes("a")), "root: kind str != bytes");
}

TEST(Equal, FloatsCompareBitForBit) {
  Graph g;
  double nan = std::numeric_limits<double>::quiet_NaN();
  EXPECT_TRUE(equal(g.floating(nan), g.floating(nan)));
  EXPECT_EQ(why_unequal(g.floating(nan), g.floating(-nan)),
            "root: float nan != float nan (bits 7ff8000000000000 != fff8000000000000)");
  EXPECT_TRUE(equal(g.floating(nan_with_bits(0x7ff0000000000001)),
                    g.floating(nan_with_bits(0x7ff0000000000001))));
  EXPECT_EQ(why_unequal(g.floating(0.0), g.floating(-0.0)), "root: float 0.0 != float -0.0");
  EXPECT_EQ(why_unequal(g.floating(0.1), g.floating(0.2)), "root: float 0.1 != float 0.2");
}

TEST(Equal, PathsAndReasons) {
  Graph g;
  auto make = [&](std::int64_t leaf) {
    Node* inner = g.dict({g.str("a"), g.tuple({g.integer(leaf)})});
    return g.list({g.integer(0), g.list({g.none(), inner})});
  };
  EXPECT_TRUE(equal(make(3), make(3)));
  EXPECT_EQ(why_unequal(make(3), make(4)), "root[1][1]{'a'}[0]: int 3 != int 4");

  Node* a = g.list({g.integer(1), g.integer(2)});
  Node* b = g.list({g.integer(1)});
  EXPECT_EQ(why_unequal(a, b), "root: list length 2 != 1");
  EXPECT_EQ(why_unequal(g.str("abc"), g.str("abd")), "root: str 'abc' != str 'abd'");
  EXPECT_EQ(why_unequal(g.bytes("abc"), g.bytes("abd")), "root: bytes differ at offset 2");
  EXPECT_EQ(why_unequal(g.bytes("abc"), g.bytes("ab")), "root: bytes length 3 != 2");
  EXPECT_EQ(why_unequal(g.global("m", "a"), g.global("m", "b")), "root: global m.a != global m.b");

  auto object = [&](std::int64_t arg) {
    Node* o = g.object(g.global("copyreg", "__newobj__"), g.tuple({g.integer(arg)}));
    return g.list({o});
  };
  EXPECT_EQ(why_unequal(object(1), object(2)), "root[0].args[0]: int 1 != int 2");
}

TEST(Equal, DictsCompareInOrder) {
  Graph g;
  Node* a = g.dict({g.str("a"), g.integer(1), g.str("b"), g.integer(2)});
  Node* b = g.dict({g.str("b"), g.integer(2), g.str("a"), g.integer(1)});
  Node* c = g.dict({g.str("a"), g.integer(1), g.str("b"), g.integer(2)});
  EXPECT_TRUE(equal(a, c));
  EXPECT_EQ(why_unequal(a, b), "root.keys[0]: str 'a' != str 'b'");
  Node* d = g.dict({g.str("a"), g.integer(1), g.str("b"), g.integer(3)});
  EXPECT_EQ(why_unequal(a, d), "root{'b'}: int 2 != int 3");
}

TEST(Equal, SetsCompareUnordered) {
  Graph g;
  auto make = [&](bool reversed) {
    std::vector<Node*> items = {g.integer(1), g.str("a"), g.tuple({g.integer(1), g.integer(2)}),
                                g.frozenset({g.integer(5), g.integer(6)}), g.none()};
    if (reversed) std::reverse(items.begin(), items.end());
    return g.set(items);
  };
  EXPECT_TRUE(equal(make(false), make(true)));
  Node* fs1 = g.frozenset({g.integer(5), g.integer(6)});
  Node* fs2 = g.frozenset({g.integer(6), g.integer(5)});
  EXPECT_TRUE(equal(fs1, fs2));
  Node* other = g.set({g.integer(1), g.str("b")});
  Node* mine = g.set({g.str("a"), g.integer(1)});
  EXPECT_EQ(why_unequal(mine, other), "root<0>: set item 'a' has no equal in the right set");
  EXPECT_EQ(why_unequal(g.set({g.tuple({g.integer(1), g.integer(2)})}),
                        g.set({g.tuple({g.integer(1), g.integer(3)})})),
            "root<0>: set item tuple has no equal in the right set");
  // One candidate tried only: its own difference is reported.
  auto deep = [&](std::int64_t v) { return g.tuple({g.list({g.list({g.list({g.integer(v)})})})}); };
  EXPECT_EQ(why_unequal(g.frozenset({deep(1)}), g.frozenset({deep(2)})),
            "root<0>[0][0][0][0]: int 1 != int 2");
}

// A failed candidate pairs nodes before it fails; those pairings must be
// undone, or the correct match would later look like a sharing mismatch.
TEST(Equal, SetTrialsDoNotLeakPairings) {
  Graph g;
  auto deep = [&](std::int64_t v) { return g.list({g.list({g.list({g.integer(v)})})}); };
  auto build = [&](bool swap_set, bool swap_tail) {
    Node* l1 = g.list({g.integer(1)});
    Node* l2 = g.list({g.integer(1)});
    Node* t1 = g.tuple({l1, deep(1)});
    Node* t2 = g.tuple({l2, deep(2)});
    Node* s = swap_set ? g.set({t2, t1}) : g.set({t1, t2});
    return swap_tail ? g.list({s, l2, l1}) : g.list({s, l1, l2});
  };
  EXPECT_TRUE(equal(build(false, false), build(true, false)));
  EXPECT_TRUE(equal(build(true, false), build(false, false)));
  EXPECT_FALSE(equal(build(false, false), build(true, true)));
  EXPECT_EQ(why_unequal(build(false, false), build(false, true)).substr(0, 24),
            "root[1]: sharing differs");
}

TEST(Equal, SharingMustMatch) {
  Graph g;
  Node* x = g.list({g.integer(1)});
  Node* shared = g.list({x, x});
  Node* twin = g.list({g.list({g.integer(1)}), g.list({g.integer(1)})});
  EXPECT_EQ(why_unequal(shared, twin),
            "root[1]: sharing differs: the left list is the same object as at root[0], "
            "the right one is not");
  EXPECT_EQ(why_unequal(twin, shared),
            "root[1]: sharing differs: the right list is the same object as at root[0], "
            "the left one is not");
  Node* y = g.list({g.integer(1)});
  EXPECT_TRUE(equal(shared, g.list({y, y})));

  // Strings are not atoms: their sharing counts too.
  Node* s = g.str("s");
  EXPECT_FALSE(equal(g.tuple({s, s}), g.tuple({g.str("s"), g.str("s")})));
  // Atoms are: a shared int equals two equal ints.
  Node* n = g.integer(7);
  EXPECT_TRUE(equal(g.tuple({n, n}), g.tuple({g.integer(7), g.integer(7)})));
}

TEST(Equal, Cycles) {
  Graph g;
  auto self_list = [&] {
    Node* l = g.list();
    l->items.push_back(l);
    return l;
  };
  EXPECT_TRUE(equal(self_list(), self_list()));
  // m = [n], n = [m]: the same infinite unfolding, a different identity structure.
  Node* m = g.list();
  Node* n = g.list({m});
  m->items.push_back(n);
  EXPECT_FALSE(equal(self_list(), m));
  EXPECT_FALSE(equal(m, self_list()));

  auto self_dict = [&](std::int64_t v) {
    Node* d = g.dict();
    d->items = {g.integer(v), d};
    return d;
  };
  EXPECT_TRUE(equal(self_dict(1), self_dict(1)));
  EXPECT_FALSE(equal(self_dict(1), self_dict(2)));
}

TEST(Equal, ObjectsAndBuffers) {
  Graph g;
  auto make = [&](bool with_state, std::int64_t item, bool readonly) {
    Node* o = g.object(g.global("collections", "OrderedDict"), g.tuple());
    if (with_state) o->obj()->state = g.dict({g.str("x"), g.integer(1)});
    o->obj()->listitems = {g.integer(item)};
    o->obj()->dictitems = {{g.str("k"), g.pickle_buffer("abc", readonly)}};
    return o;
  };
  EXPECT_TRUE(equal(make(true, 1, true), make(true, 1, true)));
  EXPECT_EQ(why_unequal(make(true, 1, true), make(false, 1, true)),
            "root: object state present != absent");
  EXPECT_EQ(why_unequal(make(true, 1, true), make(true, 2, true)),
            "root.listitems[0]: int 1 != int 2");
  EXPECT_EQ(why_unequal(make(true, 1, true), make(true, 1, false)),
            "root.dictitems{'k'}: pickle-buffer readonly true != false");
  EXPECT_EQ(why_unequal(g.pickle_buffer("ab", true), g.pickle_buffer("ac", true)),
            "root: pickle-buffer bytes differ at offset 1");
  EXPECT_TRUE(equal(g.persid(g.str("p")), g.persid(g.str("p"))));
  EXPECT_EQ(why_unequal(g.persid(g.str("p")), g.persid(g.str("q"))),
            "root.pid: str 'p' != str 'q'");
}

// ---------------------------------------------------------------------------
// JSON: exact texts

TEST(Json, ScalarTexts) {
  Graph g;
  EXPECT_EQ(to_json(g.none()), "null");
  EXPECT_EQ(to_json(g.boolean(true)), "true");
  EXPECT_EQ(to_json(g.integer(-42)), "-42");
  EXPECT_EQ(to_json(g.integer(std::numeric_limits<std::int64_t>::min())), "-9223372036854775808");
  EXPECT_EQ(to_json(big_int(g, "9223372036854775808")), "{\"int\":\"9223372036854775808\"}");
  EXPECT_EQ(to_json(g.floating(1.5)), "{\"float\":\"1.5\"}");
  EXPECT_EQ(to_json(g.floating(-0.0)), "{\"float\":\"-0.0\"}");
  EXPECT_EQ(to_json(g.floating(1e16)), "{\"float\":\"1e+16\"}");
  EXPECT_EQ(to_json(g.floating(std::numeric_limits<double>::quiet_NaN())), "{\"float\":\"nan\"}");
  EXPECT_EQ(to_json(g.floating(nan_with_bits(0xfff8000000000000))),
            "{\"float\":\"nan\",\"bits\":\"fff8000000000000\"}");
  EXPECT_EQ(to_json(g.str("a\"b\\c\n\x01\xc3\xa9")), "\"a\\\"b\\\\c\\n\\u0001\xc3\xa9\"");
  EXPECT_EQ(to_json(g.str("\xed\xa0\x80x")), "{\"str-utf8sp\":\"eda08078\"}");
  EXPECT_EQ(to_json(g.bytes(std::string("\x00\xff", 2))), "{\"bytes\":\"00ff\"}");
  EXPECT_EQ(to_json(g.bytearray("hi")), "{\"bytearray\":\"6869\"}");
  EXPECT_EQ(to_json(g.pickle_buffer("abc", true)), "{\"buffer\":\"616263\",\"readonly\":true}");
  EXPECT_EQ(to_json(g.global("builtins", "print")), "{\"global\":[\"builtins\",\"print\"]}");
  EXPECT_EQ(to_json(g.persid(g.str("x"))), "{\"persid\":\"x\"}");
}

TEST(Json, ContainerTextsAndSharing) {
  Graph g;
  Node* s = g.str("shared");
  Node* big = big_int(g, "1000000000000000000000");
  Node* e = g.tuple();
  Node* root = g.list({s, big, big, e, g.dict({s, e}), g.set({g.integer(1)})});
  EXPECT_EQ(to_json(root),
            "{\"list\":[{\"str\":\"shared\",\"id\":1},{\"int\":\"1000000000000000000000\"},"
            "{\"int\":\"1000000000000000000000\"},{\"tuple\":[],\"id\":2},"
            "{\"dict\":[[{\"ref\":1},{\"ref\":2}]]},{\"set\":[1]}]}");

  Node* cyc = g.list();
  cyc->items = {g.integer(1), cyc};
  EXPECT_EQ(to_json(cyc), "{\"list\":[1,{\"ref\":1}],\"id\":1}");

  Node* buf = g.pickle_buffer("", false);
  Node* obj = g.object(g.global("m", "f"), g.tuple({buf}));
  obj->obj()->state = obj;
  obj->obj()->listitems = {buf};
  EXPECT_EQ(to_json(obj),
            "{\"object\":{\"callable\":{\"global\":[\"m\",\"f\"]},"
            "\"args\":{\"tuple\":[{\"buffer\":\"\",\"id\":2,\"readonly\":false}]},"
            "\"state\":{\"ref\":1},\"listitems\":[{\"ref\":2}]},\"id\":1}");
}

TEST(Json, PrettyKeepsShortContainersOnOneLine) {
  Graph g;
  Node* root = g.dict({g.str("short"), g.list({g.integer(1), g.integer(2)}), g.str("long"),
                       g.str(std::string(80, 'x'))});
  std::string expected =
      "{\n"
      "  \"dict\": [\n"
      "    [\"short\", {\"list\": [1, 2]}],\n"
      "    [\n"
      "      \"long\",\n"
      "      \"" +
      std::string(80, 'x') +
      "\"\n"
      "    ]\n"
      "  ]\n"
      "}";
  EXPECT_EQ(to_json(root, true), expected);
  Graph back;
  EXPECT_TRUE(equal(from_json(expected, back), root));
  EXPECT_EQ(to_json(g.list(), true), "{\"list\": []}");
}

// ---------------------------------------------------------------------------
// JSON: reading

TEST(Json, RoundTripsCanonicalText) {
  const char* texts[] = {
      "null",
      "{\"list\":[1,{\"float\":\"2.5\"},\"a\",true,null]}",
      "{\"list\":[1,{\"ref\":1}],\"id\":1}",
      "{\"tuple\":[{\"int\":\"-340282366920938463463374607431768211456\"},"
      "{\"float\":\"nan\",\"bits\":\"7ff0000000000001\"}]}",
      "{\"set\":[{\"frozenset\":[\"x\"]},{\"str-utf8sp\":\"eda080\",\"id\":1},{\"ref\":1}]}",
      "{\"object\":{\"callable\":{\"global\":[\"m\",\"C\"]},\"args\":{\"tuple\":[]},"
      "\"state\":null,\"state_setter\":{\"global\":[\"m\",\"setter\"]},"
      "\"dictitems\":[[1,2]]}}",
      "{\"persid\":{\"tuple\":[\"storage\",1]}}",
  };
  for (const char* text : texts) {
    Graph g;
    Node* root = round_trip(text, g);
    EXPECT_EQ(g.root, root);
  }
}

TEST(Json, AcceptsMembersInAnyOrder) {
  Graph g;
  Node* root =
      from_json(R"({"id": 1, "list": [{"readonly": true, "buffer": "AB"}, {"ref": 1}]})", g);
  EXPECT_EQ(to_json(root),
            "{\"list\":[{\"buffer\":\"ab\",\"readonly\":true},{\"ref\":1}],\"id\":1}");
  Graph g2;
  Node* o =
      from_json(R"({"object": {"args": {"tuple": []}, "callable": {"global": ["m", "f"]}}})", g2);
  EXPECT_EQ(to_json(o),
            "{\"object\":{\"callable\":{\"global\":[\"m\",\"f\"]},\"args\":{\"tuple\":[]}}}");
  // Non-canonical but valid: a big-looking int that fits, ids not numbered from 1.
  Graph g3;
  Node* r = from_json(
      R"({"tuple": [{"int": "-0005"}, {"str": "s", "id": 9}, {"ref": 9}, 18446744073709551615]})",
      g3);
  EXPECT_EQ(
      to_json(r),
      "{\"tuple\":[-5,{\"str\":\"s\",\"id\":1},{\"ref\":1},{\"int\":\"18446744073709551615\"}]}");
}

void expect_form_error(const std::string& text, const std::string& where) {
  EXPECT_TRUE(test_support::json_refused_at(text, where));
}

TEST(Json, ErrorsNameTheElement) {
  expect_form_error("[1,", "");
  expect_form_error("[1]", "");
  expect_form_error("1.5", "");
  expect_form_error(R"({"list":[1,{"ref":5}]})", "/list/1/ref");
  expect_form_error(R"({"list":[{"ref":1},{"list":[],"id":1}]})", "/list/0/ref");
  expect_form_error(R"({"list":[{"list":[],"id":1},{"list":[],"id":1}]})", "/list/1/id");
  expect_form_error(R"({"list":[{"list":[],"id":0}]})", "/list/0/id");
  expect_form_error(R"({"dict":[[1,2],[3]]})", "/dict/1");
  expect_form_error(R"({"dict":[[1,{"float":"x"}]]})", "/dict/0/1/float");
  expect_form_error(R"({"float":"1.0","bits":"7ff8000000000000"})", "/bits");
  expect_form_error(R"({"float":"nan","bits":"7ff800000000000"})", "/bits");
  expect_form_error(R"({"float":"nan","id":1})", "/id");
  expect_form_error(R"({"int":"12a"})", "/int");
  expect_form_error(R"({"bytes":"abc"})", "/bytes");
  expect_form_error(R"({"str-utf8sp":"ff"})", "/str-utf8sp");
  expect_form_error(R"({"list":[],"tuple":[]})", "");
  expect_form_error(R"({"list":[],"colour":"red"})", "/colour");
  expect_form_error(R"({"ref":1,"id":2})", "");
  expect_form_error(R"({"tuple":[{}]})", "/tuple/0");
  expect_form_error(R"({"buffer":"00"})", "/readonly");
  expect_form_error(R"({"global":["m"]})", "/global");
  expect_form_error(R"({"object":{"callable":null}})", "/object");
  expect_form_error(R"({"object":{"callable":null,"args":{"list":[]}}})", "/object/args");
  expect_form_error(R"({"object":{"callable":null,"args":{"tuple":[]},"extra":1}})",
                    "/object/extra");
  expect_form_error(R"({"list":[{"list":{}}]})", "/list/0/list");
}

// What a loader was supplied for an out-of-band buffer is written beside the
// stream's readonly flag, read back, and left out of equality.
TEST(Json, SuppliedReadonlyIsKeptBesideReadonly) {
  Graph g;
  Node* ro = g.pickle_buffer("ab", false);
  ro->supplied = Supplied::ReadOnly;
  Node* rw = g.pickle_buffer("cd", true);
  rw->supplied = Supplied::Writable;
  Node* value = g.list({ro, rw, g.pickle_buffer("ef", false)});
  const std::string text = to_json(value);
  EXPECT_EQ(text, R"({"list":[{"buffer":"6162","readonly":false,"supplied-readonly":true},)"
                  R"({"buffer":"6364","readonly":true,"supplied-readonly":false},)"
                  R"({"buffer":"6566","readonly":false}]})");
  Graph back;
  const Node* read = from_json(text, back);
  EXPECT_EQ(read->items[0]->supplied, Supplied::ReadOnly);
  EXPECT_FALSE(read->items[0]->flag);
  EXPECT_EQ(read->items[1]->supplied, Supplied::Writable);
  EXPECT_EQ(read->items[2]->supplied, Supplied::None);
  EXPECT_EQ(to_json(read), text);
  EXPECT_TRUE(loaded_readonly(*read->items[0]));
  EXPECT_TRUE(loaded_readonly(*read->items[1]));
  EXPECT_FALSE(loaded_readonly(*read->items[2]));

  // Equality: the stream's flag counts, the supplied memory does not.
  Graph h;
  Node* plain = h.list(
      {h.pickle_buffer("ab", false), h.pickle_buffer("cd", true), h.pickle_buffer("ef", false)});
  EXPECT_TRUE(equal(value, plain));
  plain->items[0]->flag = true;  // negative control: the stream's flag differs
  EXPECT_FALSE(equal(value, plain));

  expect_form_error(R"({"buffer":"00","readonly":false,"supplied-readonly":1})",
                    "/supplied-readonly");
  expect_form_error(R"({"bytes":"00","supplied-readonly":true})", "/supplied-readonly");
  expect_form_error(R"({"ndarray":{"dtype":"|u1","shape":[1],"strides":[1],"offset":0,)"
                    R"("writeable":true,"supplied-readonly":"yes","data":"00"}})",
                    "/ndarray/supplied-readonly");
}

// A str marked interned (the object global names are written from) is
// written in the tagged form with "interned", read back, and equality
// ignores the mark.
TEST(Json, InternedStrsKeepTheirMark) {
  Graph g;
  Node* plain = g.str("m");
  Node* interned = g.str("collections");
  interned->flag = true;
  Node* surrogate = g.str("\xed\xa0\x80");
  surrogate->flag = true;
  Node* value = g.list({plain, interned, surrogate, interned});
  const std::string text = to_json(value);
  EXPECT_EQ(text, R"({"list":["m",{"str":"collections","id":1,"interned":true},)"
                  R"({"str-utf8sp":"eda080","interned":true},{"ref":1}]})");
  Graph back;
  const Node* read = from_json(text, back);
  EXPECT_FALSE(read->items[0]->flag);
  EXPECT_TRUE(read->items[1]->flag);
  EXPECT_TRUE(read->items[2]->flag);
  EXPECT_EQ(to_json(read), text);
  Graph h;
  Node* same = h.str("collections");
  EXPECT_TRUE(equal(interned, same));
  expect_form_error(R"({"str":"m","interned":false})", "/interned");
  expect_form_error(R"({"bytes":"00","interned":true})", "/interned");
}

// An object marked instantiate (read from INST or OBJ) is written with
// "instantiate" as its last member, read back, and equality ignores the mark.
TEST(Json, InstantiateObjectsKeepTheirMark) {
  Graph g;
  Node* cls = g.global("m", "C");
  Node* marked = g.object(cls, g.tuple({}));
  marked->flag = true;
  marked->obj()->state = g.dict({});
  Node* plain = g.object(cls, g.tuple({}));
  Node* value = g.list({marked, plain, marked});
  const std::string text = to_json(value);
  EXPECT_EQ(text,
            R"({"list":[{"object":{"callable":{"global":["m","C"],"id":2},"args":{"tuple":[]},)"
            R"("state":{"dict":[]},"instantiate":true},"id":1},)"
            R"({"object":{"callable":{"ref":2},"args":{"tuple":[]}}},{"ref":1}]})");
  Graph back;
  const Node* read = from_json(text, back);
  EXPECT_TRUE(read->items[0]->flag);
  EXPECT_FALSE(read->items[1]->flag);
  EXPECT_EQ(to_json(read), text);
  // Members in any order.
  Graph first;
  const Node* early = from_json(
      R"({"object":{"instantiate":true,"callable":{"global":["m","C"]},"args":{"tuple":[]}}})",
      first);
  EXPECT_TRUE(early->flag);
  // Equality ignores the mark.
  EXPECT_TRUE(equal(read->items[0], marked));
  Graph h;
  Node* unmarked = h.object(h.global("m", "C"), h.tuple({}));
  unmarked->obj()->state = h.dict({});
  EXPECT_TRUE(equal(marked, unmarked));
  expect_form_error(
      R"({"object":{"callable":{"global":["m","C"]},"args":{"tuple":[]},"instantiate":false}})",
      "/object/instantiate");
  expect_form_error(R"({"list":[],"instantiate":true})", "/instantiate");
}

// A generated graph with sharing and cycles: JSON round trip is lossless and
// canonical, and equality holds between independent copies.
Node* random_graph(Graph& g, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<Node*> containers;
  auto pick = [&](std::uint32_t n) { return static_cast<std::size_t>(rng() % n); };
  std::function<Node*(int)> make = [&](int depth) -> Node* {
    std::size_t choice = pick(depth > 3 ? 8 : 13);
    if (!containers.empty() && pick(5) == 0)
      return containers[pick(static_cast<std::uint32_t>(containers.size()))];
    switch (choice) {
      case 0: return g.none();
      case 1: return g.boolean(pick(2) == 0);
      case 2: return g.integer(static_cast<std::int64_t>(rng()) - (1 << 30));
      case 3: return big_int(g, "-123456789012345678901234567890");
      case 4: return g.floating(std::bit_cast<double>((std::uint64_t{rng()} << 32) | rng()));
      case 5:
        return g.str(pick(3) == 0 ? std::string("\xed\xb0\x80") : "s" + std::to_string(pick(3)));
      case 6: return g.bytes(std::string(pick(4), '\x7f'));
      case 7: return g.global("mod", "name" + std::to_string(pick(3)));
      default: break;
    }
    Node* n = nullptr;
    switch (choice) {
      case 8: n = g.list(); break;
      case 9: n = g.tuple(); break;
      case 10: n = g.dict(); break;
      case 11: n = g.frozenset(); break;
      default: n = g.object(g.global("m", "f"), g.tuple()); break;
    }
    containers.push_back(n);
    std::size_t count = pick(4);
    for (std::size_t i = 0; i < count; ++i) {
      if (n->kind == Kind::Object) {
        n->obj()->listitems.push_back(make(depth + 1));
        if (i == 0) n->obj()->state = make(depth + 1);
      } else if (n->kind == Kind::Dict) {
        n->items.push_back(make(depth + 1));
        n->items.push_back(make(depth + 1));
      } else {
        n->items.push_back(make(depth + 1));
      }
    }
    return n;
  };
  g.root = make(0);
  return g.root;
}

TEST(Json, RandomGraphsRoundTrip) {
  for (std::uint32_t seed = 1; seed <= 300; ++seed) {
    Graph g1;
    Graph g2;
    Node* a = random_graph(g1, seed);
    Node* b = random_graph(g2, seed);
    ASSERT_TRUE(equal(a, b)) << seed << ": " << why_unequal(a, b);
    std::string text = to_json(a);
    Graph g3;
    Node* c = from_json(text, g3);
    ASSERT_TRUE(equal(a, c)) << seed << ": " << why_unequal(a, c) << "\n" << text;
    EXPECT_EQ(to_json(c), text);
    Graph g4;
    Node* d = from_json(to_json(a, true), g4);
    EXPECT_EQ(to_json(d), text);
  }
}

// ---------------------------------------------------------------------------
// Values too deep or too shared for recursion

TEST(Deep, HundredThousandNestedLists) {
  constexpr int kDepth = 100000;
  auto build = [](Graph& g) {
    Node* n = g.list({g.integer(1)});
    for (int i = 0; i < kDepth; ++i) n = g.list({n});
    g.root = n;
    return n;
  };
  std::string text;
  {
    Graph a;
    Graph b;
    Node* ra = build(a);
    Node* rb = build(b);
    EXPECT_TRUE(equal(ra, rb));
    Node* leaf = rb;
    while (leaf->items[0]->kind == Kind::List) leaf = leaf->items[0];
    leaf->items[0] = b.integer(2);
    Difference d;
    EXPECT_FALSE(equal(ra, rb, &d));
    EXPECT_EQ(d.reason, "int 1 != int 2");
    EXPECT_EQ(d.path.size(), 4 + 3 * (kDepth + 1));
    text = to_json(ra);
    EXPECT_EQ(text.size(), (kDepth + 1) * std::string("{\"list\":[]}").size() + 1);
    std::string pretty = to_json(ra, true);
    EXPECT_LT(pretty.size(), 400u * (kDepth + 1));  // indentation is capped
    Graph c;
    Node* rc = from_json(text, c);
    EXPECT_TRUE(equal(ra, rc));
    Graph p;
    EXPECT_TRUE(equal(ra, from_json(pretty, p)));
  }  // all graphs destroyed here without recursion
  SUCCEED();
}

TEST(Deep, NestedFrozensetsAndDicts) {
  constexpr int kDepth = 50000;
  Graph a;
  Graph b;
  auto build = [](Graph& g) {
    Node* n = g.frozenset({g.integer(0)});
    for (int i = 0; i < kDepth; ++i) {
      n = i % 2 == 0 ? g.frozenset({g.str("k"), n}) : g.dict({g.str("k"), n});
    }
    return n;
  };
  Node* ra = build(a);
  Node* rb = build(b);
  EXPECT_TRUE(equal(ra, rb));
  Graph c;
  EXPECT_TRUE(equal(ra, from_json(to_json(ra), c)));
}

TEST(Deep, ExponentialSharingStaysLinear) {
  // x0 = [], x(k+1) = [xk, xk]: the expanded value has 2**200 leaves.
  constexpr int kLevels = 200;
  auto build = [](Graph& g) {
    Node* n = g.list();
    for (int i = 0; i < kLevels; ++i) n = g.list({n, n});
    return n;
  };
  Graph a;
  Graph b;
  Node* ra = build(a);
  Node* rb = build(b);
  EXPECT_TRUE(equal(ra, rb));
  std::string text = to_json(ra);
  EXPECT_LT(text.size(), 40u * kLevels);
  EXPECT_EQ(text.substr(0, 18), "{\"list\":[{\"list\":[");
  EXPECT_TRUE(text.ends_with("{\"ref\":2}],\"id\":1},{\"ref\":1}]}")) << text;
  Graph c;
  Node* rc = from_json(text, c);
  EXPECT_EQ(c.size(), static_cast<std::size_t>(kLevels + 1));
  EXPECT_TRUE(equal(ra, rc));
  EXPECT_EQ(to_json(rc), text);
  // Breaking one level's sharing is a sharing difference, not a hang.
  Graph d;
  Node* rd = build(d);
  rd->items[1] = d.list({rd->items[1]->items[0], rd->items[1]->items[1]});
  EXPECT_FALSE(equal(ra, rd));
}

// ---------------------------------------------------------------------------
// The examples of docs/value-json.md, in the order they appear there.

std::vector<std::string> doc_json_blocks() {
  std::ifstream in(std::string(SERIALCHECK_SOURCE_DIR) + "/docs/value-json.md");
  std::vector<std::string> blocks;
  std::string line;
  std::string current;
  bool inside = false;
  while (std::getline(in, line)) {
    if (!inside && line == "```json") {
      inside = true;
      current.clear();
    } else if (inside && line == "```") {
      inside = false;
      blocks.push_back(current);
    } else if (inside) {
      if (!current.empty()) current.push_back('\n');
      current += line;
    }
  }
  return blocks;
}

std::vector<std::function<Node*(Graph&)>> doc_examples() {
  std::vector<std::function<Node*(Graph&)>> ex;
  // None, True, -7, 2**64
  ex.push_back([](Graph& g) { return g.none(); });
  ex.push_back([](Graph& g) { return g.boolean(true); });
  ex.push_back([](Graph& g) { return g.integer(-7); });
  ex.push_back([](Graph& g) { return big_int(g, "18446744073709551616"); });
  // [1.5, -0.0, 1e16, 1e-05, float("inf"), float("nan")]
  ex.push_back([](Graph& g) {
    return g.list({g.floating(1.5), g.floating(-0.0), g.floating(1e16), g.floating(1e-5),
                   g.floating(std::numeric_limits<double>::infinity()),
                   g.floating(std::numeric_limits<double>::quiet_NaN())});
  });
  // a NaN with the sign bit set
  ex.push_back([](Graph& g) { return g.floating(nan_with_bits(0xfff8000000000000)); });
  // "héllo\n", "\ud800x"
  ex.push_back([](Graph& g) { return g.str("h\xc3\xa9llo\n"); });
  ex.push_back([](Graph& g) { return g.str("\xed\xa0\x80x"); });
  // (b"\x00\xff", bytearray(b"hi"), PickleBuffer(b"abc"))
  ex.push_back([](Graph& g) {
    return g.tuple(
        {g.bytes(std::string("\x00\xff", 2)), g.bytearray("hi"), g.pickle_buffer("abc", true)});
  });
  // {"a": 1, 2: [None]}
  ex.push_back([](Graph& g) {
    return g.dict({g.str("a"), g.integer(1), g.integer(2), g.list({g.none()})});
  });
  // {1, 2}, frozenset()
  ex.push_back([](Graph& g) {
    return g.list({g.set({g.integer(1), g.integer(2)}), g.frozenset()});
  });
  // collections.OrderedDict
  ex.push_back([](Graph& g) { return g.global("collections", "OrderedDict"); });
  // OrderedDict([("a", 1)]).__reduce_ex__(2)
  ex.push_back([](Graph& g) {
    Node* o = g.object(g.global("collections", "OrderedDict"), g.tuple());
    o->obj()->dictitems = {{g.str("a"), g.integer(1)}};
    return o;
  });
  // Point(1, 2) via copyreg.__newobj__, with state
  ex.push_back([](Graph& g) {
    Node* o = g.object(g.global("copyreg", "__newobj__"), g.tuple({g.global("__main__", "Point")}));
    o->obj()->state = g.dict({g.str("x"), g.integer(1), g.str("y"), g.integer(2)});
    return o;
  });
  // persistent id ("storage", 3)
  ex.push_back([](Graph& g) { return g.persid(g.tuple({g.str("storage"), g.integer(3)})); });
  // s = "shared"; [s, s, 10**30, 10**30 (same node)]
  ex.push_back([](Graph& g) {
    Node* s = g.str("shared");
    Node* n = big_int(g, "1000000000000000000000000000000");
    return g.list({s, s, n, n});
  });
  // l = []; l.append(l)
  ex.push_back([](Graph& g) {
    Node* l = g.list();
    l->items.push_back(l);
    return l;
  });
  // a = []; b = [a, a]; [b, b]
  ex.push_back([](Graph& g) {
    Node* a = g.list();
    Node* b = g.list({a, a});
    return g.list({b, b});
  });
  // pretty: {"name": "example", "values": [1, 2, 3], "nested": {"key": (1.5, b"\x01")}}
  ex.push_back([](Graph& g) {
    return g.dict({g.str("name"), g.str("example"), g.str("values"),
                   g.list({g.integer(1), g.integer(2), g.integer(3)}), g.str("nested"),
                   g.dict({g.str("key"), g.tuple({g.floating(1.5), g.bytes("\x01")})})});
  });
  return ex;
}

TEST(Json, DocumentExamples) {
  std::vector<std::string> blocks = doc_json_blocks();
  auto examples = doc_examples();
  ASSERT_EQ(blocks.size(), examples.size()) << "docs/value-json.md and this test disagree";
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    Graph g;
    Node* value = examples[i](g);
    bool pretty = blocks[i].find('\n') != std::string::npos;
    EXPECT_EQ(to_json(value, pretty), blocks[i]) << "example " << i + 1;
    Graph back;
    Node* parsed = nullptr;
    ASSERT_NO_THROW(parsed = from_json(blocks[i], back)) << "example " << i + 1;
    EXPECT_TRUE(equal(value, parsed)) << "example " << i + 1 << ": " << why_unequal(value, parsed);
  }
}

}  // namespace

// Graphs reuse the node chunks of graphs destroyed before them on the same
// thread (a per-thread cache). A reused chunk must hold no trace of its
// earlier nodes, payloads must survive a move of their graph, and a graph
// may be made on one thread and destroyed on another.
TEST(GraphMemory, ReusedChunksStartClean) {
  for (int round = 0; round < 3; ++round) {
    Graph g;
    std::vector<Node*> made;
    for (int i = 0; i < 100; ++i) {
      Node* n = g.list();
      EXPECT_EQ(n->kind, Kind::List);
      EXPECT_TRUE(n->items.empty());
      EXPECT_TRUE(n->payload().empty());
      EXPECT_EQ(n->obj(), nullptr);
      n->items.push_back(g.str_copy("item " + std::to_string(i)));
      made.push_back(n);
    }
    for (int i = 0; i < 100; ++i) {
      EXPECT_EQ(made[static_cast<std::size_t>(i)]->items[0]->payload(),
                "item " + std::to_string(i));
    }
  }
}

// A node made where another was (a reused chunk) starts as Node(kind) does,
// whatever the node before it held: every flag clear, no payload, no items
// (Node::reset writes the first five fields as one word).
TEST(GraphMemory, ReusedNodesStartWithEveryFlagClear) {
  static const char kBytes[] = "borrowed";
  for (int round = 0; round < 2; ++round) {
    {
      Graph dirty;  // leaves its chunks in the cache with stale nodes
      for (int i = 0; i < 100; ++i) {
        Node* n = dirty.pickle_buffer_borrowed(kBytes, 8, true);
        n->big = true;
        n->supplied = Supplied::Writable;
        n->set_small(-7);  // stale: reset() must put kNoSmall back
        n->f = 2.5;
      }
    }
    Graph g;
    for (int i = 0; i < 100; ++i) {
      const auto kind = static_cast<Kind>(i % (static_cast<int>(kLastKind) + 1));
      Node* n = kind == Kind::Int ? g.integer(i) : g.make(kind);
      EXPECT_EQ(n->kind, kind) << i;
      EXPECT_FALSE(n->flag) << i;
      EXPECT_FALSE(n->big) << i;
      EXPECT_EQ(n->supplied, Supplied::None) << i;
      EXPECT_FALSE(n->borrowed()) << i;
      EXPECT_EQ(n->small(), kind == Kind::Int ? i : kNoSmall) << i;
      EXPECT_EQ(n->f, 0.0) << i;
      EXPECT_TRUE(n->payload().empty()) << i;
      EXPECT_TRUE(n->items.empty()) << i;
    }
  }
}

// is_plain_str() reads kind and flag as one 16-bit word: it is kind == Str
// && !flag for every kind, whatever the node's other fields hold.
TEST(GraphMemory, IsPlainStrIsAStrThatIsNotInterned) {
  Graph g;
  for (int k = 0; k <= static_cast<int>(kLastKind); ++k) {
    for (int bits = 0; bits < 16; ++bits) {
      Node* n = g.make(static_cast<Kind>(k));
      n->flag = (bits & 1) != 0;
      n->big = (bits & 2) != 0;
      n->supplied = (bits & 4) != 0 ? Supplied::Writable : Supplied::None;
      if ((bits & 8) != 0) n->set_borrowed("xy", 2);
      EXPECT_EQ(n->is_plain_str(), n->kind == Kind::Str && !n->flag)
          << kind_name(n->kind) << " bits " << bits;
    }
  }
  EXPECT_TRUE(g.str_copy("abc")->is_plain_str());
}

// binint_value() reads small() alone: it is kind == Int && !big && the
// value in int32 for every node, however it was made or changed, because
// every node that is not a small int holds kNoSmall there.
TEST(GraphMemory, BinintValueIsAnInt32IntWhateverTheNodeHolds) {
  const auto is_binint = [](const Node* n) {
    return n->kind == Kind::Int && !n->big && n->small() >= INT32_MIN && n->small() <= INT32_MAX;
  };
  Graph g;
  std::vector<const Node*> nodes;
  for (int k = 0; k <= static_cast<int>(kLastKind); ++k) {
    for (int bits = 0; bits < 8; ++bits) {
      Node* n = g.make(static_cast<Kind>(k));
      n->flag = (bits & 1) != 0;
      n->supplied = (bits & 2) != 0 ? Supplied::Writable : Supplied::None;
      if ((bits & 4) != 0) n->set_borrowed("xy", 2);
      nodes.push_back(n);
    }
    auto owned = std::make_unique<Node>(static_cast<Kind>(k));
    EXPECT_EQ(owned->small(), k == static_cast<int>(Kind::Int) ? 0 : kNoSmall) << k;
    EXPECT_EQ(owned->binint_value(), is_binint(owned.get())) << k;
  }
  for (const std::int64_t v :
       {std::int64_t{INT32_MIN} - 1, std::int64_t{INT32_MIN}, std::int64_t{-1}, std::int64_t{0},
        std::int64_t{255}, std::int64_t{256}, std::int64_t{65535}, std::int64_t{65536},
        std::int64_t{INT32_MAX}, std::int64_t{INT32_MAX} + 1, std::int64_t{INT64_MIN},
        std::int64_t{INT64_MAX}}) {
    nodes.push_back(g.integer(v));
    nodes.push_back(g.integer_le(int64_to_twos_le(v)));
  }
  // Too large for int64: big, small() is kNoSmall.
  nodes.push_back(g.integer_le(std::string(9, '\x7f')));
  Node* made_big = g.integer(5);
  made_big->set_big(std::string(9, '\x01'));
  nodes.push_back(made_big);
  // An int that became a float, and a copy of a big int's numbers.
  Node* became_float = g.integer(7);
  became_float->kind = Kind::Float;
  became_float->drop_small();
  nodes.push_back(became_float);
  Node* copy = g.make(Kind::Int);
  copy->copy_numbers(*made_big);
  nodes.push_back(copy);
  for (const Node* n : nodes) {
    EXPECT_EQ(n->binint_value(), is_binint(n))
        << kind_name(n->kind) << " big " << n->big << " small " << n->small();
    if (n->kind != Kind::Int || n->big) {
      EXPECT_EQ(n->small(), kNoSmall) << kind_name(n->kind);
    }
  }
  EXPECT_FALSE(made_big->binint_value());
  EXPECT_FALSE(copy->binint_value());
  EXPECT_TRUE(g.integer(INT32_MIN)->binint_value());
}

// A graph of at most a few chunks hands its list of chunks on whole, and the
// next graph on the thread takes it at its first node: node(i) is the i-th
// node made across the chunks taken so, the chunks taken from the cache or
// made new after them, and the chunks a graph holds when another is moved
// into it; every node made starts clean.
TEST(GraphMemory, ChunkListsHandedOnWholeKeepNodeOrder) {
  for (const int first : {1, 80, 250, 400}) {  // 1, 3, 8 and 13 chunks
    {
      Graph dirty;
      for (int i = 0; i < first; ++i) dirty.integer(-i - 1)->flag = true;
    }
    Graph g;
    std::vector<Node*> made;
    for (int i = 0; i < 300; ++i) made.push_back(g.integer(i));
    ASSERT_EQ(g.size(), 300u);
    for (std::size_t i = 0; i < made.size(); ++i) {
      ASSERT_EQ(&g.node(i), made[i]) << "first " << first << ", node " << i;
      EXPECT_EQ(made[i]->small(), static_cast<std::int64_t>(i));
      EXPECT_FALSE(made[i]->flag);
    }
    Graph other;
    Node* kept = other.str_copy("kept");
    g = std::move(other);
    ASSERT_EQ(g.size(), 1u);
    EXPECT_EQ(&g.node(0), kept);
    for (int i = 0; i < 40; ++i) {
      Node* n = g.none();
      EXPECT_EQ(&g.node(static_cast<std::size_t>(i) + 1), n);
      EXPECT_EQ(n->kind, Kind::None);
      EXPECT_FALSE(n->flag);
    }
    EXPECT_EQ(g.node(0).payload(), "kept");
  }
}

// A graph's first node takes, with the first chunk, a standard arena block
// that a graph before it on the thread gave back: its first payloads and
// item spans then fit memory the graph already holds (bytes_held() does not
// move), and they read back intact; the block goes back with the chunks for
// the next graph.
TEST(GraphMemory, TheFirstChunkBringsAnArenaBlock) {
  {
    Graph warm;  // leaves a block in the thread's cache
    warm.str_copy("warm");
  }
  for (int round = 0; round < 3; ++round) {
    Graph g;
    Node* list = g.list();
    const std::size_t held = g.bytes_held();
    Node* a = g.str_copy("a payload of " + std::to_string(round));
    Node* b = g.integer(round);
    Node* items[] = {a, b};
    g.append_items(list, items, 2);
    EXPECT_EQ(g.bytes_held(), held) << "round " << round;
    ASSERT_EQ(list->items.size(), 2u);
    EXPECT_EQ(list->items[0]->payload(), "a payload of " + std::to_string(round));
    EXPECT_EQ(list->items[1]->small(), round);
  }
}

// make_while() makes nodes while its fill function asks for another, a
// chunk at a time: the same nodes, in the same order, as make() one by one,
// each as a new node of its kind would be, across chunk boundaries (runs of
// 1, 31, 32, 33 and 100 after a node that leaves a chunk part used), and on
// chunks reused from a graph whose nodes held other kinds and values.
TEST(GraphMemory, MakeWhileMakesWhatMakeWould) {
  for (int round = 0; round < 2; ++round) {
    {
      Graph dirty;  // leaves its chunks in the cache with stale nodes
      for (int i = 0; i < 200; ++i) {
        Node* n = dirty.floating(1.5);
        n->flag = true;
        n->set_small(-7);  // stale: reset() must put kNoSmall back
      }
    }
    for (const int run : {1, 31, 32, 33, 100}) {
      Graph g;
      g.str_copy("first");
      int count = 0;
      std::vector<Node*> made;
      g.make_while(Kind::Int, [&](Node* n) {
        n->set_small(1000 + count);
        made.push_back(n);
        return ++count < run;
      });
      ASSERT_EQ(made.size(), static_cast<std::size_t>(run));
      EXPECT_EQ(g.size(), static_cast<std::size_t>(run) + 1);
      for (int i = 0; i < run; ++i) {
        const Node* n = made[static_cast<std::size_t>(i)];
        EXPECT_EQ(n, &g.node(static_cast<std::size_t>(i) + 1)) << i;
        EXPECT_EQ(n->kind, Kind::Int);
        EXPECT_EQ(n->small(), 1000 + i);
        EXPECT_FALSE(n->flag);
        EXPECT_FALSE(n->big);
        EXPECT_EQ(n->f, 0.0);
        EXPECT_TRUE(n->payload().empty());
        EXPECT_TRUE(n->items.empty());
      }
      Node* after = g.none();  // make() goes on where the run stopped
      EXPECT_EQ(after, &g.node(static_cast<std::size_t>(run) + 1));
    }
  }
}

// Containers the graph fills hold their items in the graph's arena: the
// first batch takes exactly its slots, a later batch that does not fit moves
// the items to a span twice as large, and editing the items by hand moves
// them to a heap block of the list's own. None of it leaks (the sanitized
// suite runs this) and a reused node starts empty.
TEST(GraphMemory, ItemsLiveInTheGraphUntilEditedByHand) {
  for (int round = 0; round < 2; ++round) {
    Graph g;
    std::vector<Node*> items;
    for (int i = 0; i < 20; ++i) items.push_back(g.integer(i));
    Node* l = g.make(Kind::List);
    EXPECT_TRUE(l->items.empty()) << "round " << round;
    g.append_items(l, items.data(), items.size());
    ASSERT_EQ(l->items.size(), 20u);
    EXPECT_EQ(l->items.capacity(), 20u);  // exactly the first batch
    EXPECT_FALSE(l->items.owns_heap());
    Node* pair[] = {items[3], items[4], items[3]};
    g.append_items(l, pair, 3);  // does not fit: a span of 40
    ASSERT_EQ(l->items.size(), 23u);
    EXPECT_EQ(l->items.capacity(), 40u);
    EXPECT_FALSE(l->items.owns_heap());
    for (std::size_t i = 0; i < 20; ++i) EXPECT_EQ(l->items[i], items[i]) << i;
    EXPECT_EQ(l->items[20], items[3]);
    EXPECT_EQ(l->items[22], items[3]);
    // The builders use the arena too; an edit past the room goes to the heap.
    Node* t = g.tuple({items[0], items[1]});
    EXPECT_FALSE(t->items.owns_heap());
    t->items.push_back(items[2]);
    EXPECT_TRUE(t->items.owns_heap());
    ASSERT_EQ(t->items.size(), 3u);
    EXPECT_EQ(t->items[0], items[0]);
    EXPECT_EQ(t->items[2], items[2]);
  }
}

// A graph's destruction looks at each node only if some node in the process
// took heap parts (extra parts, a heap block of items) since the graph
// started or was last destroyed (heap_parts). Every way a node takes them
// must move that count, even heap blocks made before the graph: a way that
// did not would leak, which the sanitized suite (LeakSanitizer) reports.
// And a graph the builders and the arena fill moves it not at all, so its
// destruction is the short one.
TEST(GraphMemory, EveryWayANodeTakesHeapPartsIsCounted) {
  NodeList early;  // heap blocks taken before the graph starts
  NodeList early_too;
  for (int i = 0; i < 10; ++i) {
    early.push_back(nullptr);
    early_too.push_back(nullptr);
  }
  ASSERT_TRUE(early.owns_heap());
  ASSERT_TRUE(early_too.owns_heap());
  Graph g;
  Node* one = g.integer(1);
  std::uint64_t before = heap_parts::count();
  g.make(Kind::List)->items = std::move(early);
  EXPECT_GT(heap_parts::count(), before) << "a heap block moved into a node";
  before = heap_parts::count();
  g.make(Kind::List)->items.swap(early_too);
  EXPECT_GT(heap_parts::count(), before) << "a heap block swapped into a node";
  before = heap_parts::count();
  g.make(Kind::Global)->set_name("name");
  EXPECT_GT(heap_parts::count(), before) << "extra parts";
  before = heap_parts::count();
  Node* edited = g.list({one});
  edited->items.push_back(one);  // past the arena span: a heap block
  EXPECT_TRUE(edited->items.owns_heap());
  EXPECT_GT(heap_parts::count(), before) << "items edited by hand";
  before = heap_parts::count();
  Node* copied = g.make(Kind::List);
  copied->items = NodeList{one, one};
  EXPECT_GT(heap_parts::count(), before) << "a heap block built for the node";

  before = heap_parts::count();
  {
    Graph plain;
    std::vector<Node*> items;
    for (int i = 0; i < 40; ++i) items.push_back(plain.str_copy("item " + std::to_string(i)));
    plain.root = plain.dict({plain.list(items), plain.tuple({plain.integer(3), plain.none()})});
    EXPECT_EQ(plain.root->items[0]->items.size(), 40u);
  }
  EXPECT_EQ(heap_parts::count(), before) << "the builders and the arena take no heap parts";
}

// NodeList keeps std::vector's meaning for the operations the project uses.
TEST(NodeList, BehavesAsAVectorOfNodePointers) {
  Graph g;
  Node* a = g.integer(1);
  Node* b = g.integer(2);
  Node* c = g.integer(3);
  NodeList l{a, b};
  l.insert(l.begin() + 1, c);
  EXPECT_EQ(l, (NodeList{a, c, b}));
  l.insert(l.end(), l.begin(), l.end());  // from itself
  EXPECT_EQ(l, (NodeList{a, c, b, a, c, b}));
  l.erase(l.begin() + 1, l.begin() + 4);
  EXPECT_EQ(l, (NodeList{a, c, b}));
  l.erase(l.begin());
  EXPECT_EQ(l, (NodeList{c, b}));
  l.resize(4);
  EXPECT_EQ(l, (NodeList{c, b, nullptr, nullptr}));
  l.pop_back();
  EXPECT_EQ(l.size(), 3u);
  EXPECT_THROW((void)l.at(3), std::out_of_range);
  NodeList copy = l;
  copy[0] = a;
  EXPECT_EQ(l[0], c) << "a copy shares no memory";
  NodeList moved = std::move(copy);
  EXPECT_TRUE(copy.empty());  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  EXPECT_EQ(moved[0], a);
  // Negative controls for the comparison: a different item, a different length.
  EXPECT_NE(l, moved);
  EXPECT_NE((NodeList{a, b}), (NodeList{a, b, c}));
  const std::vector<Node*> v{b, a};
  l = v;
  EXPECT_EQ(l, (NodeList{b, a}));
  l.clear();
  EXPECT_TRUE(l.empty());
  EXPECT_GE(l.capacity(), 2u) << "clear() keeps the memory";
}

TEST(GraphMemory, PayloadsSurviveAMoveAndGraphsCrossThreads) {
  Graph moved;
  std::thread maker([&moved] {
    Graph g;
    Node* s = g.str_copy(std::string(5000, 'x'));  // a block of its own
    Node* t = g.str_copy("short");
    g.root = g.list({s, t});
    moved = std::move(g);
    // The moved-from graph is empty and usable: its arena starts afresh.
    Node* u = g.str_copy("after the move");
    EXPECT_EQ(u->payload(), "after the move");
  });
  maker.join();
  ASSERT_NE(moved.root, nullptr);
  EXPECT_EQ(moved.root->items[0]->payload(), std::string(5000, 'x'));
  EXPECT_EQ(moved.root->items[1]->payload(), "short");
  Graph again;  // made on this thread after the other thread's exit
  EXPECT_EQ(again.str_copy("z")->payload(), "z");
}

}  // namespace serialcheck

// Values that pass through real Python objects may gain or lose sharing of
// immutable objects (CPython caches small strings); EqualOptions relaxes that
// and only that.
TEST(EqualOptionsTest, ImmutableSharingCanBeIgnoredButMutableSharingCannot) {
  using namespace serialcheck;
  Graph g1;
  Node* s = g1.str("a");
  Node* shared_str = g1.list({s, s});
  Graph g2;
  Node* separate_str = g2.list({g2.str("a"), g2.str("a")});
  EXPECT_FALSE(equal(shared_str, separate_str));
  EqualOptions loose;
  loose.immutable_sharing = false;
  EXPECT_TRUE(equal(shared_str, separate_str, loose));
  EXPECT_TRUE(equal(separate_str, shared_str, loose));

  Graph g3;
  Node* inner = g3.list();
  Node* shared_list = g3.list({inner, inner});
  Graph g4;
  Node* separate_list = g4.list({g4.list(), g4.list()});
  Difference why;
  EXPECT_FALSE(equal(shared_list, separate_list, loose, &why));
  EXPECT_NE(why.reason.find("sharing differs"), std::string::npos) << why.reason;

  // A tuple inside a cycle through a list still terminates and compares.
  Graph g5;
  Node* l5 = g5.list();
  l5->items.push_back(g5.tuple({l5, g5.str("x")}));
  Graph g6;
  Node* l6 = g6.list();
  l6->items.push_back(g6.tuple({l6, g6.str("x")}));
  EXPECT_TRUE(equal(l5, l6, loose));
  l6->items[0]->items[1] = g6.str("y");
  EXPECT_FALSE(equal(l5, l6, loose));
}
