// The Module domain kind: cloudpickle's by-reference form (byte-identical to
// cloudpickle.dumps), recognising it, equality, the JSON form and generated
// modules through the codec. The bridge and what a plain pickle loader
// returns for it: module_python_test.cpp.
#include "reference/types/module.h"

#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "harness/gen/module_gen.h"
#include "harness/gen/shape.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/bytes.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/errors.h"

namespace serialcheck {
namespace {

using test_support::decode_into;
using test_support::encode_at;
using test_support::why_unequal;

// ---- the pickle form -------------------------------------------------------------

using test_support::bin;

TEST(ModuleForm, IsCloudpicklesSubimport) {
  Graph g;
  Node* m = g.module("posixpath");
  // cloudpickle.dumps(os.path, protocol=p), as cloudpickle 2.2 writes it.
  EXPECT_EQ(encode_at(m, 0),
            bin("ccloudpickle.cloudpickle\nsubimport\np0\n(Vposixpath\np1\ntp2\nRp3\n."));
  EXPECT_EQ(encode_at(m, 2), bin("\x80\x02"
                                 "ccloudpickle.cloudpickle\nsubimport\nq\x00"
                                 "X\x09\x00\x00\x00posixpathq\x01\x85q\x02Rq\x03."));
  EXPECT_EQ(encode_at(m, 5), bin("\x80\x05\x95\x39\x00\x00\x00\x00\x00\x00\x00\x8c\x17"
                                 "cloudpickle.cloudpickle\x94\x8c\x09subimport\x94\x93\x94\x8c\x09"
                                 "posixpath\x94\x85\x94R\x94."));
}

TEST(ModuleForm, DecodesToAModuleAtEveryProtocol) {
  Graph g;
  Node* m = g.module("xml.etree.ElementTree");
  for (int p = 0; p <= 5; ++p) {
    Graph h;
    Node* back = decode_into(encode_at(m, p), h);
    ASSERT_EQ(back->kind, Kind::Module) << "protocol " << p;
    EXPECT_EQ(back->name(), "xml.etree.ElementTree");
    EXPECT_TRUE(back->items.empty());
  }
}

TEST(ModuleForm, OneObjectPerName) {
  Graph g;
  // Two nodes of one name are one object in Python (sys.modules).
  Node* list = g.list({g.module("json"), g.module("json"), g.module("math")});
  std::string bytes = encode_at(list, 4);
  EXPECT_EQ(bytes.find("json"), bytes.rfind("json"));
  Graph h;
  Node* back = decode_into(bytes, h);
  ASSERT_EQ(back->items.size(), 3u);
  EXPECT_EQ(back->items[0], back->items[1]);
  EXPECT_NE(why_unequal(list, back), "") << "strict equality sees the sharing";
  EqualOptions loose;
  loose.immutable_sharing = false;
  EXPECT_EQ(why_unequal(list, back, loose), "");
}

TEST(ModuleForm, AnythingElseStaysGeneric) {
  auto check = [](const char* what, auto make) {
    Graph g;
    Node* subimport = g.global("cloudpickle.cloudpickle", "subimport");
    Node* v = make(g, subimport);
    Graph h;
    EXPECT_EQ(decode_into(encode_at(v, 3), h)->kind, Kind::Object) << what;
  };
  check("two arguments", [](Graph& g, Node* f) {
    return g.object(f, g.tuple({g.str("os"), g.str("x")}));
  });
  check("bytes name", [](Graph& g, Node* f) { return g.object(f, g.tuple({g.bytes("os")})); });
  check("empty name", [](Graph& g, Node* f) { return g.object(f, g.tuple({g.str("")})); });
  check("empty part", [](Graph& g, Node* f) { return g.object(f, g.tuple({g.str("a..b")})); });
  check("with state", [](Graph& g, Node* f) {
    Node* o = g.object(f, g.tuple({g.str("os")}));
    o->obj()->state = g.dict();
    return o;
  });
  check("by value", [](Graph& g, Node*) {
    return g.object(g.global("cloudpickle.cloudpickle", "dynamic_subimport"),
                    g.tuple({g.str("m"), g.dict()}));
  });
}

TEST(ModuleForm, RefusesNamesNoImportCanHave) {
  for (const char* name : {"", ".os", "os.", "a..b"}) {
    Graph g;
    try {
      encode_at(g.module(name), 2);
      ADD_FAILURE() << "'" << name << "': no error";
    } catch (const pickle::PickleError& e) {
      EXPECT_EQ(e.kind(), pickle::ErrorKind::Unpicklable);
    }
  }
}

// ---- equality and JSON ----------------------------------------------------------

TEST(ModuleEqual, TheNameIsTheValue) {
  Graph g;
  Node* plain = g.module("sc_mod_x");
  Node* with_class = g.module("sc_mod_x", g.global("serialcheck_module_types", "ScModule_x"));
  EXPECT_EQ(why_unequal(plain, with_class), "") << "the class is materialization metadata";
  EXPECT_EQ(why_unequal(plain, g.module("sc_mod_y")), "root: module sc_mod_x != module sc_mod_y");
  EXPECT_NE(why_unequal(plain, g.str("sc_mod_x")), "");
}

TEST(ModuleJson, PlainAndWithClass) {
  Graph g;
  Node* cls = g.global("torch.backends.cudnn", "CudnnModule");
  Node* m = g.module("torch.backends.cudnn", cls);
  Node* root = g.list({g.module("os"), m, m, cls});
  const std::string text = to_json(root);
  EXPECT_EQ(text,
            R"({"list":[{"module":"os"},{"module":"torch.backends.cudnn","id":1,"class":)"
            R"({"global":["torch.backends.cudnn","CudnnModule"],"id":2}},{"ref":1},{"ref":2}]})");
  Graph h;
  Node* back = from_json(text, h);
  EXPECT_EQ(why_unequal(root, back), "");
  EXPECT_EQ(back->items[1]->items.at(0), back->items[3]) << "the class keeps its identity";
  EXPECT_EQ(to_json(back), text);
}

TEST(ModuleJson, Rejects) {
  auto rejects = [](std::string_view text, std::string_view where) {
    EXPECT_TRUE(test_support::json_refused_at(text, where));
  };
  rejects(R"({"module":""})", "/module");
  rejects(R"({"module":7})", "/module");
  rejects(R"({"module":"os","class":"x"})", "/class");
  rejects(R"({"str":"os","class":{"global":["a","b"]}})", "/class");
  rejects(R"({"module":"os","device":"sim:0"})", "/device");
}

TEST(ModuleShape, ClassIsNotAChild) {
  // A module pickles as its import name alone: its class is no part of the
  // pickled graph, so identity and scan checks do not look for it.
  Graph g;
  Node* cls = g.global("serialcheck_module_types", "ScModule_a");
  Node* m = g.module("sc_mod_a", cls);
  EXPECT_TRUE(gen::children(*m).empty());
  ASSERT_EQ(m->items.size(), 1u);
  EXPECT_EQ(m->items[0], cls);
}

RC_GTEST_PROP(ModuleCodec, GeneratedModulesRoundTrip, ()) {
  const auto v = *gen::moduleValue();
  const int p = *rc::gen::inRange(0, 6);
  Graph g;
  Node* back = decode_into(encode_at(v.root, p), g);
  RC_ASSERT(back->kind == Kind::Module);
  RC_ASSERT(why_unequal(v.root, back) == "");
  Graph h;
  const std::string text = to_json(v.root);
  RC_ASSERT(to_json(from_json(text, h)) == text);
}

// ---- real Python ---------------------------------------------------------------

}  // namespace
}  // namespace serialcheck
