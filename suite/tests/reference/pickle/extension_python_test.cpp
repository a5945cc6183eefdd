// The extension registry against the embedded CPython: the fixtures module's
// registered globals, the reference writing what the C pickler writes for
// them, the bridge turning extension references into the registered objects,
// and an unregistered code as a ValueError.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "harness/gen/fixtures.h"
#include "harness/props/coverage.h"
#include "harness/python/bridge.h"
#include "harness/python/fixtures.h"
#include "harness/python/interpreter.h"
#include "harness/report/markdown_report.h"
#include "harness/subjects/subject.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/extension.h"
#include "reference/value/equal.h"
#include "reference/value/value.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/python_test.h"
#include "suite/tests/support/python_values.h"

namespace serialcheck::pickle {
namespace {

using test_support::encode_at;
using test_support::python_bytes;
using test_support::python_truth;

// The fixtures module registers extension_function, ExtensionClass and
// ExtensionOuter.Inner under these codes when it is imported.
constexpr std::int64_t kExt1Code = 0xf7;
constexpr std::int64_t kExt2Code = 0xf7f6;
constexpr std::int64_t kExt4Code = 0xf7f6f5;

class PythonExtension : public test_support::PythonTest {
 protected:
  void SetUp() override {
    PythonTest::SetUp();
    if (IsSkipped()) return;
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
};

constexpr std::string_view kRegistered =
    "[fx.extension_function, fx.extension_function, (fx.ExtensionClass, "
    "fx.ExtensionOuter.Inner), fx.ExtensionClass(7), fx.ExtensionClass]";

TEST_F(PythonExtension, TheFixturesModuleRegistersItsGlobals) {
  EXPECT_TRUE(
      python_truth("copyreg._extension_registry[('serialcheck_fixtures', "
                   "'extension_function')] == " +
                   std::to_string(kExt1Code)));
  EXPECT_TRUE(
      python_truth("copyreg._extension_registry[('serialcheck_fixtures', "
                   "'ExtensionClass')] == " +
                   std::to_string(kExt2Code)));
  EXPECT_TRUE(
      python_truth("copyreg._extension_registry[('serialcheck_fixtures', "
                   "'ExtensionOuter.Inner')] == " +
                   std::to_string(kExt4Code)));
}

TEST_F(PythonExtension, ReferenceWritesWhatTheCPicklerWrites) {
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph g;
    Node* value = describe(kRegistered, g, protocol);
    std::string ours = encode_at(value, protocol);
    std::string theirs = python_bytes("pickle.dumps(" + std::string(kRegistered) +
                                      ", protocol=" + std::to_string(protocol) + ")");
    EXPECT_EQ(ours, theirs) << "protocol " << protocol;
    // Decoding CPython's bytes and encoding them again gives them back.
    Graph back;
    EXPECT_EQ(encode_at(decode(theirs, back).root, protocol), theirs) << "protocol " << protocol;
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
      EXPECT_EQ(f->name(), "extension_function");
      ASSERT_EQ(inner->kind, Kind::Global);
      EXPECT_EQ(inner->name(), "ExtensionOuter.Inner");
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
    EXPECT_EQ(extension_code(instance->obj()->args->items[0]), kExt2Code);
  }
}

TEST_F(PythonExtension, ExtensionReferencesBecomeTheRegisteredObjects) {
  python::Gil gil;
  Graph g;
  Node* value = g.list(
      {extension_ref(g, kExt1Code), extension_ref(g, kExt2Code), extension_ref(g, kExt4Code)});
  python::PyRef object = python::to_python(value);
  python::set_main("x", object.get());
  EXPECT_TRUE(
      python_truth("x == [fx.extension_function, fx.ExtensionClass, fx.ExtensionOuter.Inner]"));
  EXPECT_TRUE(python_truth("x[0] is fx.extension_function and x[2] is fx.ExtensionOuter.Inner"));
  // What pickle.loads makes of the reference's bytes too.
  const std::string bytes = encode_at(value, 2);
  python::PyRef data = python::to_python(g.bytes(bytes));
  python::set_main("data", data.get());
  EXPECT_TRUE(python_truth("pickle.loads(data) == x"));
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
  EXPECT_TRUE(python_truth("ext_error == 'unregistered extension code 2147483632'"));
}

TEST_F(PythonExtension, TheFixtureResolvesToExtensionReferencesFromProtocol2) {
  for (int protocol = 0; protocol <= 5; ++protocol) {
    Graph g;
    Node* request =
        g.object(g.global(std::string(gen::kFixturesModule), std::string(gen::kFixtureMaker)),
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
      if (n->obj() != nullptr) todo.insert(todo.end(), {n->obj()->callable, n->obj()->args});
    }
    if (protocol < 2) {
      EXPECT_TRUE(codes.empty()) << protocol;
    } else {
      EXPECT_EQ(codes, (std::set<std::int64_t>{kExt1Code, kExt2Code, kExt4Code})) << protocol;
    }
  }
}

}  // namespace
}  // namespace serialcheck::pickle
