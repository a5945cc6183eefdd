// Globals in copyreg's extension registry (reference/pickle/extension.h):
// the reference writes an extension reference as EXT1/EXT2/EXT4 exactly as
// CPython 3.11's C pickler writes a registered global, so decoding a CPython
// stream that holds EXT and encoding it again gives the same bytes; the
// Python bridge turns a registered global into an extension reference and
// back; the fixtures module registers three globals so the gate writes all
// three opcodes.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
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

#ifdef SERIALCHECK_HAVE_PYTHON
#include "harness/gen/fixtures.h"
#include "harness/python/bridge.h"
#include "harness/python/fixtures.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/subject.h"
#include "suite/tests/support/python_values.h"
#endif

namespace serialcheck::pickle {
namespace {

using namespace std::string_view_literals;

std::string encoded(const Node* n, int protocol) {
  EncodeOptions options;
  options.protocol = protocol;
  return encode(n, options).bytes;
}

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
  with_state->obj->state = g.dict();
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
    EXPECT_EQ(encoded(extension_ref(g, c.code), 2), c.bytes) << c.code;
  }
}

TEST(Extension, WrittenAsEXTAndNeverMemoized) {
  Graph g;
  Node* f = extension_ref(g, 0xf7);  // one node reached twice: EXT1 both times
  Node* value = g.list({f, f, g.tuple({extension_ref(g, 0xf7f6), extension_ref(g, 0xf7f6f5)})});
  EXPECT_EQ(encoded(value, 2), kGlobalsP2);
  EXPECT_EQ(encoded(value, 4), kGlobalsP4);
}

TEST(Extension, BelowProtocol2IsRefused) {
  Graph g;
  for (int protocol : {0, 1}) {
    try {
      encoded(g.list({extension_ref(g, 0xf7)}), protocol);
      ADD_FAILURE() << "no error at protocol " << protocol;
    } catch (const PickleError& e) {
      EXPECT_EQ(e.kind(), ErrorKind::Unpicklable);
      EXPECT_NE(e.detail().find("extension code 247 needs protocol 2"), std::string::npos)
          << e.detail();
    }
  }
}

TEST(Extension, OtherRegistryCallsAreWrittenAsCalls) {
  // Code 0 is no registered global: the node stays the call it spells.
  Graph g;
  Node* zero = g.object(g.global("copyreg", "_inverted_registry"), g.tuple({g.integer(0)}));
  EXPECT_EQ(encoded(zero, 3), "\x80\x03"
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
    EXPECT_EQ(encoded(r.root, c.protocol), c.bytes) << c.protocol;
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

#ifdef SERIALCHECK_HAVE_PYTHON

using test_support::python_bytes;

// The fixtures module registers extension_function, ExtensionClass and
// ExtensionOuter.Inner under these codes when it is imported.
constexpr std::int64_t kExt1Code = 0xf7;
constexpr std::int64_t kExt2Code = 0xf7f6;
constexpr std::int64_t kExt4Code = 0xf7f6f5;

class PythonExtension : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!python::python_available(&reason)) GTEST_SKIP() << "no embedded Python: " << reason;
    python::Gil gil;
    python::exec("import pickle, copyreg, serialcheck_fixtures as fx");
  }

  static Node* describe(std::string_view expression, Graph& g, int protocol) {
    python::Gil gil;
    python::PyRef object = python::eval(expression);
    python::BridgeOptions options;
    options.protocol = protocol;
    return python::from_python(object.get(), g, options);
  }


  static bool truth(std::string_view expression) {
    python::Gil gil;
    python::PyRef result = python::eval(expression);
    Graph g;
    Node* n = python::from_python(result.get(), g);
    EXPECT_EQ(n->kind, Kind::Bool) << expression;
    return n->kind == Kind::Bool && n->flag;
  }
};

constexpr std::string_view kRegistered =
    "[fx.extension_function, fx.extension_function, (fx.ExtensionClass, "
    "fx.ExtensionOuter.Inner), fx.ExtensionClass(7), fx.ExtensionClass]";

TEST_F(PythonExtension, TheFixturesModuleRegistersItsGlobals) {
  EXPECT_TRUE(truth("copyreg._extension_registry[('serialcheck_fixtures', "
                    "'extension_function')] == " + std::to_string(kExt1Code)));
  EXPECT_TRUE(truth("copyreg._extension_registry[('serialcheck_fixtures', "
                    "'ExtensionClass')] == " + std::to_string(kExt2Code)));
  EXPECT_TRUE(truth("copyreg._extension_registry[('serialcheck_fixtures', "
                    "'ExtensionOuter.Inner')] == " + std::to_string(kExt4Code)));
}

TEST_F(PythonExtension, ReferenceWritesWhatTheCPicklerWrites) {
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph g;
    Node* value = describe(kRegistered, g, protocol);
    std::string ours = encoded(value, protocol);
    std::string theirs = python_bytes("pickle.dumps(" + std::string(kRegistered) +
                                      ", protocol=" + std::to_string(protocol) + ")");
    EXPECT_EQ(ours, theirs) << "protocol " << protocol;
    // Decoding CPython's bytes and encoding them again gives them back.
    Graph back;
    EXPECT_EQ(encoded(decode(theirs, back).root, protocol), theirs) << "protocol " << protocol;
  }
}

TEST_F(PythonExtension, RegisteredGlobalsAreExtensionReferencesFromProtocol2) {
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph g;
    Node* value = describe(kRegistered, g, protocol);
    ASSERT_EQ(value->items.size(), 5u);
    const Node* f = value->items[0];
    const Node* inner = value->items[2]->items[1];
    const Node* cls = value->items[4];
    if (protocol < 2) {
      ASSERT_EQ(f->kind, Kind::Global);
      EXPECT_EQ(f->name, "extension_function");
      ASSERT_EQ(inner->kind, Kind::Global);
      EXPECT_EQ(inner->name, "ExtensionOuter.Inner");
      EXPECT_EQ(value->items[0], value->items[1]);  // a memoized global is one node
      continue;
    }
    EXPECT_EQ(extension_code(f), kExt1Code);
    EXPECT_EQ(extension_code(inner), kExt4Code);
    EXPECT_EQ(extension_code(cls), kExt2Code);
    // Never memoized: each reference is a node of its own, as the decoder
    // reads each EXT.
    EXPECT_NE(value->items[0], value->items[1]);
    EXPECT_NE(value->items[2]->items[0], cls);
    // The instance's class, in NEWOBJ.
    const Node* instance = value->items[3];
    ASSERT_EQ(instance->kind, Kind::Object);
    EXPECT_EQ(extension_code(instance->obj->args->items[0]), kExt2Code);
  }
}

TEST_F(PythonExtension, ExtensionReferencesBecomeTheRegisteredObjects) {
  python::Gil gil;
  Graph g;
  Node* value = g.list({extension_ref(g, kExt1Code), extension_ref(g, kExt2Code),
                        extension_ref(g, kExt4Code)});
  python::PyRef object = python::to_python(value);
  python::set_main("x", object.get());
  EXPECT_TRUE(truth("x == [fx.extension_function, fx.ExtensionClass, fx.ExtensionOuter.Inner]"));
  EXPECT_TRUE(truth("x[0] is fx.extension_function and x[2] is fx.ExtensionOuter.Inner"));
  // What pickle.loads makes of the reference's bytes too.
  const std::string bytes = encoded(value, 2);
  python::PyRef data = python::to_python(g.bytes(bytes));
  python::set_main("data", data.get());
  EXPECT_TRUE(truth("pickle.loads(data) == x"));
}

TEST_F(PythonExtension, AnUnregisteredCodeIsAValueError) {
  python::Gil gil;
  Graph g;
  try {
    python::to_python(g.list({extension_ref(g, 0x7ffffff0)}));
    ADD_FAILURE() << "no error";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), "ValueError");
    EXPECT_NE(std::string(e.what()).find("unregistered extension code 2147483632"),
              std::string::npos)
        << e.what();
  }
  // As CPython's unpickler says it.
  python::exec(
      "try:\n"
      "    pickle.loads(b'\\x80\\x02\\x84\\xf0\\xff\\xff\\x7f.')\n"
      "    ext_error = None\n"
      "except ValueError as e:\n"
      "    ext_error = str(e)\n");
  EXPECT_TRUE(truth("ext_error == 'unregistered extension code 2147483632'"));
}

TEST_F(PythonExtension, TheFixtureResolvesToExtensionReferencesFromProtocol2) {
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph g;
    Node* request = g.object(
        g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker)),
        g.tuple({g.str("extension"), g.integer(7)}));
    Graph resolved;
    Node* value = python::resolve_fixture_requests(request, resolved, protocol);
    std::set<std::int64_t> codes;
    std::vector<const Node*> todo{value};
    while (!todo.empty()) {
      const Node* n = todo.back();
      todo.pop_back();
      if (std::int64_t code = extension_code(n); code != 0) codes.insert(code);
      for (const Node* item : n->items) todo.push_back(item);
      if (n->obj != nullptr) todo.insert(todo.end(), {n->obj->callable, n->obj->args});
    }
    if (protocol < 2) {
      EXPECT_TRUE(codes.empty()) << protocol;
    } else {
      EXPECT_EQ(codes, (std::set<std::int64_t>{kExt1Code, kExt2Code, kExt4Code})) << protocol;
    }
  }
}

#endif  // SERIALCHECK_HAVE_PYTHON

}  // namespace
}  // namespace serialcheck::pickle
