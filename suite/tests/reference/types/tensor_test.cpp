// The Tensor and DeviceBuffer domain kinds: torch's pickle form and the
// reference's form with a grad (written and recognised), equality, the JSON
// form, the generators, and the golden pickles of corpus/golden-torch
// (tensors and modules). Against real torch: tensor_python_test.cpp.
#include "reference/types/tensor.h"

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
#include "reference/device/device.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/value/equal.h"
#include "reference/value/json.h"
#include "reference/value/value.h"
#include "suite/tests/support/bytes.h"
#include "suite/tests/support/codec.h"
#include "suite/tests/support/errors.h"
#include "suite/tests/support/tensors.h"

namespace serialcheck {
namespace {

namespace fs = std::filesystem;

using test_support::bytes_of;
using test_support::golden_torch_dir;
using test_support::golden_torch_variants;
using test_support::GoldenTorchVariant;
using test_support::tensor;

using test_support::decode_into;
using test_support::encode_at;
using test_support::why_unequal;

using test_support::bin;

// A 2x3 float32 tensor over arange(6).
Node* small(Graph& g) {
  return tensor(g, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}));
}

// torch's reduce of a tensor, spelled out node by node, for the tests that
// change one part of it and check the decoder no longer recognises it.
struct Form {
  Graph g;
  Node* root;
  Node* args;
  Node* blob;
  Form(std::string stream, bool requires_grad = false) {
    blob = g.bytes(std::move(stream));
    Node* storage = g.object(g.global("torch.storage", "_load_from_bytes"), g.tuple({blob}));
    Node* hooks = g.object(g.global("collections", "OrderedDict"), g.tuple());
    args = g.tuple({storage, g.integer(0), g.tuple({g.integer(2), g.integer(3)}),
                    g.tuple({g.integer(3), g.integer(1)}), g.boolean(requires_grad), hooks});
    root = g.object(g.global("torch._utils", "_rebuild_tensor_v2"), args);
    g.root = root;
  }
};

std::string float_stream(std::string data) {
  return types::legacy_storage_stream(*types::find_torch_dtype("float32"), "cpu", data);
}

Kind decoded_kind(const Node* value, int protocol = 2) {
  Graph g;
  return decode_into(encode_at(value, protocol), g)->kind;
}

// ---- the legacy torch.save stream ---------------------------------------------

TEST(TensorStorage, StreamParsesBack) {
  for (const types::TorchDtype& d : types::torch_dtypes()) {
    std::string data(3 * d.itemsize, '\x5a');
    std::string stream = types::legacy_storage_stream(d, "cpu", data);
    auto parsed = types::parse_legacy_storage_stream(stream);
    ASSERT_TRUE(parsed) << d.name;
    EXPECT_EQ(parsed->dtype, &d);
    EXPECT_EQ(parsed->location, "cpu");
    EXPECT_EQ(parsed->data, data);
  }
}

TEST(TensorStorage, StreamRejectsWhatTorchWouldNotWrite) {
  const types::TorchDtype& f32 = *types::find_torch_dtype("float32");
  const std::string good = types::legacy_storage_stream(f32, "cpu", std::string(8, '\0'));
  EXPECT_FALSE(types::parse_legacy_storage_stream(good + "x")) << "trailing byte";
  EXPECT_FALSE(types::parse_legacy_storage_stream(good.substr(0, good.size() - 1)))
      << "missing byte";
  EXPECT_FALSE(types::parse_legacy_storage_stream(""));
  std::string bad_magic = good;
  bad_magic[4] ^= 1;  // inside the LONG1 magic number
  EXPECT_FALSE(types::parse_legacy_storage_stream(bad_magic));
  EXPECT_FALSE(types::parse_legacy_storage_stream(
      types::legacy_storage_stream(f32, "mps", std::string(8, '\0'))));
  // The key in the list of keys must be the persistent id's key.
  std::string other_key = good;
  std::size_t last = other_key.rfind(
      "X\x01\x00\x00\x00"
      "0",
      std::string::npos);
  ASSERT_NE(last, std::string::npos);
  other_key[last + 5] = '1';
  EXPECT_FALSE(types::parse_legacy_storage_stream(other_key));
  // The element count after the pickles must match the persistent id's.
  std::string count = good;
  count[count.size() - 8 - 8] = 3;
  EXPECT_FALSE(types::parse_legacy_storage_stream(count));
}

// ---- recognising torch's form ---------------------------------------------------

TEST(TensorForm, TorchsReduceBecomesATensorAtEveryProtocol) {
  for (int p = 0; p <= 5; ++p) {
    Form f(float_stream(bytes_of({0, 1, 2, 3, 4, 5})));
    Graph g;
    Node* back = decode_into(encode_at(f.root, p), g);
    ASSERT_EQ(back->kind, Kind::Tensor) << "protocol " << p;
    Graph h;
    EXPECT_EQ(why_unequal(back, small(h)), "") << "protocol " << p;
  }
}

TEST(TensorForm, AnythingElseStaysGeneric) {
  auto check = [](const char* what, auto change) {
    Form f(float_stream(bytes_of({0, 1, 2, 3, 4, 5})));
    change(f);
    EXPECT_EQ(decoded_kind(f.root), Kind::Object) << what;
  };
  check("hooks not empty",
        [](Form& f) { f.args->items[5]->obj()->dictitems.emplace_back(f.g.integer(1), f.g.none()); });
  check("hooks not an OrderedDict", [](Form& f) { f.args->items[5] = f.g.dict(); });
  check("five args", [](Form& f) { f.args->items.pop_back(); });
  check("negative offset", [](Form& f) { f.args->items[1] = f.g.integer(-1); });
  check("offset past the storage", [](Form& f) { f.args->items[1] = f.g.integer(1); });
  check("float stride", [](Form& f) { f.args->items[3]->items[0] = f.g.floating(3); });
  check("shape and strides of different lengths",
        [](Form& f) { f.args->items[3]->items.pop_back(); });
  check("requires_grad an int", [](Form& f) { f.args->items[4] = f.g.integer(1); });
  check("storage not bytes", [](Form& f) { f.args->items[0]->obj()->args->items[0] = f.g.str("x"); });
  check("storage stream truncated",
        [](Form& f) { f.blob->set_owned(std::string(f.blob->payload().substr(0, 40))); });
  check("other callable",
        [](Form& f) { f.root->obj()->callable = f.g.global("torch._utils", "_rebuild_tensor"); });
  check("state without a setter", [](Form& f) { f.root->obj()->state = f.g.dict(); });
  check("list items", [](Form& f) { f.root->obj()->listitems.push_back(f.g.none()); });
  check("a grad set by another setter", [](Form& f) {
    f.root->obj()->state = small(f.g);
    f.root->obj()->state_setter = f.g.global("builtins", "setattr");
  });
}

TEST(TensorForm, RequiresGradOnAnIntegerTensorStaysGeneric) {
  Form f(
      types::legacy_storage_stream(*types::find_torch_dtype("int32"), "cpu", std::string(24, '\0')),
      true);
  EXPECT_EQ(decoded_kind(f.root), Kind::Object);
}

TEST(TensorForm, CudaLocationKeepsItsDevice) {
  Form f(types::legacy_storage_stream(*types::find_torch_dtype("float32"), "cuda:0",
                                      bytes_of({0, 1, 2, 3, 4, 5})));
  Graph g;
  Node* back = decode_into(encode_at(f.root, 2), g);
  ASSERT_EQ(back->kind, Kind::Tensor);
  EXPECT_EQ(back->array()->device, "cuda:0");
}

// ---- the reference's form ---------------------------------------------------------

TEST(TensorForm, GradTravelsAsStateWithTheGradSetter) {
  Graph g;
  Node* grad = tensor(g, "float32", {2, 3}, {1, 2}, 0, bytes_of({9, 8, 7, 6, 5, 4}));
  Node* t = tensor(g, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}), true, grad);
  for (int p = 0; p <= 5; ++p) {
    std::string bytes = encode_at(t, p);
    EXPECT_NE(bytes.find("__set__"), std::string::npos);
    Graph h;
    Node* back = decode_into(bytes, h);
    ASSERT_EQ(back->kind, Kind::Tensor) << "protocol " << p;
    ASSERT_NE(back->array()->grad, nullptr);
    EXPECT_EQ(why_unequal(t, back), "") << "protocol " << p;
  }
}

TEST(TensorForm, OneGradSetterPerPickle) {
  Graph g;
  auto with_grad = [&] {
    return tensor(g, "float32", {1}, {1}, 0, bytes_of({1}), true,
                  tensor(g, "float32", {1}, {1}, 0, bytes_of({2})));
  };
  Node* list = g.list({with_grad(), with_grad()});
  std::string bytes = encode_at(list, 4);
  EXPECT_EQ(bytes.find("__set__"), bytes.rfind("__set__"));
  Graph h;
  EXPECT_EQ(why_unequal(list, decode_into(bytes, h)), "");
}

TEST(TensorForm, AGradSharedWithTheValueKeepsItsIdentity) {
  Graph g;
  Node* grad = tensor(g, "float64", {}, {}, 0, std::string(8, '\x11'));
  Node* t = tensor(g, "float64", {}, {}, 0, std::string(8, '\x22'), true, grad);
  Node* list = g.list({t, grad, t});
  for (int p = 0; p <= 5; ++p) {
    Graph h;
    Node* back = decode_into(encode_at(list, p), h);
    EXPECT_EQ(why_unequal(list, back), "") << "protocol " << p;
    EXPECT_EQ(back->items[0]->array()->grad, back->items[1]);
  }
}

TEST(TensorForm, WritesOnlyTensorsTorchCanHold) {
  auto refuses = [](const char* what, Node* t) {
    try {
      encode_at(t, 2);
      ADD_FAILURE() << what << ": no error";
    } catch (const pickle::PickleError& e) {
      EXPECT_EQ(e.kind(), pickle::ErrorKind::Unpicklable) << what;
      EXPECT_NE(std::string(e.what()).find("tensor"), std::string::npos) << e.what();
    }
  };
  Graph g;
  refuses("unknown dtype", tensor(g, "float128", {1}, {1}, 0, std::string(16, '\0')));
  refuses("complex32", tensor(g, "complex32", {1}, {1}, 0, std::string(4, '\0')));
  refuses("past the storage", tensor(g, "float32", {3}, {1}, 0, bytes_of({1, 2})));
  refuses("part of an element", tensor(g, "float32", {1}, {1}, 0, std::string(5, '\0')));
  refuses("negative stride", tensor(g, "float32", {2}, {-1}, 1, bytes_of({1, 2})));
  refuses("int requires grad", tensor(g, "int64", {1}, {1}, 0, std::string(8, '\0'), true));
  refuses("grad of another shape", tensor(g, "float32", {2}, {1}, 0, bytes_of({1, 2}), true,
                                          tensor(g, "float32", {1}, {1}, 0, bytes_of({1}))));
  refuses("grad not a tensor", tensor(g, "float32", {1}, {1}, 0, bytes_of({1}), false, g.list()));
  refuses("unknown device", [&] {
    Node* t = tensor(g, "float32", {1}, {1}, 0, bytes_of({1}));
    t->array()->device = "tpu";
    return t;
  }());
}

// ---- equality -----------------------------------------------------------------

TEST(TensorEqual, LayoutValuesAndGradAllCount) {
  Graph g;
  Node* a = small(g);
  Graph h;
  // Bytes outside the view do not count...
  Node* b = tensor(h, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}));
  EXPECT_EQ(why_unequal(a, b), "");
  Node* padded = tensor(h, "float32", {2, 3}, {3, 1}, 1, bytes_of({-1, 0, 1, 2, 3, 4, 5, 6}));
  EXPECT_NE(why_unequal(a, padded), "") << "the offset is part of the layout";
  Node* c = tensor(h, "float32", {2, 3}, {3, 1}, 1, bytes_of({7, 0, 1, 2, 3, 4, 5, 8}));
  EXPECT_EQ(why_unequal(padded, c), "") << "only the bytes the view reaches count";
  // ...but strides, values, requires_grad and the grad do.
  Node* strided = tensor(h, "float32", {2, 3}, {1, 2}, 0, bytes_of({0, 3, 1, 4, 2, 5}));
  EXPECT_NE(why_unequal(a, strided).find("tensor strides [3, 1] != [1, 2]"), std::string::npos);
  Node* value = tensor(h, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 9, 5}));
  EXPECT_NE(why_unequal(a, value).find("tensor element [1, 1] differs"), std::string::npos);
  Node* nan1 = tensor(h, "float32", {}, {}, 0, std::string("\x01\x00\xc0\x7f", 4));
  Node* nan2 = tensor(h, "float32", {}, {}, 0, std::string("\x02\x00\xc0\x7f", 4));
  EXPECT_NE(why_unequal(nan1, nan2), "") << "NaN payloads are compared bit for bit";
  Node* rg = tensor(h, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}), true);
  EXPECT_NE(why_unequal(a, rg).find("requires_grad"), std::string::npos);
  Node* dtype = tensor(h, "int32", {2, 3}, {3, 1}, 0, std::string(24, '\0'));
  EXPECT_NE(why_unequal(a, dtype).find("dtype"), std::string::npos);
  Node* with_grad =
      tensor(h, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}), false, small(h));
  EXPECT_EQ(why_unequal(a, with_grad), "root.grad: missing != present");
  Node* other_grad = tensor(h, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}), false,
                            tensor(h, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 6})));
  EXPECT_EQ(why_unequal(with_grad, other_grad), "root.grad: tensor element [1, 2] differs");
}

TEST(TensorEqual, BroadcastAndSelfOverlappingViews) {
  Graph g;
  // A stride-0 dimension of a billion repeats one element: compared once.
  Node* a = tensor(g, "int8", {1000000000, 2}, {0, 1}, 0, "ab");
  Node* b = tensor(g, "int8", {1000000000, 2}, {0, 1}, 0, "ab");
  Node* c = tensor(g, "int8", {1000000000, 2}, {0, 1}, 0, "ac");
  EXPECT_EQ(why_unequal(a, b), "");
  EXPECT_NE(why_unequal(a, c), "");
  // as_strided over itself: each element is reached many times.
  std::string data(1000, 'x');
  Node* d = tensor(g, "uint8", {1000, 1000}, {1, 1}, 0, data);
  data[500] = 'y';
  Node* e = tensor(g, "uint8", {1000, 1000}, {1, 1}, 0, data);
  EXPECT_NE(why_unequal(d, e), "");
}

// ---- JSON -------------------------------------------------------------------------

TEST(TensorJson, RoundTripsWithGradAndSharing) {
  Graph g;
  Node* grad = tensor(g, "bfloat16", {2}, {1}, 0, bin("\x80\x3f\x00\x40"));
  Node* t = tensor(g, "bfloat16", {2}, {2}, 1, bin("\x00\x00\x80\x3f\x00\x00\x00\x40\x00\x00"),
                   true, grad);
  Node* root = g.list({t, grad});
  std::string text = to_json(root);
  EXPECT_EQ(text,
            R"({"list":[{"tensor":{"dtype":"bfloat16","shape":[2],"strides":[2],"offset":1,)"
            R"("device":"cpu","requires_grad":true,"data":"0000803f000000400000","grad":)"
            R"({"tensor":{"dtype":"bfloat16","shape":[2],"strides":[1],"offset":0,)"
            R"("device":"cpu","requires_grad":false,"data":"803f0040"},"id":1}}},{"ref":1}]})");
  Graph h;
  Node* back = from_json(text, h);
  EXPECT_EQ(why_unequal(root, back), "");
  EXPECT_EQ(to_json(back), text);
  EXPECT_EQ(to_json(from_json(to_json(root, true), h)), text) << "pretty reads back";
}

TEST(TensorJson, RejectsTensorsTorchCannotHold) {
  auto rejects = [](std::string_view text, std::string_view where) {
    EXPECT_TRUE(test_support::json_refused_at(text, where));
  };
  const std::string head = R"({"tensor":{"dtype":"float32","shape":[2],"strides":[1],"offset":0,)"
                           R"("device":"cpu","requires_grad":false,)";
  rejects(head + R"("data":"0000803f"}})", "/tensor");
  rejects(head + R"("data":"0000803f0000803f","extra":1}})", "/tensor/extra");
  rejects(R"({"tensor":{"dtype":"float32"}})", "/tensor");
  rejects(R"({"tensor":{"dtype":"float32","shape":[-1],"strides":[1],"offset":0,)"
          R"("device":"cpu","requires_grad":false,"data":""}})",
          "/tensor/shape/0");
  rejects(head + R"("data":"0000803f0000803f","grad":[1]}})", "/tensor/grad");
  rejects(head + R"("data":"0000803f0000803f","grad":{"list":[]}}})", "/tensor/grad");
  rejects(
      head + R"("data":"0000803f0000803f","grad":)" +
          R"({"tensor":{"dtype":"float64","shape":[2],"strides":[1],"offset":0,)"
          R"("device":"cpu","requires_grad":false,"data":"00000000000000000000000000000000"}}}})",
      "/tensor/grad");
}

// ---- generated tensors -------------------------------------------------------

RC_GTEST_PROP(TensorGen, SpecsAreTensorsTorchCanHold, ()) {
  const auto spec = *gen::tensorSpec();
  Graph g;
  Node* t = build_tensor(spec, g);
  for (const Node* n = t; n != nullptr; n = n->array()->grad) {
    auto problem = types::tensor_problem(*n);
    RC_ASSERT(!problem.has_value());
  }
}

TEST(TensorGen, ReachesEveryDtypeAndLayout) {
  std::set<std::string> dtypes;
  bool zero_d = false, empty = false, strided = false, offset = false, broadcast = false,
       grad = false, grad_of_grad = false, requires_grad = false;
  rc::Random random(7);
  const auto gen = gen::tensorSpec();
  for (int i = 0; i < 2000; ++i) {
    const gen::TensorSpec s = gen(random.split(), i % 101).value();
    dtypes.insert(s.dtype);
    zero_d |= s.shape.empty();
    for (std::int64_t d : s.shape) empty |= d == 0;
    std::int64_t numel = 1;
    for (std::int64_t d : s.shape) numel *= d;
    offset |= s.offset > 0;
    for (std::size_t k = 0; k < s.strides.size(); ++k) {
      broadcast |= s.strides[k] == 0 && s.shape[k] > 1;
    }
    strided |= numel > 1 && s.storage_elements > numel;
    grad |= s.grad != nullptr;
    grad_of_grad |= s.grad != nullptr && s.grad->grad != nullptr;
    requires_grad |= s.requires_grad;
  }
  EXPECT_EQ(dtypes.size(), types::torch_dtypes().size());
  EXPECT_TRUE(zero_d);
  EXPECT_TRUE(empty);
  EXPECT_TRUE(strided);
  EXPECT_TRUE(offset);
  EXPECT_TRUE(broadcast);
  EXPECT_TRUE(grad);
  EXPECT_TRUE(grad_of_grad);
  EXPECT_TRUE(requires_grad);
}

RC_GTEST_PROP(TensorCodec, RoundTripsAtEveryProtocol, ()) {
  const auto v = *gen::tensorValue();
  const int p = *rc::gen::inRange(0, 6);
  Graph g;
  Node* back = decode_into(encode_at(v.root, p), g);
  RC_ASSERT(why_unequal(v.root, back) == "");
  RC_ASSERT(encode_at(back, p) == encode_at(v.root, p));
  Graph h;
  const std::string text = to_json(v.root);
  RC_ASSERT(to_json(from_json(text, h)) == text);
}

TEST(TensorShape, GradIsAChild) {
  Graph g;
  Node* grad = small(g);
  Node* t = tensor(g, "float32", {2, 3}, {3, 1}, 0, bytes_of({0, 1, 2, 3, 4, 5}), false, grad);
  auto kids = gen::children(*t);
  ASSERT_EQ(kids.size(), 1u);
  EXPECT_EQ(kids[0], grad);
  EXPECT_EQ(gen::shape_of(t).count(Kind::Tensor), 2u);
}

// ---- device buffers ------------------------------------------------------------

TEST(DeviceBufferKind, HasNoPickleForm) {
  Graph g;
  Node* b = gen::build_device_buffer({"sim:0", "abc"}, g);
  try {
    encode_at(g.list({b}), 5);
    FAIL() << "no error";
  } catch (const pickle::PickleError& e) {
    EXPECT_EQ(e.kind(), pickle::ErrorKind::Unpicklable);
    EXPECT_NE(std::string(e.what()).find("device-buffer"), std::string::npos) << e.what();
  }
}

TEST(DeviceBufferKind, EqualityReadsBackThroughCountedCopies) {
  auto device = device::open_device("sim:0");
  Graph g;
  Node* a = gen::build_device_buffer({"sim:0", "hello"}, g);
  Node* b = gen::build_device_buffer({"sim:0", "hello"}, g);
  Node* c = gen::build_device_buffer({"sim:0", "hellO"}, g);
  Node* d = gen::build_device_buffer({"sim:0", "hell"}, g);
  const device::CopyCounters before = device->counters();
  EXPECT_EQ(why_unequal(a, b), "");
  EXPECT_EQ(device->counters().device_to_host, before.device_to_host + 2);
  EXPECT_EQ(why_unequal(a, c), "root: device-buffer bytes differ at offset 4");
  EXPECT_EQ(why_unequal(a, d), "root: device-buffer size 5 != 4");
}

TEST(DeviceBufferKind, JsonRoundTrips) {
  Graph g;
  Node* b = gen::build_device_buffer({"sim:0", "\x01\xff"}, g);
  Node* root = g.list({b, b});
  const std::string text = to_json(root);
  EXPECT_EQ(text, R"({"list":[{"device-buffer":"01ff","id":1,"device":"sim:0"},{"ref":1}]})");
  Graph h;
  Node* back = from_json(text, h);
  EXPECT_EQ(why_unequal(root, back), "");
  EXPECT_EQ(back->items[0]->device()->device().name(), "sim:0");
  try {
    from_json(R"({"device-buffer":"00","device":"nowhere:0"})", h);
    FAIL() << "unknown device accepted";
  } catch (const JsonFormError& e) {
    EXPECT_EQ(e.where(), "/device");
  }
}

RC_GTEST_PROP(DeviceBufferKind, GeneratedBuffersRoundTripThroughJson, ()) {
  const auto v = *gen::deviceBufferValue();
  Graph g;
  Node* back = from_json(to_json(v.root), g);
  RC_ASSERT(why_unequal(v.root, back) == "");
  RC_ASSERT(back->device()->size() == v.root->device()->size());
}

// ---- golden pickles from torch and cloudpickle --------------------------------------

std::optional<std::string> read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

TEST(GoldenTorchManifest, Loads) {
  auto variants = golden_torch_variants();
  EXPECT_GE(variants.size(), 6u * 30u) << "corpus/golden-torch/MANIFEST.json is missing or short";
}

class GoldenTorch : public ::testing::TestWithParam<GoldenTorchVariant> {};

TEST_P(GoldenTorch, DecodesAndEncodes) {
  const GoldenTorchVariant& v = GetParam();
  auto bytes = read_file(golden_torch_dir() / v.pickle_file);
  auto text = read_file(golden_torch_dir() / v.json_file);
  ASSERT_TRUE(bytes && text) << v.pickle_file << " or " << v.json_file << " is missing";
  Graph expected_graph;
  Node* expected = from_json(*text, expected_graph);
  Graph g;
  Node* decoded = decode_into(*bytes, g);
  EXPECT_EQ(why_unequal(expected, decoded), "") << "decoding " << v.pickle_file;
  if (v.byte_identical) {
    EXPECT_EQ(encode_at(expected, v.protocol), *bytes) << "encoding " << v.json_file;
  }
}

std::string golden_name(const ::testing::TestParamInfo<GoldenTorchVariant>& info) {
  std::string name =
      info.param.case_name + "_" + info.param.form + "_p" + std::to_string(info.param.protocol);
  for (char& c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return name;
}

INSTANTIATE_TEST_SUITE_P(Corpus, GoldenTorch, ::testing::ValuesIn(golden_torch_variants()),
                         golden_name);

// ---- real torch ------------------------------------------------------------------

}  // namespace
}  // namespace serialcheck
