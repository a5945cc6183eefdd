// Module values against the embedded CPython: byte-identical to cloudpickle
// for every stdlib name, the bridge's description of modules and of
// generated types.ModuleType subclasses, and what a plain pickle loader
// returns for the reference's form.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "harness/gen/module_gen.h"
#include "harness/gen/shape.h"
#include "harness/python/bridge.h"
#include "harness/python/domain_objects.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/subject.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/types/module.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/python_test.h"
#include "suite/tests/support/python_values.h"

namespace serialcheck {
namespace {

// The interpreter and the bridge (harness/python/), used throughout.
using namespace python;

using test_support::decode_into;
using test_support::encode_at;
using test_support::python_bytes;
using test_support::python_truth;
using test_support::why_unequal;

class ModulePython : public test_support::PythonTest {
 protected:
  void SetUp() override {
    PythonTest::SetUp();
    if (IsSkipped()) return;
    Gil gil;
    try {
      exec("import pickle, sys, types, importlib, cloudpickle");
    } catch (const SubjectError& e) {
      GTEST_SKIP() << "cloudpickle does not import: " << e.what();
    }
  }

  // The reference's pickle of `value`, loaded by plain pickle.loads into sc_loaded.
  static void load_reference(const Node* value, int protocol) {
    Graph tmp;
    PyRef data = python::to_python(tmp.bytes(encode_at(value, protocol)));
    set_main("sc_data", data.get());
    exec("sc_loaded = pickle.loads(sc_data)");
  }
};

TEST_F(ModulePython, ByteIdenticalToCloudpickleForEveryStdlibName) {
  Gil gil;
  for (std::string_view name : gen::stdlib_module_names()) {
    for (int p = 0; p <= 5; ++p) {
      Graph g;
      const std::string expression = "cloudpickle.dumps(importlib.import_module('" +
                                     std::string(name) + "'), protocol=" + std::to_string(p) + ")";
      EXPECT_EQ(encode_at(g.module(std::string(name)), p), python_bytes(expression)) << expression;
    }
  }
}

TEST_F(ModulePython, BridgeDescribesModulesAndTheirClasses) {
  Gil gil;
  Graph g;
  Node* os = python::from_python(eval("importlib.import_module('os')").get(), g);
  ASSERT_EQ(os->kind, Kind::Module);
  EXPECT_EQ(os->name(), "os");
  EXPECT_TRUE(os->items.empty());
  exec("import torch.backends.cudnn");
  Node* cudnn = python::from_python(eval("torch.backends.cudnn").get(), g);
  ASSERT_EQ(cudnn->kind, Kind::Module);
  EXPECT_EQ(cudnn->name(), "torch.backends.cudnn");
  ASSERT_EQ(cudnn->items.size(), 1u);
  EXPECT_EQ(cudnn->items[0]->payload(), "torch.backends.cudnn");
  EXPECT_EQ(cudnn->items[0]->name(), "CudnnModule");
  // A module that is in no registry is still its name.
  Node* loose = python::from_python(eval("types.ModuleType('sc_unregistered')").get(), g);
  EXPECT_EQ(loose->name(), "sc_unregistered");
}

TEST_F(ModulePython, ModuleTypeSubclassesPickleByReference) {
  Gil gil;
  exec("import torch.backends.cudnn");
  // cloudpickle cannot pickle a ModuleType subclass instance (the bug)...
  try {
    exec("cloudpickle.dumps(torch.backends.cudnn)");
    ADD_FAILURE() << "cloudpickle pickled a ModuleType subclass instance";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), "TypeError");
  }
  // ...the reference writes it by reference, and plain pickle returns the very object.
  Graph g;
  Node* cudnn = python::from_python(eval("torch.backends.cudnn").get(), g);
  for (int p = 0; p <= 5; ++p) {
    load_reference(cudnn, p);
    EXPECT_TRUE(python_truth("sc_loaded is sys.modules['torch.backends.cudnn']"))
        << "protocol " << p;
  }
}

TEST_F(ModulePython, BridgeRegistersGeneratedSubclassInstances) {
  Gil gil;
  Graph g;
  Node* cls = g.global(std::string(python::kModuleTypesModule), "ScModule_bridge");
  Node* m = g.module("sc_mod_bridge", cls);
  PyRef object = python::to_python(g.list({m, cls}));
  set_main("sc_obj", object.get());
  EXPECT_TRUE(
      python_truth("sc_obj[0] is sys.modules['sc_mod_bridge'] and type(sc_obj[0]) is sc_obj[1]"));
  EXPECT_TRUE(
      python_truth("issubclass(sc_obj[1], types.ModuleType) and sc_obj[1].__module__ == "
                   "'serialcheck_module_types' and pickle.loads(pickle.dumps(sc_obj[1])) is "
                   "sc_obj[1]"));
  // Made once: the same name gives the same object again.
  PyRef again = python::to_python(m);
  set_main("sc_again", again.get());
  EXPECT_TRUE(python_truth("sc_again is sc_obj[0]"));
  Graph h;
  Node* back = python::from_python(object.get(), h);
  EXPECT_EQ(why_unequal(g.list({m, cls}), back), "");
  ASSERT_EQ(back->items[0]->items.size(), 1u);
  EXPECT_EQ(back->items[0]->items[0], back->items[1]) << "the class is the same global";
}

TEST_F(ModulePython, RegistryNamesMustBeIdentifiers) {
  Gil gil;
  Graph g;
  try {
    python::to_python(g.global(std::string(python::kModuleTypesModule), "Not.One"));
    FAIL() << "no error";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), "ValueError");
  }
}

TEST_F(ModulePython, PropertyPlainPickleReturnsTheRegisteredModule) {
  EXPECT_TRUE(rc::check("pickle.loads(reference bytes) is sys.modules[name]", [] {
    const auto spec = *gen::moduleSpec();
    const int p = *rc::gen::inRange(0, 6);
    Gil gil;
    Graph g;
    Node* m = build_module(spec, g);
    PyRef object = python::to_python(m);  // imports or registers it
    set_main("sc_module", object.get());
    load_reference(m, p);
    RC_ASSERT(
        python_truth("sc_loaded is sys.modules['" + spec.name + "'] and sc_loaded is sc_module"));
    if (spec.subclass) {
      RC_ASSERT(python_truth("type(sc_loaded).__qualname__ == '" + spec.subclass->second + "'"));
    }
    Graph h;
    Node* back = python::from_python(eval("sc_loaded").get(), h);
    RC_ASSERT(why_unequal(m, back) == "");
  }));
}

TEST_F(ModulePython, PropertyCloudpicklesBytesDecodeToTheModule) {
  EXPECT_TRUE(rc::check("cloudpickle.dumps(module) decodes to the module", [] {
    const auto spec = *gen::moduleSpec(false);
    const int p = *rc::gen::inRange(0, 6);
    Gil gil;
    Graph g;
    Node* m = build_module(spec, g);
    const std::string bytes = python_bytes("cloudpickle.dumps(importlib.import_module('" +
                                           spec.name + "'), protocol=" + std::to_string(p) + ")");
    RC_ASSERT(encode_at(m, p) == bytes);
    Graph h;
    RC_ASSERT(why_unequal(m, decode_into(bytes, h)) == "");
  }));
}

}  // namespace
}  // namespace serialcheck
