// Tensors against real torch in the embedded interpreter: torch loads the
// reference's form with everything intact (the grad included), the bridge
// builds exact tensors, and torch's own pickles decode.
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <cctype>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <set>
#include <string>
#include <vector>

#include "harness/gen/module_gen.h"
#include "harness/gen/shape.h"
#include "harness/gen/tensor_gen.h"
#include "harness/python/bridge.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/subject.h"
#include "reference/device/device.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/types/tensor.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/files.h"
#include "suite/tests/support/python_test.h"
#include "suite/tests/support/tensors.h"

namespace serialcheck {
namespace {

// The interpreter and the bridge (harness/python/), used throughout.
using namespace python;
using test_support::bytes_of;
using test_support::decode_into;
using test_support::encode_at;
using test_support::golden_torch_dir;
using test_support::golden_torch_variants;
using test_support::GoldenTorchVariant;
using test_support::python_truth;
using test_support::read_file;
using test_support::tensor;
using test_support::why_unequal;

// pickle.loads(bytes) in the embedded interpreter, described back as a value.
Node* loaded_by_python(const std::string& bytes, Graph& out) {
  Graph tmp;
  PyRef data = python::to_python(tmp.bytes(bytes));
  set_main("sc_data", data.get());
  PyRef loaded = eval("pickle.loads(sc_data)");
  set_main("sc_loaded", loaded.get());
  return python::from_python(loaded.get(), out);
}

class TorchLoads : public test_support::PythonTest {
 protected:
  void SetUp() override {
    PythonTest::SetUp();
    if (IsSkipped()) return;
    try {
      Gil gil;
      exec("import pickle, torch");
    } catch (const SubjectError& e) {
      GTEST_SKIP() << "torch does not import: " << e.what();
    }
  }
};

TEST_F(TorchLoads, TheReferenceGoldenFormsWithEverythingIntact) {
  Gil gil;
  std::size_t checked = 0;
  for (const GoldenTorchVariant& v : golden_torch_variants()) {
    if (v.form != "reference") continue;
    Graph expected_graph;
    Node* expected = from_json(*read_file(golden_torch_dir() / v.json_file), expected_graph);
    Graph g;
    Node* back = loaded_by_python(encode_at(expected, v.protocol), g);
    EXPECT_EQ(why_unequal(expected, back), "") << v.pickle_file;
    ++checked;
  }
  EXPECT_GT(checked, 100u);
}

TEST_F(TorchLoads, GradSurvivesWhereTorchsOwnPicklingDropsIt) {
  Gil gil;
  Graph g;
  Node* grad = tensor(g, "float32", {2, 3}, {1, 2}, 0, bytes_of({9, 8, 7, 6, 5, 4}));
  Node* t = tensor(g, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}), true, grad);
  Graph h;
  loaded_by_python(encode_at(t, 5), h);
  EXPECT_TRUE(
      python_truth("type(sc_loaded) is torch.Tensor and sc_loaded.requires_grad and "
                   "sc_loaded.grad is not None and sc_loaded.grad.stride() == (1, 2) and "
                   "sc_loaded.grad.tolist() == [[9.0, 7.0, 5.0], [8.0, 6.0, 4.0]]"));
  EXPECT_TRUE(python_truth("pickle.loads(pickle.dumps(sc_loaded)).grad is None"))
      << "torch's own pickling drops .grad (the bug the reference form avoids)";
}

TEST_F(TorchLoads, BridgeBuildsExactTensorsWithStorageLayout) {
  Gil gil;
  Graph g;
  Node* t = tensor(g, "float64", {2}, {3}, 1, std::string(6 * 8, '\0'), true,
                   tensor(g, "float64", {2}, {1}, 0, std::string(16, '\x01')));
  PyRef object = python::to_python(t);
  set_main("sc_t", object.get());
  EXPECT_TRUE(
      python_truth("type(sc_t) is torch.Tensor and sc_t.stride() == (3,) and "
                   "sc_t.storage_offset() == 1 and sc_t.storage().size() == 6 and "
                   "sc_t.requires_grad and sc_t.is_leaf and sc_t.grad.dtype == torch.float64"));
  Graph h;
  EXPECT_EQ(why_unequal(t, python::from_python(object.get(), h)), "");
}

TEST_F(TorchLoads, TensorSubclassesStayGenericReduces) {
  Gil gil;
  Graph g;
  Node* n = python::from_python(eval("torch.nn.Parameter(torch.ones(2))").get(), g);
  EXPECT_EQ(n->kind, Kind::Object);
}

TEST_F(TorchLoads, DeviceBuffersHaveNoPythonObject) {
  Gil gil;
  Graph g;
  Node* b = gen::build_device_buffer({"sim:0", "abc"}, g);
  try {
    python::to_python(g.list({b}));
    FAIL() << "no error";
  } catch (const SubjectError& e) {
    EXPECT_EQ(e.kind(), "BridgeError");
    EXPECT_NE(std::string(e.what()).find("device-buffer"), std::string::npos) << e.what();
  }
}

// Properties that need torch: skipped as a whole when it is missing.

// encode -> real torch loads -> the same tensor, grads and requires_grad included.
TEST_F(TorchLoads, PropertyLoadsTheReferenceForm) {
  EXPECT_TRUE(rc::check("torch loads the reference form of generated tensors", [] {
    const auto v = *gen::tensorValue();
    const int p = *rc::gen::inRange(0, 6);
    Gil gil;
    Graph g;
    Node* back = loaded_by_python(encode_at(v.root, p), g);
    RC_ASSERT(why_unequal(v.root, back) == "");
  }));
}

// torch's own pickle of a bridged tensor decodes to the same tensor without its grads.
TEST_F(TorchLoads, PropertyTorchsOwnPickleDecodes) {
  EXPECT_TRUE(rc::check("torch's own pickles of generated tensors decode", [] {
    auto spec = *gen::tensorSpec();
    const int p = *rc::gen::inRange(0, 6);
    Gil gil;
    Graph g;
    PyRef object = python::to_python(build_tensor(spec, g));
    set_main("sc_t", object.get());
    exec("sc_bytes = pickle.dumps(sc_t, protocol=" + std::to_string(p) + ")");
    Graph h;
    Node* bytes = python::from_python(eval("sc_bytes").get(), h);
    Graph d;
    Node* decoded = decode_into(bytes->payload(), d);
    spec.grad = nullptr;
    Graph e;
    RC_ASSERT(why_unequal(build_tensor(spec, e), decoded) == "");
  }));
}

}  // namespace
}  // namespace serialcheck
