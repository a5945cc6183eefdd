// The serialization families (reference/frames/family.h) against
// dask.distributed's wire schema: headers as distributed writes them,
// sub-headers kept intact, collections walked at any depth, negotiation,
// typed errors, zero-copy both ways, and interop with distributed itself
// (suite/tests/families_interop.py runs on Debian's /usr/bin/python3).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/gen/config.h"
#include "harness/gen/ndarray_gen.h"
#include "harness/gen/value.h"
#include "reference/device/device.h"
#include "reference/frames/family.h"
#include "reference/frames/walk.h"
#include "reference/frames/wire.h"
#include "reference/pickle/encoder.h"
#include "reference/value/equal.h"
#include "reference/value/numeric.h"
#include "reference/value/value.h"
#include "suite/tests/support/bytes.h"
#include "suite/tests/support/errors.h"
#include "suite/tests/support/files.h"
#include "suite/tests/support/values.h"

namespace serialcheck::families {
namespace {

using json = nlohmann::json;
namespace fs = std::filesystem;

// ---- building values ---------------------------------------------------------------

std::string le_doubles(std::initializer_list<double> values) {
  std::string out;
  for (double v : values) {
    char b[8];
    std::memcpy(b, &v, 8);
    out.append(b, 8);
  }
  return out;
}

template <typename T>
std::string le_ints(std::initializer_list<T> values) {
  std::string out;
  for (T v : values) {
    char b[sizeof(T)];
    std::memcpy(b, &v, sizeof(T));
    out.append(b, sizeof(T));
  }
  return out;
}

// The shared builders, and arrays.
struct B : test_support::Values {
  Node* nd(std::string dtype, std::vector<std::int64_t> shape, std::vector<std::int64_t> strides,
           std::string data, std::int64_t offset = 0, bool writeable = true) {
    Node* n = test_support::with_layout(g.ndarray(), std::move(dtype), std::move(shape),
                                        std::move(strides), offset, std::move(data));
    n->array()->writeable = writeable;
    return n;
  }
  // C-contiguous float64 0, 1, 2, ... of this shape.
  Node* arange(std::vector<std::int64_t> shape) {
    std::int64_t count = 1;
    for (auto d : shape) count *= d;
    std::string data;
    for (std::int64_t k = 0; k < count; ++k) data += le_doubles({static_cast<double>(k)});
    std::vector<std::int64_t> strides(shape.size());
    std::int64_t s = 8;
    for (std::size_t k = shape.size(); k-- > 0;) {
      strides[k] = s;
      s *= shape[k];
    }
    return nd("<f8", shape, strides, data);
  }
  Node* tensor(std::string dtype, std::vector<std::int64_t> shape,
               std::vector<std::int64_t> strides, std::string storage, std::int64_t offset = 0) {
    return test_support::with_layout(g.tensor(), std::move(dtype), std::move(shape),
                                     std::move(strides), offset, std::move(storage));
  }
};

json bin(std::string_view bytes) {
  return json::binary(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
}

std::string frame_bytes(const Frame& f) {
  return std::string(f.view());
}

// ---- describing values (the same JSON families_interop.py writes) ----------------

using test_support::hex;

std::size_t numpy_itemsize(const std::string& dtype) {
  std::size_t n = std::stoul(dtype.substr(2));
  return dtype[1] == 'U' ? 4 * n : n;
}

std::size_t torch_itemsize(const std::string& dtype) {
  static const std::map<std::string, std::size_t> sizes = {
      {"float64", 8}, {"float32", 4}, {"float16", 2},   {"bfloat16", 2},
      {"int64", 8},   {"int32", 4},   {"int16", 2},     {"int8", 1},
      {"uint8", 1},   {"bool", 1},    {"complex64", 8}, {"complex128", 16}};
  return sizes.at(dtype);
}

// The elements in C order; strides and offset in units of `scale` bytes.
std::string c_order(const Node& n, std::size_t itemsize, std::int64_t scale) {
  const ArrayParts& a = *n.array();
  std::int64_t count = 1;
  for (auto d : a.shape) count *= d;
  std::string out;
  if (count == 0) return out;
  std::vector<std::int64_t> index(a.shape.size(), 0);
  const auto p = n.payload();
  for (std::int64_t k = 0; k < count; ++k) {
    std::int64_t at = a.offset * scale;
    for (std::size_t d = 0; d < index.size(); ++d) at += index[d] * a.strides[d] * scale;
    out.append(p.substr(static_cast<std::size_t>(at), itemsize));
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < a.shape[d]) break;
      index[d] = 0;
    }
  }
  return out;
}

json describe(const Node* n) {
  if (n == nullptr) return nullptr;
  switch (n->kind) {
    case Kind::None: return nullptr;
    case Kind::Bool: return n->flag;
    case Kind::Int:
      return {{"int", n->big ? twos_le_to_decimal(n->payload()) : std::to_string(n->small())}};
    case Kind::Float: {
      char b[8];
      std::memcpy(b, &n->f, 8);
      return {{"float", hex(std::string_view(b, 8))}};
    }
    case Kind::Str: return {{"str", std::string(n->payload())}};
    case Kind::Bytes: return {{"bytes", hex(n->payload())}};
    case Kind::ByteArray: return {{"bytearray", hex(n->payload())}};
    case Kind::PickleBuffer: return {{"buffer", hex(n->payload())}};
    case Kind::List:
    case Kind::Tuple: {
      json items = json::array();
      for (const Node* i : n->items) items.push_back(describe(i));
      return {{n->kind == Kind::List ? "list" : "tuple", items}};
    }
    case Kind::Dict: {
      json pairs = json::array();
      for (std::size_t i = 0; i + 1 < n->items.size(); i += 2) {
        pairs.push_back(json::array({describe(n->items[i]), describe(n->items[i + 1])}));
      }
      return {{"dict", pairs}};
    }
    case Kind::Set: {
      std::vector<std::string> items;
      for (const Node* i : n->items) items.push_back(describe(i).dump());
      std::sort(items.begin(), items.end());
      return {{"set", items}};
    }
    case Kind::NDArray: {
      const ArrayParts& a = *n->array();
      return {{"ndarray",
               {{"dtype", a.dtype},
                {"shape", a.shape},
                {"data", hex(c_order(*n, numpy_itemsize(a.dtype), 1))},
                {"writeable", a.writeable}}}};
    }
    case Kind::Tensor: {
      const ArrayParts& a = *n->array();
      const std::size_t size = torch_itemsize(a.dtype);
      std::string device = a.device.substr(0, a.device.find(':'));
      return {{"tensor",
               {{"dtype", a.dtype},
                {"shape", a.shape},
                {"data", hex(c_order(*n, size, static_cast<std::int64_t>(size)))},
                {"requires_grad", a.requires_grad},
                {"grad", describe(a.grad)},
                {"device", device}}}};
    }
    case Kind::Module: return {{"module", n->name()}};
    default: return {{"repr", std::string(kind_name(n->kind))}};
  }
}

// serialize, then deserialize into `g`; the message stays alive in `m`.
Node* roundtrip(const Node* value, Message& m, Graph& g, const SerializeOptions& so = {},
                const DeserializeOptions& dopt = {}) {
  m = serialize(value, so);
  return deserialize(m, g, dopt);
}

// A message whose only frame holds no bytes: nothing to alias or copy.
bool empty_or_zero(const Message& m) {
  return std::all_of(m.frames.begin(), m.frames.end(), [](const Frame& f) { return f.size == 0; });
}

template <typename F>
FamilyError error_of(F&& f) {
  return test_support::error_of(f, FamilyError(FamilyErrorKind::BadHeader, "none"));
}

// ---- the registry ------------------------------------------------------------------------

TEST(FamilyRegistry, HoldsTheBuiltinFamiliesByName) {
  const auto& r = FamilyRegistry::builtin();
  EXPECT_EQ(r.names(), (std::vector<std::string>{"dask", "pickle", "msgpack", "error", "cuda"}));
  EXPECT_EQ(r.find("nope"), nullptr);
  ASSERT_NE(r.find("error"), nullptr);
  EXPECT_FALSE(r.find("error")->dumps);  // loads only, as in distributed

  FamilyRegistry mine = FamilyRegistry::with_builtin();
  Family f;
  f.name = "pickle";
  f.loads = [](const json&, std::span<const Frame>, const LoadContext& ctx) {
    return ctx.graph().integer(7);
  };
  mine.add(f);
  EXPECT_EQ(mine.names().size(), 5u);  // replaced, not added
  Graph g;
  Node* v = deserialize(json{{"serializer", "pickle"}}, {}, g, {}, mine);
  EXPECT_EQ(v->small(), 7);
}

TEST(DaskTypeRegistry, FindsTypesByKindAndClass) {
  auto types = DaskTypeRegistry::builtin();
  EXPECT_EQ(types.for_kind(Kind::NDArray)->type_name, "numpy.ndarray");
  EXPECT_EQ(types.for_kind(Kind::Tensor)->type_name, "torch.Tensor");
  EXPECT_EQ(types.for_kind(Kind::Int), nullptr);
  EXPECT_EQ(types.for_class("builtins", "bytearray")->type_name, "bytearray");
  EXPECT_NE(types.for_class("builtins", "memoryview"), nullptr);
  EXPECT_EQ(types.for_class("numpy", "matrix"), nullptr);
}

// ---- pickle --------------------------------------------------------------------------------

TEST(FamiliesPickle, WritesDistributedsHeaderAndOnePickleFrame) {
  Graph g;
  Message m = serialize(g.integer(1));
  EXPECT_EQ(m.header,
            (json{{"serializer", "pickle"}, {"writeable", json::array()}, {"pickle-protocol", 5}}));
  ASSERT_EQ(m.frames.size(), 1u);
  EXPECT_EQ(frame_bytes(m.frames[0]), std::string("\x80\x05K\x01.", 5));
  Graph out;
  Node* v = deserialize(m, out);
  ASSERT_EQ(v->kind, Kind::Int);
  EXPECT_EQ(v->small(), 1);
}

TEST(FamiliesPickle, BuffersGoOutOfBandAliasingTheValue) {
  Graph g;
  B b{g};
  Node* pb = g.pickle_buffer("0123456789", false);
  Node* value = b.T({b.s("x"), pb});
  Message m;
  Graph out;
  SerializeOptions so;
  so.serializers = {"pickle"};
  Node* back = roundtrip(value, m, out, so);
  ASSERT_EQ(m.frames.size(), 2u);
  EXPECT_EQ(m.header["writeable"], json::array({true}));
  EXPECT_TRUE(m.frames[1].borrowed());
  EXPECT_TRUE(frame_aliases(m.frames[1], *pb));
  EXPECT_TRUE(copied_on_serialize(value, m).empty());
  EXPECT_TRUE(equal(value, back));
  EXPECT_TRUE(node_borrows(*back->items[1], m.frames[1]));
  EXPECT_TRUE(copied_on_deserialize(back, m).empty());
}

TEST(FamiliesPickle, ArraysGoOutOfBandWithoutACopy) {
  Graph g;
  B b{g};
  Node* a = b.arange({3, 2});
  SerializeOptions so;
  so.serializers = {"pickle"};
  Message m;
  Graph out;
  Node* back = roundtrip(b.L({b.i(1), a}), m, out, so);
  ASSERT_EQ(m.header["serializer"], "pickle");
  ASSERT_EQ(m.frames.size(), 2u);
  EXPECT_TRUE(frame_aliases(m.frames[1], *a));
  ASSERT_EQ(back->items[1]->kind, Kind::NDArray);
  EXPECT_TRUE(node_borrows(*back->items[1], m.frames[1]));
  EXPECT_EQ(describe(back->items[1]), describe(a));
}

TEST(FamiliesPickle, HeaderWriteableDecidesReadonly) {
  Graph g;
  SerializeOptions so;
  so.serializers = {"pickle"};
  Message m = serialize(g.pickle_buffer("ab", false), so);
  EXPECT_EQ(m.header["writeable"], json::array({true}));
  Graph out;
  const Node* writable = deserialize(m, out);
  EXPECT_FALSE(writable->flag);
  EXPECT_EQ(writable->supplied, Supplied::Writable);
  EXPECT_FALSE(loaded_readonly(*writable));
  // The header, not the frame, says whether the memory the loader gets is
  // writeable (a READONLY_BUFFER opcode in the pickle still wins, as in
  // Python); the buffer's own flag stays what the pickle says.
  m.frames[1].readonly = false;
  m.header["writeable"] = json::array({false});
  const Node* readonly = deserialize(m, out);
  EXPECT_FALSE(readonly->flag);
  EXPECT_EQ(readonly->supplied, Supplied::ReadOnly);
  EXPECT_TRUE(loaded_readonly(*readonly));
  m.header["writeable"] = json::array({true, false});
  auto e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadHeader);
  EXPECT_EQ(e.header_key(), "/writeable");
}

// ---- negotiation -----------------------------------------------------------------------------

TEST(FamiliesNegotiation, PeerProtocol4WritesBuffersInBandAndRecordsIt) {
  Graph g;
  B b{g};
  Node* value = b.T({b.i(1), b.b("abc")});
  SerializeOptions so;
  so.serializers = {"pickle"};
  so.peer_max_protocol = 4;
  Message m = serialize(value, so);
  EXPECT_EQ(m.header["pickle-protocol"], 4);
  ASSERT_EQ(m.frames.size(), 1u);
  EXPECT_EQ(static_cast<int>(m.frames[0].data[1]), 4);
  Graph out;
  DeserializeOptions dopt;
  dopt.max_protocol = 4;
  EXPECT_TRUE(equal(value, deserialize(m, out, dopt)));
  EXPECT_EQ(negotiated_protocol(5, 4), 4);
  EXPECT_EQ(negotiated_protocol(3, 5), 3);
}

TEST(FamiliesNegotiation, DaskClassPicklesFollowThePeer) {
  Graph g;
  SerializeOptions so;
  so.peer_max_protocol = 2;
  Message m = serialize(g.bytes("x"), so);
  const auto& ts = m.header["type-serialized"].get_binary();
  ASSERT_GE(ts.size(), 2u);
  EXPECT_EQ(ts[0], 0x80);
  EXPECT_EQ(ts[1], 2);
  Graph out;
  DeserializeOptions dopt;
  dopt.max_protocol = 2;
  EXPECT_EQ(deserialize(m, out, dopt)->payload(), "x");
}

TEST(FamiliesNegotiation, PickleBufferCannotGoBelow5) {
  Graph g;
  SerializeOptions so;
  so.serializers = {"pickle"};
  so.peer_max_protocol = 4;
  Message m = serialize(g.pickle_buffer("ab", true), so);
  EXPECT_EQ(m.header, (json{{"serializer", "error"}}));
  Graph out;
  auto e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::RemoteError);
  EXPECT_NE(e.detail().find("PickleBuffer"), std::string::npos) << e.what();
  so.on_error = OnError::Raise;
  e = error_of([&] { serialize(g.pickle_buffer("ab", true), so); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::Unserializable);
}

TEST(FamiliesNegotiation, MismatchWithoutNegotiationNamesBothProtocols) {
  Graph g;
  Message m = serialize(g.str("s"));
  m.header.erase("pickle-protocol");  // as distributed writes it
  DeserializeOptions dopt;
  dopt.max_protocol = 4;
  Graph out;
  auto e = error_of([&] { deserialize(m, out, dopt); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::UnsupportedProtocol);
  EXPECT_EQ(e.found_protocol(), 5);
  EXPECT_EQ(e.max_protocol(), 4);
  EXPECT_EQ(e.frame(), 0u);
  EXPECT_EQ(e.offset(), 0u);
  EXPECT_NE(std::string(e.what()).find("5"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("4"), std::string::npos);

  // Recorded in the header: refused before the pickle is read.
  m.header["pickle-protocol"] = 5;
  e = error_of([&] { deserialize(m, out, dopt); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::UnsupportedProtocol);
  EXPECT_EQ(e.header_key(), "/pickle-protocol");
  EXPECT_EQ(e.found_protocol(), 5);

  // A header that claims 4 over a protocol-5 pickle is held to 4.
  m.header["pickle-protocol"] = 4;
  e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::UnsupportedProtocol);
  EXPECT_EQ(e.found_protocol(), 5);
  EXPECT_EQ(e.max_protocol(), 4);
}

// ---- dask: numpy -------------------------------------------------------------------------------

// pickle.dumps(numpy.ndarray, protocol=5), as distributed writes it.
const std::string kNdarrayClass(
    "\x80\x05\x95\x15\x00\x00\x00\x00\x00\x00\x00\x8c\x05numpy\x94\x8c\x07ndarray\x94\x93\x94.",
    32);

TEST(FamiliesDask, NdarrayHeaderIsDistributeds) {
  Graph g;
  B b{g};
  Node* a = b.arange({2, 3});
  Message m = serialize(a);
  json expected = {{"sub-header",
                    {{"dtype", json::array({0, "<f8"})},
                     {"shape", {2, 3}},
                     {"strides", {24, 8}},
                     {"writeable", json::array({true})}}},
                   {"type", "numpy.ndarray"},
                   {"type-serialized", bin(kNdarrayClass)},
                   {"serializer", "dask"}};
  EXPECT_EQ(m.header, expected) << m.header.dump();
  ASSERT_EQ(m.frames.size(), 1u);
  EXPECT_TRUE(m.frames[0].borrowed());
  EXPECT_EQ(m.frames[0].data, reinterpret_cast<const std::uint8_t*>(a->payload().data()));
  EXPECT_EQ(m.frames[0].size, 48u);
  Graph out;
  Node* back = deserialize(m, out);
  EXPECT_EQ(describe(back), describe(a));
  EXPECT_TRUE(node_borrows(*back, m.frames[0]));
}

struct Layout {
  const char* name;
  std::vector<std::int64_t> shape, strides;
  std::int64_t offset;
  // What distributed's numpy serializer writes for it.
  std::vector<std::int64_t> header_shape, header_strides;
  std::optional<std::vector<std::int64_t>> broadcast_to;
  bool zero_copy;
};

TEST(FamiliesDask, NdarrayLayoutsFollowDistributed) {
  // Over the 12 doubles 0..11.
  const std::vector<Layout> layouts = {
      {"fortran", {2, 3}, {8, 16}, 0, {2, 3}, {8, 16}, std::nullopt, true},
      {"non-contiguous", {2, 2}, {24, 16}, 0, {2, 2}, {16, 8}, std::nullopt, false},
      {"reversed", {5}, {-8}, 32, {5}, {8}, std::nullopt, false},
      {"0-d", {}, {}, 8, {}, {}, std::nullopt, true},
      {"empty", {0, 3}, {0, 0}, 0, {0, 1}, {0, 0}, std::vector<std::int64_t>{0, 3}, true},
      {"broadcast", {4, 3}, {0, 8}, 0, {1, 3}, {0, 8}, std::vector<std::int64_t>{4, 3}, true},
      {"broadcast non-contiguous",
       {3, 4},
       {16, 0},
       0,
       {3, 1},
       {8, 0},
       std::vector<std::int64_t>{3, 4},
       false},
      {"offset slice", {2}, {8}, 40, {2}, {8}, std::nullopt, true},
  };
  std::string data;
  for (int k = 0; k < 12; ++k) data += le_doubles({static_cast<double>(k)});
  for (const Layout& l : layouts) {
    SCOPED_TRACE(l.name);
    Graph g;
    B b{g};
    Node* a = b.nd("<f8", l.shape, l.strides, data, l.offset);
    Message m = serialize(a);
    const json& sub = m.header["sub-header"];
    EXPECT_EQ(sub["shape"], json(l.header_shape));
    EXPECT_EQ(sub["strides"], json(l.header_strides));
    if (l.broadcast_to) {
      EXPECT_EQ(sub["broadcast_to"], json(*l.broadcast_to));
    } else {
      EXPECT_FALSE(sub.contains("broadcast_to"));
    }
    ASSERT_EQ(m.frames.size(), 1u);
    EXPECT_EQ(m.frames[0].borrowed(), l.zero_copy);
    if (l.zero_copy && m.frames[0].size > 0) {
      EXPECT_TRUE(frame_aliases(m.frames[0], *a));
    }
    EXPECT_EQ(copied_on_serialize(a, m).empty(), l.zero_copy);
    Graph out;
    Node* back = deserialize(m, out);
    EXPECT_EQ(describe(back), describe(a));
  }
}

TEST(FamiliesDask, NdarrayDtypesRoundTrip) {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"|u1", "\x01\x02\x03"},
      {"|b1", std::string("\x01\x00", 2)},
      {">i4", "\x00\x00\x00\x07"},
      {"<M8[ns]", le_ints<std::int64_t>({5})},
      {"<U1", std::string("a\0\0\0", 4)},
      {"|S2", "hi"},
      {"|V3", "xyz"},
      {"<c8", le_ints<std::int32_t>({1, 2})}};
  for (const auto& [dtype, data] : cases) {
    SCOPED_TRACE(dtype);
    Graph g;
    B b{g};
    const auto size = static_cast<std::int64_t>(numpy_itemsize(dtype));
    Node* a = b.nd(dtype, {static_cast<std::int64_t>(data.size()) / size}, {size}, data, 0, false);
    Message m;
    Graph out;
    Node* back = roundtrip(a, m, out);
    EXPECT_EQ(m.header["sub-header"]["dtype"], json::array({0, dtype}));
    EXPECT_EQ(describe(back), describe(a));
  }
}

TEST(FamiliesDask, ObjectArraysAreLeftToTheNextFamily) {
  Graph g;
  B b{g};
  SerializeOptions so;
  so.serializers = {"dask"};
  Message m = serialize(b.nd("|O", {1}, {8}, std::string(8, '\0')), so);
  EXPECT_EQ(m.header["serializer"], "error");
}

TEST(FamiliesDask, AnArrayOutsideItsBufferIsAnInvalidValue) {
  Graph g;
  B b{g};
  SerializeOptions so;
  so.on_error = OnError::Raise;
  auto e = error_of([&] { serialize(b.nd("<f8", {10}, {8}, std::string(16, '\0')), so); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::Unserializable);
  EXPECT_NE(e.detail().find("outside"), std::string::npos) << e.what();
}

// ---- dask: torch
// ---------------------------------------------------------------------------------

TEST(FamiliesDask, TensorNestsTheNdarrayHeaderIntact) {
  Graph g;
  B b{g};
  std::string storage = le_ints<float>({0.f, 1.f, 2.f, 3.f});
  Node* t = b.tensor("float32", {4}, {1}, storage);
  t->array()->requires_grad = true;
  t->array()->grad = b.tensor("float32", {4}, {1}, le_ints<float>({.5f, .5f, .5f, .5f}));
  Message m = serialize(t);
  EXPECT_EQ(m.header["type"], "torch.Tensor");
  EXPECT_EQ(m.header["serializer"], "dask");
  const json& th = m.header["sub-header"];
  EXPECT_EQ(th["requires_grad"], true);
  EXPECT_EQ(th["device"], "cpu");

  // The data's header is exactly serialize() of the ndarray Tensor.numpy()
  // gives: the wrapper wrote no key into it.
  Graph g2;
  B b2{g2};
  Message alone = serialize(b2.nd("<f4", {4}, {4}, storage));
  EXPECT_EQ(th["sub-header"], alone.header);
  EXPECT_EQ(th["sub-header"]["type-serialized"], bin(kNdarrayClass));
  EXPECT_EQ(th["sub-header"]["sub-header"]["writeable"], json::array({true}));
  EXPECT_EQ(th["grad"]["start"], 1);
  EXPECT_EQ(th["grad"]["header"]["type"], "numpy.ndarray");

  ASSERT_EQ(m.frames.size(), 2u);
  EXPECT_TRUE(frame_aliases(m.frames[0], *t));
  EXPECT_TRUE(frame_aliases(m.frames[1], *t->array()->grad));
  Graph out;
  Node* back = deserialize(m, out);
  ASSERT_EQ(back->kind, Kind::Tensor);
  EXPECT_EQ(describe(back), describe(t));
  EXPECT_TRUE(copied_on_deserialize(back, m).empty());
}

TEST(FamiliesDask, TensorViewsSendOnlyTheirElements) {
  Graph g;
  B b{g};
  std::string storage;
  for (int k = 0; k < 10; ++k) storage += le_ints<float>({static_cast<float>(k)});
  // t = arange(10)[3:7].reshape(2, 2).t(): F-contiguous from storage offset 3.
  Node* t = b.tensor("float32", {2, 2}, {1, 2}, storage, 3);
  Message m = serialize(t);
  ASSERT_EQ(m.frames.size(), 1u);
  EXPECT_EQ(m.frames[0].data, reinterpret_cast<const std::uint8_t*>(t->payload().data()) + 12);
  EXPECT_EQ(m.frames[0].size, 16u);
  Graph out;
  EXPECT_EQ(describe(deserialize(m, out)), describe(t));
}

TEST(FamiliesDask, TensorsNumpyCannotHoldGoToTheNextFamily) {
  Graph g;
  B b{g};
  SerializeOptions so;
  so.serializers = {"dask"};
  Message m = serialize(b.tensor("bfloat16", {1}, {1}, "\0\0"), so);
  EXPECT_EQ(m.header["serializer"], "error");
}

TEST(FamiliesDask, TensorHeadersTorchWouldRefuseAreBadHeaders) {
  Graph g;
  B b{g};
  Node* t = b.tensor("int64", {2}, {1}, le_ints<std::int64_t>({1, 2}));
  Message m = serialize(t);
  m.header["sub-header"]["requires_grad"] = true;
  Graph out;
  auto e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadHeader);
  EXPECT_EQ(e.header_key(), "/sub-header/requires_grad");

  Node* f = b.tensor("float32", {2}, {1}, le_ints<float>({1.f, 2.f}));
  f->array()->grad = b.tensor("float32", {2}, {1}, le_ints<float>({0.f, 0.f}));
  m = serialize(f);
  m.header["sub-header"]["grad"]["header"]["sub-header"]["shape"] = json::array({1});
  m.header["sub-header"]["grad"]["header"]["sub-header"]["strides"] = json::array({4});
  e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadHeader);
  EXPECT_EQ(e.header_key(), "/sub-header/grad/header");
}

// ---- dask: bytes, modules
// ---------------------------------------------------------------------------

TEST(FamiliesDask, BytesAreOneBorrowedFrame) {
  Graph g;
  B b{g};
  Node* v = b.b("hello");
  Message m = serialize(v);
  EXPECT_EQ(m.header["type"], "bytes");
  EXPECT_EQ(m.header["sub-header"], json::object());
  EXPECT_EQ(m.header["type-serialized"],
            bin(std::string("\x80\x05\x95\x16\x00\x00\x00\x00\x00\x00\x00\x8c\x08"
                            "builtins\x94\x8c\x05"
                            "bytes\x94\x93\x94.",
                            33)));
  EXPECT_TRUE(frame_aliases(m.frames[0], *v));
  Graph out;
  Node* back = deserialize(m, out);
  EXPECT_TRUE(equal(v, back));
  EXPECT_TRUE(back->borrowed());
}

TEST(FamiliesDask, ModulesTravelByReference) {
  Graph g;
  Node* mod = g.module("torch.backends.cudnn", g.global("torch.backends.cudnn", "CudnnModule"));
  Message m = serialize(mod);
  EXPECT_EQ(m.header["serializer"], "dask");
  EXPECT_EQ(m.header["sub-header"]["name"], "torch.backends.cudnn");
  EXPECT_TRUE(m.frames.empty());
  Graph out;
  Node* back = deserialize(m, out);
  ASSERT_EQ(back->kind, Kind::Module);
  EXPECT_EQ(back->name(), "torch.backends.cudnn");
  ASSERT_EQ(back->items.size(), 1u);
  EXPECT_EQ(back->items[0]->name(), "CudnnModule");
}

// ---- walking
// ---------------------------------------------------------------------------------------------

TEST(FamiliesWalk, DataAnywhereInACollectionIsWalked) {
  Graph g;
  B b{g};
  Node* a1 = b.arange({3});
  Node* a2 = b.arange({2});
  // dask looked at the first element only: these two were pickled whole.
  std::vector<Node*> values = {b.L({b.T({b.i(1), a1})}), b.L({b.T({a1, b.i(1)})}),
                               b.D({b.s("k"), b.L({b.i(1), b.D({b.s("z"), a2})})})};
  for (Node* v : values) {
    Message m;
    Graph out;
    Node* back = roundtrip(v, m, out);
    EXPECT_EQ(m.header["is-collection"], true);
    EXPECT_TRUE(copied_on_serialize(v, m).empty()) << m.header.dump();
    EXPECT_TRUE(copied_on_deserialize(back, m).empty());
    EXPECT_EQ(describe(back), describe(v));
  }
  Message m = serialize(values[0]);
  EXPECT_EQ(m.header["type-serialized"], "list");
  EXPECT_EQ(m.header["frame-lengths"], json::array({2}));
  const json& inner = m.header["sub-headers"][0];
  EXPECT_EQ(inner["type-serialized"], "tuple");
  EXPECT_EQ(inner["frame-lengths"], json::array({1, 1}));
  EXPECT_EQ(inner["sub-headers"][0]["serializer"], "pickle");
  EXPECT_EQ(inner["sub-headers"][1]["serializer"], "dask");
}

TEST(FamiliesWalk, SubHeadersAreTheElementsOwnHeaders) {
  Graph g;
  B b{g};
  Node* a = b.arange({2});
  Node* v = b.D({b.i(3), a, b.s("b"), b.T({b.ba("x"), b.s("y")})});
  Message m = serialize(v);
  json first = serialize(a).header;
  first["key"] = 3;
  EXPECT_EQ(m.header["sub-headers"][0], first);
  json second = serialize(v->items[3]).header;
  second["key"] = "b";
  EXPECT_EQ(m.header["sub-headers"][1], second);
  EXPECT_EQ(m.header["frame-lengths"], json::array({1, 2}));
}

TEST(FamiliesWalk, ListAndDictSubclassesAreWalked) {
  Graph g;
  B b{g};
  Node* a = b.arange({3});
  Node* lst = g.object(g.global("mod", "MyList"), b.T());
  lst->obj()->listitems = {a, b.i(2)};
  lst->obj()->state = b.D({b.s("tag"), b.i(1)});
  Node* dct = g.object(g.global("collections", "OrderedDict"), b.T());
  dct->obj()->dictitems = {{b.s("a"), b.ba("xy")}, {b.i(5), b.s("v")}};
  for (Node* v : {lst, dct}) {
    Message m;
    Graph out;
    Node* back = roundtrip(v, m, out);
    EXPECT_EQ(m.header["is-collection"], true);
    ASSERT_TRUE(m.header.contains("subclass")) << m.header.dump();
    EXPECT_EQ(m.header["subclass"]["header"]["serializer"], "pickle");
    EXPECT_TRUE(copied_on_serialize(v, m).empty());
    ASSERT_EQ(back->kind, Kind::Object);
    EXPECT_EQ(back->obj()->callable->name(), v->obj()->callable->name());
    EXPECT_EQ(back->obj()->listitems.size(), v->obj()->listitems.size());
    EXPECT_EQ(back->obj()->dictitems.size(), v->obj()->dictitems.size());
  }
  Message m;
  Graph out;
  Node* back = roundtrip(dct, m, out);
  EXPECT_TRUE(equal(dct, back));
  EXPECT_EQ(m.header["type-serialized"], "dict");
  EXPECT_EQ(describe(roundtrip(lst, m, out)->obj()->listitems[0]), describe(a));
}

TEST(FamiliesWalk, SharingAndCyclesAreNeverSplit) {
  Graph g;
  B b{g};
  Node* shared = b.ba("data");
  Node* twice = b.L({shared, shared});
  EXPECT_EQ(serialize(twice).header["serializer"], "pickle");
  Node* cyclic = b.L({b.ba("x")});
  cyclic->items.push_back(cyclic);
  Message m;
  Graph out;
  Node* back = roundtrip(cyclic, m, out);
  EXPECT_EQ(m.header["serializer"], "pickle");
  EXPECT_TRUE(equal(cyclic, back));
  // Strings carry no identity: sharing one does not stop the walk.
  Node* s = b.s("key");
  Node* with_str = b.L({s, s, b.ba("y")});
  EXPECT_EQ(serialize(with_str).header["is-collection"], true);
  // A walk below a shared part stays possible where the sharing is inside one element.
  Node* inner = b.L({shared, shared});
  Node* outer = b.L({inner, b.ba("z")});
  Message mo = serialize(outer);
  EXPECT_EQ(mo.header["is-collection"], true);
  EXPECT_EQ(mo.header["sub-headers"][0]["serializer"], "pickle");
  Graph out2;
  EXPECT_TRUE(equal(outer, deserialize(mo, out2)));
}

TEST(FamiliesWalk, IterateOptionAndMsgpackFirst) {
  Graph g;
  B b{g};
  Node* v = b.L({b.i(1), b.L({b.i(2), b.s("z")})});
  SerializeOptions so;
  EXPECT_EQ(serialize(v, so).header["serializer"], "pickle");  // no data: pickled whole
  so.iterate = IterateCollection::Always;
  EXPECT_EQ(serialize(v, so).header["is-collection"], true);
  SerializeOptions mp;
  mp.serializers = {"msgpack"};
  Message m;
  Graph out;
  Node* back = roundtrip(v, m, out, mp);
  EXPECT_EQ(m.header["is-collection"], true);
  EXPECT_EQ(m.header["sub-headers"][1]["is-collection"], true);
  EXPECT_TRUE(equal(v, back));
  SerializeOptions never;
  never.iterate = IterateCollection::Never;
  EXPECT_EQ(serialize(b.L({b.ba("x")}), never).header["serializer"], "pickle");
}

TEST(FamiliesWalk, DictKeysRideInSubHeaders) {
  Graph g;
  B b{g};
  Node* v = b.D({b.i(1), b.ba("a"), b.s("k"), b.i(2), b.T({b.i(1), b.s("x")}), b.ba("b"),
                 g.floating(2.5), b.ba("c")});
  Message m;
  Graph out;
  Node* back = roundtrip(v, m, out);
  ASSERT_EQ(m.header["is-collection"], true);
  EXPECT_EQ(m.header["sub-headers"][2]["key"], json::array({1, "x"}));
  EXPECT_TRUE(equal(v, back));
  // A key with no header form (a frozenset) keeps the dict whole, and so do
  // keys a loader would merge (Python's 1 == True == 1.0).
  Node* fz = b.D({g.frozenset({b.i(1)}), b.ba("a")});
  EXPECT_EQ(serialize(fz).header["serializer"], "pickle");
  Node* merged = b.D({b.i(1), b.ba("a"), g.boolean(true), b.ba("b")});
  Message mm = serialize(merged);
  EXPECT_EQ(mm.header["serializer"], "pickle");
  Graph out2;
  EXPECT_TRUE(equal(merged, deserialize(mm, out2)));
  EXPECT_EQ(key_identity(*g.floating(2.0)), key_identity(*b.i(2)));
  EXPECT_EQ(key_identity(*g.floating(-0.0)), key_identity(*g.boolean(false)));
  EXPECT_NE(key_identity(*b.s("1")), key_identity(*b.i(1)));
}

TEST(FamiliesWalk, DeepNestingStopsWalkingWithoutRecursingDeep) {
  Graph g;
  B b{g};
  Node* v = b.ba("bottom");
  for (int k = 0; k < 5000; ++k) v = b.L({v});
  Message m;
  Graph out;
  Node* back = roundtrip(v, m, out);
  EXPECT_EQ(m.header["is-collection"], true);
  EXPECT_TRUE(equal(v, back));
}

// ---- errors
// -------------------------------------------------------------------------------------------------

TEST(FamiliesErrors, UnknownFamilyNamesTheFamilyAndTheKnownOnes) {
  Graph g;
  auto e = error_of([&] { deserialize(json{{"serializer", "nope"}}, {}, g); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::UnknownFamily);
  EXPECT_EQ(e.family(), "nope");
  EXPECT_EQ(e.allowed(), FamilyRegistry::builtin().names());
  EXPECT_EQ(e.header_key(), "/serializer");
  EXPECT_NE(std::string(e.what()).find("nope"), std::string::npos);
  EXPECT_NE(std::string(e.what()).find("pickle"), std::string::npos);

  SerializeOptions so;
  so.serializers = {"nope"};
  e = error_of([&] { serialize(g.integer(1), so); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::UnknownFamily);
  EXPECT_EQ(e.family(), "nope");
}

TEST(FamiliesErrors, DisallowedFamilyNamesTheFamilyAndTheAllowedList) {
  Graph g;
  B b{g};
  Message m = serialize(b.T({b.i(1), b.b("x")}));
  DeserializeOptions dopt;
  dopt.allowed = std::vector<std::string>{"pickle", "msgpack"};
  Graph out;
  auto e = error_of([&] { deserialize(m, out, dopt); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::DisallowedFamily);
  EXPECT_EQ(e.family(), "dask");
  EXPECT_EQ(e.allowed(), *dopt.allowed);
  EXPECT_EQ(e.header_key(), "/sub-headers/1/serializer");
  EXPECT_NE(std::string(e.what()).find("[pickle, msgpack]"), std::string::npos) << e.what();
}

TEST(FamiliesErrors, BadHeadersAndFramesSayWhere) {
  Graph g;
  B b{g};
  Message m = serialize(b.T({b.i(1), b.arange({4})}));
  Graph out;

  Message short_frame = m;
  short_frame.frames[1].size = 8;
  auto e = error_of([&] { deserialize(short_frame, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadFrames);
  EXPECT_EQ(e.header_key(), "/sub-headers/1/sub-header/strides");
  EXPECT_EQ(e.frame(), 1u);

  Message no_serializer = m;
  no_serializer.header["sub-headers"][0].erase("serializer");
  e = error_of([&] { deserialize(no_serializer, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadHeader);
  EXPECT_EQ(e.header_key(), "/sub-headers/0/serializer");

  Message counts = m;
  counts.header["frame-lengths"] = json::array({1, 2});
  e = error_of([&] { deserialize(counts, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadFrames);
  EXPECT_EQ(e.header_key(), "/frame-lengths/1");

  Message extra = m;
  extra.frames.push_back(Frame::owned("?"));
  e = error_of([&] { deserialize(extra, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadFrames);
  EXPECT_EQ(e.frame(), 2u);

  Message garbage = m;
  garbage.header["sub-headers"][1]["type-serialized"] = bin("\x80\x05\x8c\xff");
  e = error_of([&] { deserialize(garbage, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::Pickle);
  EXPECT_EQ(e.header_key(), "/sub-headers/1/type-serialized");
  EXPECT_TRUE(e.has_offset());

  Message unknown = m;
  unknown.header["sub-headers"][1]["type-serialized"] =
      bin(pickle::encode(g.global("numpy", "matrix")).bytes);
  e = error_of([&] { deserialize(unknown, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::UnknownType);
  EXPECT_NE(e.detail().find("numpy.matrix"), std::string::npos);

  Message bad_type = m;
  bad_type.header["type-serialized"] = "frozenset";
  e = error_of([&] { deserialize(bad_type, out); });
  EXPECT_EQ(e.header_key(), "/type-serialized");
}

TEST(FamiliesErrors, UnserializableValuesBecomeErrorMessages) {
  auto dev = device::SimulatedDevice::create(7);
  Graph g;
  Node* buffer = g.device_buffer(dev->upload(byte_span("abc")));
  Message m = serialize(buffer);  // dask declines it, pickle cannot
  EXPECT_EQ(m.header, (json{{"serializer", "error"}}));
  ASSERT_GE(m.frames.size(), 1u);
  EXPECT_EQ(frame_bytes(m.frames[0]), "Could not serialize object of type DeviceBuffer");
  Graph out;
  auto e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::RemoteError);
  SerializeOptions so;
  so.on_error = OnError::Raise;
  e = error_of([&] { serialize(buffer, so); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::Unserializable);
}

// ---- cuda
// ---------------------------------------------------------------------------------------------------

TEST(FamiliesCuda, DeviceBuffersTravelWithoutCopies) {
  auto dev = device::SimulatedDevice::create(3);
  Graph g;
  B b{g};
  Node* buffer = g.device_buffer(dev->upload(byte_span("device bytes")));
  Node* v = b.L({b.i(1), buffer});
  dev->reset_counters();
  SerializeOptions so;
  so.serializers = {"cuda", "pickle"};
  Message m = serialize(v, so);
  ASSERT_EQ(m.header["is-collection"], true);
  EXPECT_EQ(m.header["compression"], json::array({nullptr, false}));
  const json& cuda = m.header["sub-headers"][1];
  EXPECT_EQ(cuda["serializer"], "cuda");
  EXPECT_EQ(cuda["compression"], json::array({false}));
  EXPECT_EQ(cuda["sub-header"]["shape"], json::array({12}));
  EXPECT_EQ(cuda["sub-header"]["device"], "sim:3");
  ASSERT_EQ(m.frames.size(), 2u);
  EXPECT_TRUE(m.frames[1].on_device());
  EXPECT_TRUE(frame_aliases(m.frames[1], *buffer));
  Graph out;
  Node* back = deserialize(m, out);
  ASSERT_EQ(back->items[1]->kind, Kind::DeviceBuffer);
  EXPECT_TRUE(back->items[1]->device()->same_allocation(*buffer->device()));
  EXPECT_TRUE(copied_on_serialize(v, m).empty());
  EXPECT_TRUE(copied_on_deserialize(back, m).empty());
  EXPECT_EQ(dev->counters().copies(), 0u) << device::to_string(dev->counters());
  EXPECT_EQ(dev->counters().allocations, 0u);
}

TEST(FamiliesCuda, RealGpuBuffersTravelWithoutCopies) {
  std::shared_ptr<device::Device> gpu;
  try {
    gpu = device::open_device("cuda:0");
  } catch (const device::DeviceError& e) {
    GTEST_SKIP() << "no CUDA device here: " << e.what();
  }
  Graph g;
  Node* buffer = g.device_buffer(gpu->upload(byte_span("on the gpu")));
  const auto before = gpu->counters();
  SerializeOptions so;
  so.serializers = {"cuda"};
  Message m = serialize(buffer, so);
  Graph out;
  Node* back = deserialize(m, out);
  EXPECT_TRUE(back->device()->same_allocation(*buffer->device()));
  EXPECT_EQ(gpu->counters().copies(), before.copies());
  EXPECT_EQ(gpu->download(*back->device()), "on the gpu");
}

TEST(FamiliesCuda, HostFramesNeedADevice) {
  auto dev = device::SimulatedDevice::create(4);
  Graph g;
  SerializeOptions so;
  so.serializers = {"cuda"};
  Message m = serialize(g.device_buffer(dev->upload(byte_span("xyz"))), so);
  m.frames[0] = to_host(m.frames[0]);
  Graph out;
  auto e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::Device);
  EXPECT_EQ(e.frame(), 0u);
  auto target = device::SimulatedDevice::create(5);
  DeserializeOptions dopt;
  dopt.device = target;
  Node* back = deserialize(m, out, dopt);
  ASSERT_EQ(back->kind, Kind::DeviceBuffer);
  EXPECT_EQ(target->counters().host_to_device, 1u);
  EXPECT_EQ(target->download(*back->device()), "xyz");
}

// ---- msgpack
// --------------------------------------------------------------------------------------------------

TEST(FamiliesMsgpack, PlainDataRoundTripsAndTheRestIsDeclined) {
  Graph g;
  B b{g};
  Node* big = g.integer_le(std::string("\xff\xff\xff\xff\xff\xff\xff\xff\x00", 9));
  Node* v =
      b.T({b.i(-5), b.s("a\xc3\xa9"), b.b("x"), g.floating(2.5), g.floating(2.0), g.floating(-0.0),
           g.none(), g.boolean(true), b.D({b.i(1), b.s("v"), b.T({b.i(2)}), b.T()}), big});
  SerializeOptions so;
  so.serializers = {"msgpack"};
  Message m;
  Graph out;
  Node* back = roundtrip(v, m, out, so);
  EXPECT_EQ(m.header, (json{{"serializer", "msgpack"}}));
  EXPECT_TRUE(equal(v, back));
  // A list inside would come back a tuple; a bytearray, bytes.
  EXPECT_EQ(serialize(b.T({b.L()}), so).header["serializer"], "error");
  EXPECT_EQ(serialize(b.ba("x"), so).header["serializer"], "error");
  EXPECT_EQ(serialize(b.D({b.i(1), b.s("a"), g.floating(1.0), b.s("b")}), so).header["serializer"],
            "error");
  so.serializers = {"msgpack", "pickle"};
  EXPECT_EQ(serialize(b.S({b.i(1)}), so).header["serializer"], "pickle");
}

TEST(FamiliesMsgpack, MalformedFramesAreBadFrames) {
  Graph g;
  Message m;
  m.header = {{"serializer", "msgpack"}};
  m.frames.push_back(Frame::owned("\x92\x01"));  // an array of 2 with one item
  auto e = error_of([&] { deserialize(m, g); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadFrames);
  EXPECT_EQ(e.frame(), 0u);
  m.frames[0] = Frame::owned("\x01\x02");
  e = error_of([&] { deserialize(m, g); });
  EXPECT_EQ(e.offset(), 1u);
}

// ---- split frames and packed messages
// -------------------------------------------------------------------

TEST(FamiliesMessages, SplitFramesAreJoined) {
  Graph g;
  Message m = serialize(g.bytes("abcdef"));
  const Frame whole = m.frames[0];
  Frame first = whole, second = whole;
  first.size = 2;
  second.data += 2;
  second.size = 4;
  m.frames = {first, second};
  m.header["split-num-sub-frames"] = json::array({2});
  m.header["split-offsets"] = json::array({0});
  Graph out;
  Node* back = deserialize(m, out);
  EXPECT_EQ(back->payload(), "abcdef");
  EXPECT_TRUE(node_borrows(*back, whole));  // adjacent sub-frames: no copy
  m.frames = {Frame::owned("ab"), Frame::owned("cdef")};
  EXPECT_EQ(deserialize(m, out)->payload(), "abcdef");
  m.header["split-offsets"] = json::array({1});
  auto e = error_of([&] { deserialize(m, out); });
  EXPECT_EQ(e.kind(), FamilyErrorKind::BadFrames);
}

TEST(FamiliesMessages, PackedMessagesRoundTripWithCompression) {
  Graph g;
  B b{g};
  Node* v = b.L({b.i(1), b.nd("<f8", {5000}, {8}, std::string(40000, '\0'))});
  for (Compression c : {Compression::None, Compression::Lz4, Compression::Zstd}) {
    Message m = serialize(v);
    PackOptions po;
    po.compression.codec = c;
    std::string packed = pack_message(m, po);
    Message back_m = unpack_message(byte_span(packed));
    Graph out;
    EXPECT_EQ(describe(deserialize(back_m, out)), describe(v));
  }
}

// ---- properties
// ------------------------------------------------------------------------------------

EqualOptions loose() {
  EqualOptions o;
  o.immutable_sharing = false;  // walking does not keep the sharing of strs
  o.tensor_layout = false;      // a tensor travels as its numpy view
  return o;
}

// Any array: the frame aliases its memory exactly when distributed's numpy
// serializer sends it without a copy, the loaded array borrows the frame,
// and the values are equal.
RC_GTEST_PROP(FamiliesProperties, NdarraysRoundTripAndAliasTheirMemory, ()) {
  const auto spec = *gen::ndarraySpec();
  Graph g;
  Node* a = gen::build_ndarray(spec, g);
  Message m = serialize(a);
  RC_ASSERT(m.header["serializer"] == "dask");
  RC_ASSERT(m.frames.size() == 1u);
  const bool copied = !m.frames[0].borrowed();
  RC_ASSERT(copied_on_serialize(a, m).empty() != copied || empty_or_zero(m));
  Graph out;
  Node* back = deserialize(m, out);
  Difference why;
  RC_ASSERT(equal(a, back, &why));
  RC_ASSERT(copied_on_deserialize(back, m).empty());
}

// An array at any depth and position of nested lists, tuples, dicts and
// list subclasses travels as its own frame, with no more copying than the
// array alone needs.
RC_GTEST_PROP(FamiliesProperties, ArraysAnywhereInCollectionsAreFramed, ()) {
  const auto spec = *gen::ndarraySpec();
  const int depth = *rc::gen::inRange(0, 6);
  Graph g;
  B b{g};
  Node* a = gen::build_ndarray(spec, g);
  const bool alone_copies = !copied_on_serialize(a, serialize(a)).empty();
  Node* v = a;
  for (int level = 0; level < depth; ++level) {
    const int kind = *rc::gen::inRange(0, 4);
    const int before = *rc::gen::inRange(0, 3);
    const int after = *rc::gen::inRange(0, 3);
    std::vector<Node*> items;
    for (int k = 0; k < before; ++k) items.push_back(b.i(k));
    items.push_back(v);
    for (int k = 0; k < after; ++k) items.push_back(b.s("s" + std::to_string(k)));
    if (kind == 0) {
      v = b.L(items);
    } else if (kind == 1) {
      v = b.T(items);
    } else if (kind == 2) {
      std::vector<Node*> kv;
      for (std::size_t k = 0; k < items.size(); ++k) {
        kv.push_back(b.s("k" + std::to_string(k)));
        kv.push_back(items[k]);
      }
      v = b.D(kv);
    } else {
      Node* o = g.object(g.global("mod", "L"), b.T());
      o->obj()->listitems = items;
      v = o;
    }
  }
  Message m = serialize(v);
  RC_ASSERT(copied_on_serialize(v, m).empty() != alone_copies || empty_or_zero(m));
  Graph out;
  Node* back = deserialize(m, out);
  Difference why;
  RC_ASSERT(equal(v, back, loose(), &why));
}

// Generated values of every builtin kind round-trip through every family
// list that ends with pickle, walked or not.
RC_GTEST_PROP(FamiliesProperties, GeneratedValuesRoundTrip, ()) {
  const auto v = *gen::value(gen::default_config());
  const int which = *rc::gen::inRange(0, 4);
  const std::vector<std::vector<std::string>> lists = {
      {"dask", "pickle"}, {"pickle"}, {"msgpack", "pickle"}, {"cuda", "dask", "pickle"}};
  SerializeOptions so;
  so.serializers = lists[static_cast<std::size_t>(which)];
  so.iterate = *rc::gen::element(IterateCollection::Auto, IterateCollection::Always);
  Message m = serialize(v.root, so);
  RC_ASSERT(m.header.value("serializer", "") != "error");
  Graph out;
  Node* back = deserialize(m, out);
  Difference why;
  if (!equal(v.root, back, loose(), &why)) RC_FAIL(why.path + ": " + why.reason);
}

// ---- interop with dask.distributed
// ----------------------------------------------------------------------

constexpr const char* kPython = "/usr/bin/python3";

std::optional<std::string> python_missing() {
  if (!fs::exists(kPython)) return std::string("no ") + kPython;
  for (const char* pkg : {"distributed", "numpy", "torch"}) {
    if (!fs::exists(fs::path("/usr/lib/python3/dist-packages") / pkg)) {
      return std::string("python3-") + pkg + " is not installed";
    }
  }
  return std::nullopt;
}

std::string script() {
  return std::string(SERIALCHECK_SOURCE_DIR) + "/suite/tests/families_interop.py";
}

fs::path fresh_dir(const std::string& name) {
  fs::path dir =
      fs::path(::testing::TempDir()) / ("families-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

// Runs the script; stdout into `out`. Returns the exit status.
int run_script(const std::string& mode, const fs::path& dir, std::string* out) {
  const fs::path stdout_file = dir / (mode + ".out");
  const fs::path stderr_file = dir / (mode + ".err");
  const std::string command = std::string(kPython) + " '" + script() + "' " + mode + " '" +
                              dir.string() + "' > '" + stdout_file.string() + "' 2> '" +
                              stderr_file.string() + "'";
  const int status = std::system(command.c_str());
  std::ifstream in(stdout_file);
  if (out != nullptr) out->assign(std::istreambuf_iterator<char>(in), {});
  if (status != 0) {
    std::ifstream err(stderr_file);
    std::string text(std::istreambuf_iterator<char>(err), {});
    ADD_FAILURE() << command << " failed:\n" << text;
  }
  return status;
}

// The file's bytes; "" when it cannot be read.
std::string read_file(const fs::path& path) {
  return test_support::read_file(path).value_or("");
}

// The cases distributed made.
const fs::path* distributed_cases() {
  static std::optional<fs::path> dir;
  static bool tried = false;
  if (!tried) {
    tried = true;
    fs::path d = fresh_dir("from-distributed");
    if (run_script("make", d, nullptr) == 0) dir = d;
  }
  return dir ? &*dir : nullptr;
}

// Decodes case `name` with the reference: its description, or {"error": kind}.
json reference_view(const fs::path& dir, const std::string& name, Graph& graph,
                    std::string& storage) {
  storage = read_file(dir / (name + ".bin"));
  try {
    Message m = unpack_message(byte_span(storage));
    return describe(deserialize(m, graph));
  } catch (const FamilyError& e) {
    return {{"error", std::string(family_error_kind_name(e.kind()))}, {"what", e.what()}};
  } catch (const FrameError& e) {
    return {{"error", "frame"}, {"what", e.what()}};
  }
}

TEST(FamiliesInterop, DistributedMessagesDecodeToWhatDistributedLoads) {
  if (auto why = python_missing()) GTEST_SKIP() << *why;
  const fs::path* dir = distributed_cases();
  ASSERT_NE(dir, nullptr);
  json cases = json::parse(read_file(*dir / "cases.json"));
  int checked = 0;
  for (const json& c : cases) {
    const std::string name = c["name"];
    SCOPED_TRACE(name);
    Graph g;
    std::string storage;
    json mine = reference_view(*dir, name, g, storage);
    if (c.contains("error")) {
      // distributed's own loader raises (an "error" family message).
      EXPECT_EQ(mine.value("error", ""), "remote-error") << mine.dump();
    } else {
      EXPECT_EQ(mine, c["expected"]) << "original: " << c["original"].dump();
    }
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

TEST(FamiliesInterop, ReferenceMessagesLoadInDistributed) {
  if (auto why = python_missing()) GTEST_SKIP() << *why;
  fs::path dir = fresh_dir("to-distributed");
  Graph g;
  B b{g};
  std::string doubles;
  for (int k = 0; k < 12; ++k) doubles += le_doubles({static_cast<double>(k)});
  Node* t = b.tensor("float32", {4}, {1}, le_ints<float>({0.f, 1.f, 2.f, 3.f}));
  t->array()->requires_grad = true;
  t->array()->grad = b.tensor("float32", {4}, {1}, le_ints<float>({.5f, .5f, .5f, .5f}));
  std::string storage;
  for (int k = 0; k < 10; ++k) storage += le_ints<float>({static_cast<float>(k)});

  struct Case {
    std::string name;
    Node* value;
    SerializeOptions options;
    Compression compression = Compression::None;
    bool expect_error = false;
  };
  SerializeOptions dflt;
  SerializeOptions p4;
  p4.peer_max_protocol = 4;
  SerializeOptions mp;
  mp.serializers = {"msgpack"};
  std::vector<Case> cases = {
      {"nd_c", b.nd("<f8", {2, 3}, {24, 8}, doubles), dflt},
      {"nd_f", b.nd("<f8", {2, 3}, {8, 16}, doubles), dflt},
      {"nd_neg", b.nd("<f8", {5}, {-8}, doubles, 32), dflt},
      {"nd_bcast", b.nd("<f8", {4, 3}, {0, 8}, doubles), dflt},
      {"nd_bcast_nc", b.nd("<f8", {3, 4}, {16, 0}, doubles), dflt},
      {"nd_0d", b.nd("<f8", {}, {}, doubles, 8), dflt},
      {"nd_empty", b.nd("<f8", {0, 3}, {24, 8}, ""), dflt},
      {"nd_ro", b.nd("<f8", {4}, {8}, doubles, 0, false), dflt},
      {"nd_u1", b.nd("|u1", {3}, {1}, "\x01\x02\x03"), dflt},
      {"nd_be", b.nd(">i4", {1}, {4}, std::string("\0\0\0\x07", 4)), dflt},
      {"nd_U1", b.nd("<U1", {1}, {4}, std::string("a\0\0\0", 4)), dflt},
      {"nd_m8", b.nd("<M8[ns]", {1}, {8}, le_ints<std::int64_t>({5})), dflt},
      {"nd_c16", b.nd("<c16", {1}, {16}, le_doubles({1.0, -2.0})), dflt},
      {"nd_V2", b.nd("|V2", {2}, {2}, "abcd"), dflt},
      {"walk_tuple_in_list", b.L({b.T({b.i(1), b.nd("<f8", {2}, {8}, doubles)})}), dflt},
      {"walk_dict",
       b.D({b.s("a"), b.L({b.nd("<f8", {3}, {16}, doubles), b.T({b.b("x"), b.ba("y")})}), b.i(2),
            b.s("s")}),
       dflt},
      {"set_bytes", b.S({b.b("p"), b.b("q")}), dflt},
      {"tensor_grad", t, dflt},
      {"tensor_view", b.tensor("float32", {2, 2}, {1, 2}, storage, 3), dflt},
      {"tensor_i64", b.tensor("int64", {3}, {1}, le_ints<std::int64_t>({1, 2, 3})), dflt},
      {"bytes", b.b("hello"), dflt},
      {"bytearray", b.ba("xy"), dflt},
      {"protocol4", b.L({b.i(1), b.s("a"), g.none()}), p4},
      {"msgpack",
       b.T({b.i(1), b.s("a"), b.T({b.i(2), b.b("x")}),
            b.D({b.s("k"), g.floating(1.5), b.s("z"), g.floating(2.0)})}),
       mp},
      {"lz4", b.nd("<f8", {50000}, {8}, std::string(400000, '\0')), dflt, Compression::Lz4},
      {"zstd", b.nd("<f8", {50000}, {8}, std::string(400000, '\0')), dflt, Compression::Zstd},
      {"module", g.module("json"), dflt, Compression::None, true},
  };
  json manifest = json::array();
  std::map<std::string, json> expected;
  for (const Case& c : cases) {
    Message m = serialize(c.value, c.options);
    if (c.name == "protocol4") {
      EXPECT_EQ(m.header["pickle-protocol"], 4);
      EXPECT_EQ(m.frames[0].data[1], 4);
    }
    PackOptions po;
    po.compression.codec = c.compression;
    std::ofstream(dir / (c.name + ".bin"), std::ios::binary) << pack_message(m, po);
    manifest.push_back(c.name);
    expected[c.name] = c.expect_error ? json{{"error", true}} : describe(c.value);
  }
  std::ofstream(dir / "manifest.json") << manifest.dump();
  std::string out;
  ASSERT_EQ(run_script("load", dir, &out), 0);
  json loaded = json::parse(out);
  for (const Case& c : cases) {
    SCOPED_TRACE(c.name);
    const json& got = loaded[c.name];
    if (c.expect_error) {
      // distributed has no dask loader for modules.
      EXPECT_TRUE(got.contains("error")) << got.dump();
    } else {
      EXPECT_EQ(got, expected[c.name]);
    }
  }
}

// ---- the command
// -------------------------------------------------------------------------------------------

struct CliRun {
  int status;
  std::string out;
  std::string err;
};

CliRun run_cli(const std::string& args, const fs::path& dir) {
  const std::string command = std::string(SERIALCHECK_CLI) + " " + args + " > '" +
                              (dir / "cli.out").string() + "' 2> '" + (dir / "cli.err").string() +
                              "'";
  int status = std::system(command.c_str());
  return {WIFEXITED(status) ? WEXITSTATUS(status) : -1, read_file(dir / "cli.out"),
          read_file(dir / "cli.err")};
}

TEST(FamiliesCli, EncodeAndDecodeMessages) {
  fs::path dir = fresh_dir("cli");
  std::ofstream(dir / "v.json") << R"({"list": [1, {"bytes": "6869"}, {"bytearray": "00"}]})";
  CliRun enc = run_cli("encode --message --compression lz4 --input '" + (dir / "v.json").string() +
                           "' --output '" + (dir / "v.msg").string() + "'",
                       dir);
  ASSERT_EQ(enc.status, 0) << enc.err;
  CliRun dec = run_cli("decode --message '" + (dir / "v.msg").string() + "'", dir);
  ASSERT_EQ(dec.status, 0) << dec.err;
  json printed = json::parse(dec.out);
  EXPECT_EQ(printed["value"],
            json::parse(R"({"list": [1, {"bytes": "6869"}, {"bytearray": "00"}]})"));
  EXPECT_EQ(printed["header"]["is-collection"], true);
  EXPECT_TRUE(printed["header"]["sub-headers"][1]["type-serialized"].contains("binary"));

  // The packed message is what pack_message(serialize(value)) makes.
  Graph g;
  B b{g};
  Message m = serialize(b.L({b.i(1), b.b("hi"), b.ba(std::string(1, '\0'))}));
  EXPECT_EQ(read_file(dir / "v.msg"), pack_message(m, PackOptions{{Compression::Lz4}, {}}));

  CliRun disallowed =
      run_cli("decode --message --allow pickle '" + (dir / "v.msg").string() + "'", dir);
  EXPECT_EQ(disallowed.status, 1);
  EXPECT_NE(disallowed.err.find("disallowed-family"), std::string::npos) << disallowed.err;
  EXPECT_NE(disallowed.err.find("header /sub-headers/1/serializer"), std::string::npos);
  EXPECT_EQ(std::count(disallowed.err.begin(), disallowed.err.end(), '\n'), 1);

  std::ofstream(dir / "bad.msg") << "\x02\0\0";
  CliRun bad = run_cli("decode --message '" + (dir / "bad.msg").string() + "'", dir);
  EXPECT_EQ(bad.status, 1);
  EXPECT_NE(bad.err.find("truncated-prelude"), std::string::npos) << bad.err;

  CliRun unknown =
      run_cli("encode --message --family nope --input '" + (dir / "v.json").string() + "'", dir);
  EXPECT_EQ(unknown.status, 1);
  EXPECT_NE(unknown.err.find("unknown-family"), std::string::npos) << unknown.err;

  CliRun usage = run_cli("decode --message --buffer x '" + (dir / "v.msg").string() + "'", dir);
  EXPECT_EQ(usage.status, 2);
}

}  // namespace
}  // namespace serialcheck::families
