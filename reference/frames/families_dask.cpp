// The "dask" family (distributed's dask_dumps / dask_loads) and its type
// registry: numpy.ndarray (distributed/protocol/numpy.py), torch.Tensor
// (torch.py), bytes, bytearray, memoryview (serialize.py) and modules by
// reference (this project's). The family's header nests the type's header:
//   {"sub-header": {...}, "type": "numpy.ndarray",
//    "type-serialized": <pickle of the class>, "serializer": "dask"}
#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "reference/frames/families_common.h"
#include "reference/types/tensor.h"

namespace serialcheck::families {

namespace {

using detail::json;
__extension__ typedef __int128 i128;  // array extents without overflow

// ---- numpy dtypes ---------------------------------------------------------------

struct DType {
  char order = '|';
  char kind = 'f';
  std::size_t itemsize = 0;
};

// A numpy dtype.str ("<f8", "|b1", "<U3", "<M8[ns]", "|V16"); nullopt for
// anything else, and for object arrays ("|O"), whose items are not bytes.
std::optional<DType> parse_dtype(std::string_view s) {
  if (s.size() < 3) return std::nullopt;
  DType d;
  d.order = s[0];
  d.kind = s[1];
  if (d.order != '<' && d.order != '>' && d.order != '|') return std::nullopt;
  std::size_t i = 2;
  std::uint64_t n = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
    n = n * 10 + static_cast<std::uint64_t>(s[i] - '0');
    if (n > (std::uint64_t{1} << 31)) return std::nullopt;
    ++i;
  }
  if (i == 2) return std::nullopt;
  std::string_view rest = s.substr(i);
  const bool swapped = d.order != '|';
  auto sizes = [&](std::initializer_list<std::uint64_t> ok) {
    return std::find(ok.begin(), ok.end(), n) != ok.end();
  };
  switch (d.kind) {
    case 'b':
      if (n != 1 || swapped || !rest.empty()) return std::nullopt;
      break;
    case 'i':
    case 'u':
      if (!sizes({1, 2, 4, 8}) || swapped != (n > 1) || !rest.empty()) return std::nullopt;
      break;
    case 'f':
      if (!sizes({2, 4, 8, 16}) || !swapped || !rest.empty()) return std::nullopt;
      break;
    case 'c':
      if (!sizes({8, 16, 32}) || !swapped || !rest.empty()) return std::nullopt;
      break;
    case 'm':
    case 'M':
      if (n != 8 || !swapped) return std::nullopt;
      if (!rest.empty()) {
        if (rest.size() < 3 || rest.front() != '[' || rest.back() != ']') return std::nullopt;
        for (char c : rest.substr(1, rest.size() - 2)) {
          if (!std::isalnum(static_cast<unsigned char>(c))) return std::nullopt;
        }
      }
      break;
    case 'S':
    case 'V':
      if (swapped || !rest.empty()) return std::nullopt;
      break;
    case 'U':
      if (!swapped || !rest.empty()) return std::nullopt;
      n *= 4;
      break;
    default: return std::nullopt;
  }
  d.itemsize = static_cast<std::size_t>(n);
  return d;
}

// torch dtype name <-> numpy dtype.str, for the dtypes Tensor.numpy() takes.
const char* torch_to_numpy(std::string_view torch) {
  const types::TorchDtype* d = types::find_torch_dtype(torch);
  return d != nullptr && !d->numpy.empty() ? d->numpy.data() : nullptr;
}

const char* numpy_to_torch(std::string_view numpy) {
  for (const auto& d : types::torch_dtypes()) {
    if (!d.numpy.empty() && numpy == d.numpy) return d.name.data();
  }
  return nullptr;
}

// ---- array layout ------------------------------------------------------------------

// Element count and the byte range [lo, hi) the elements cover relative to
// element 0; nullopt on overflow.
struct Extent {
  std::uint64_t count = 1;
  i128 lo = 0;
  i128 hi = 0;
};

std::optional<Extent> extent(const std::vector<std::int64_t>& shape,
                             const std::vector<std::int64_t>& strides, std::size_t itemsize) {
  Extent e;
  i128 count = 1;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (shape[i] < 0) return std::nullopt;
    count *= shape[i];
    if (count > (static_cast<i128>(1) << 62)) return std::nullopt;
  }
  e.count = static_cast<std::uint64_t>(count);
  if (e.count == 0) return e;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const i128 span = static_cast<i128>(shape[i] - 1) * strides[i];
    (span < 0 ? e.lo : e.hi) += span;
  }
  e.hi += itemsize;
  return e;
}

// numpy's C/F contiguity (relaxed strides: size-1 dims do not count, and
// any array with a 0-size dim is both).
bool contiguous(const std::vector<std::int64_t>& shape, const std::vector<std::int64_t>& strides,
                std::size_t itemsize, bool fortran) {
  const std::size_t nd = shape.size();
  for (std::size_t i = 0; i < nd; ++i) {
    if (shape[i] == 0) return true;
  }
  std::int64_t expected = static_cast<std::int64_t>(itemsize);
  for (std::size_t k = 0; k < nd; ++k) {
    const std::size_t i = fortran ? k : nd - 1 - k;
    if (shape[i] == 1) continue;
    if (strides[i] != expected) return false;
    expected *= shape[i];
  }
  return true;
}

std::vector<std::int64_t> c_strides(const std::vector<std::int64_t>& shape, std::size_t itemsize) {
  std::vector<std::int64_t> out(shape.size());
  std::int64_t s = static_cast<std::int64_t>(itemsize);
  for (std::size_t k = shape.size(); k-- > 0;) {
    out[k] = s;
    s *= std::max<std::int64_t>(shape[k], 1);
  }
  return out;
}

// The elements in C order, copied (np.ascontiguousarray).
std::string copy_c_order(const std::uint8_t* base, const std::vector<std::int64_t>& shape,
                         const std::vector<std::int64_t>& strides, std::size_t itemsize,
                         std::uint64_t count) {
  std::string out;
  out.resize(static_cast<std::size_t>(count) * itemsize);
  if (count == 0) return out;
  std::vector<std::int64_t> index(shape.size(), 0);
  std::int64_t at = 0;
  for (std::uint64_t k = 0; k < count; ++k) {
    std::copy_n(base + at, itemsize, out.data() + k * itemsize);
    for (std::size_t d = shape.size(); d-- > 0;) {
      if (++index[d] < shape[d]) {
        at += strides[d];
        break;
      }
      at -= strides[d] * (shape[d] - 1);
      index[d] = 0;
    }
  }
  return out;
}

json int_array(const std::vector<std::int64_t>& v) {
  return json(v);
}

// ---- numpy.ndarray --------------------------------------------------------------------

std::optional<std::pair<json, std::vector<Frame>>> ndarray_dumps(const Node& n, DumpContext&) {
  if (!n.array()) return std::nullopt;
  const ArrayParts& a = *n.array();
  auto dtype = parse_dtype(a.dtype);
  if (!dtype) return std::nullopt;  // object or unknown dtypes: the next family
  const std::size_t itemsize = dtype->itemsize;
  if (a.strides.size() != a.shape.size()) {
    throw FamilyError(
        FamilyErrorKind::InvalidValue,
        fmt::format("an ndarray with {} dims and {} strides", a.shape.size(), a.strides.size()));
  }
  const auto payload = n.payload();
  const auto* base = reinterpret_cast<const std::uint8_t*>(payload.data());
  auto whole = extent(a.shape, a.strides, itemsize);
  if (!whole || (whole->count > 0 && (a.offset + whole->lo < 0 ||
                                      a.offset + whole->hi > static_cast<i128>(payload.size())))) {
    throw FamilyError(
        FamilyErrorKind::InvalidValue,
        fmt::format("an ndarray of shape {} and strides {} at offset {} reaches "
                    "outside its {}-byte buffer",
                    json(a.shape).dump(), json(a.strides).dump(), a.offset, payload.size()));
  }

  std::vector<std::int64_t> shape = a.shape;
  std::vector<std::int64_t> strides = a.strides;
  std::optional<std::vector<std::int64_t>> broadcast_to;
  Frame frame;
  bool done = false;
  // Only the data of a broadcast array is sent: one slice along its
  // 0-stride axes, as distributed does.
  if (std::find(strides.begin(), strides.end(), 0) != strides.end()) {
    broadcast_to = shape;
    for (std::size_t i = 0; i < shape.size(); ++i) {
      if (strides[i] == 0) shape[i] = std::min<std::int64_t>(shape[i], 1);
    }
    if (!contiguous(shape, strides, itemsize, false) &&
        !contiguous(shape, strides, itemsize, true)) {
      const auto reduced = extent(shape, strides, itemsize);
      std::string data = copy_c_order(base + a.offset, shape, strides, itemsize, reduced->count);
      std::vector<std::int64_t> cs = c_strides(shape, itemsize);
      for (std::size_t i = 0; i < cs.size(); ++i) {
        if (strides[i] == 0) cs[i] = 0;
      }
      strides = std::move(cs);
      frame = Frame::owned(std::move(data), !a.writeable);
      done = true;
    }
  }
  if (!done) {
    const auto e = extent(shape, strides, itemsize);
    const std::size_t nbytes = static_cast<std::size_t>(e->count) * itemsize;
    if (shape.empty() || contiguous(shape, strides, itemsize, false) ||
        contiguous(shape, strides, itemsize, true)) {
      // Zero-copy: the frame is the array's own memory.
      const std::size_t start =
          e->count == 0
              ? std::min<std::size_t>(static_cast<std::size_t>(std::max<std::int64_t>(a.offset, 0)),
                                      payload.size())
              : static_cast<std::size_t>(a.offset);
      frame = Frame::borrowed_view(base + start, nbytes, !a.writeable);
    } else {
      // distributed copies a non-contiguous array into C order.
      std::string data = copy_c_order(base + a.offset, shape, strides, itemsize, e->count);
      strides = c_strides(shape, itemsize);
      frame = Frame::owned(std::move(data), !a.writeable);
    }
  }
  // "writeable" keeps the array's flag (distributed reports a copy of a
  // read-only non-contiguous array as writeable; the value is what counts).
  json header = {{"dtype", json::array({0, a.dtype})},
                 {"shape", int_array(shape)},
                 {"strides", int_array(strides)},
                 {"writeable", json::array({a.writeable})}};
  if (broadcast_to) header["broadcast_to"] = int_array(*broadcast_to);
  std::vector<Frame> frames;
  frames.push_back(std::move(frame));
  return std::make_pair(std::move(header), std::move(frames));
}

// numpy's dtype pickle for a plain void dtype (distributed sends every "V"
// dtype pickled): numpy.dtype("V<n>", False, True) with state
// (3, "|", None, None, None, n, 1, flags). Others (structured) are refused.
std::optional<std::string> void_dtype_from_pickle(const Node* n) {
  if (n == nullptr || n->kind != Kind::Object || !n->obj()) return std::nullopt;
  const auto& o = *n->obj();
  if (o.callable == nullptr || o.callable->kind != Kind::Global ||
      o.callable->payload() != "numpy" || o.callable->name() != "dtype" || o.args == nullptr ||
      o.args->items.empty() || o.args->items[0]->kind != Kind::Str) {
    return std::nullopt;
  }
  std::string name(o.args->items[0]->payload());
  if (name.size() < 2 || name[0] != 'V') return std::nullopt;
  // Fields (state[3], state[4]) make it structured.
  if (o.state == nullptr || o.state->kind != Kind::Tuple || o.state->items.size() < 5 ||
      o.state->items[3]->kind != Kind::None || o.state->items[4]->kind != Kind::None) {
    return std::nullopt;
  }
  std::string dtype = "|" + name;
  if (!parse_dtype(dtype)) return std::nullopt;
  return dtype;
}

Node* ndarray_loads(const json& sub, std::span<const Frame> frames, const LoadContext& ctx) {
  if (!sub.is_object()) ctx.fail(FamilyErrorKind::BadHeader, "the sub-header is a map");
  if (const json* p = detail::find(sub, "pickle");
      p != nullptr && p->is_boolean() && p->get<bool>()) {
    // An object array, pickled with its buffers out of band.
    if (frames.empty()) ctx.fail(FamilyErrorKind::BadFrames, "a pickled ndarray has no frame");
    std::vector<pickle::BufferView> buffers;
    for (std::size_t i = 1; i < frames.size(); ++i) {
      auto b = detail::host_bytes(ctx, frames, i);
      buffers.push_back({b.data(), b.size(), frames[i].readonly});
    }
    detail::PickleSource source;
    source.frame = 0;
    return detail::load_pickle(ctx, detail::host_bytes(ctx, frames, 0), source, buffers);
  }
  if (frames.size() != 1) {
    ctx.fail(FamilyErrorKind::BadFrames,
             fmt::format("an ndarray is one frame, not {}", frames.size()));
  }
  const json& w = detail::require(ctx, sub, "writeable");
  if (!w.is_array() || w.size() != 1) {
    ctx.fail(FamilyErrorKind::BadHeader, "\"writeable\" is a list of one boolean", "/writeable");
  }
  const bool writeable = detail::require_bool(ctx, w[0], "/writeable/0");

  const json& dt = detail::require(ctx, sub, "dtype");
  if (!dt.is_array() || dt.size() != 2) {
    ctx.fail(FamilyErrorKind::BadHeader, "\"dtype\" is a pair (is_custom, dtype)", "/dtype");
  }
  std::string dtype;
  const bool custom =
      dt[0].is_boolean() ? dt[0].get<bool>() : detail::require_int(ctx, dt[0], "/dtype/0") != 0;
  if (custom) {
    Graph scratch;
    auto bytes = detail::require_binary(ctx, dt[1], "/dtype/1");
    detail::PickleSource source;
    source.key = "/dtype/1";
    // Decoded apart: only its name is kept.
    pickle::DecodeOptions options;
    options.max_protocol = ctx.options().max_protocol;
    options.limits = ctx.options().limits;
    const Node* d = nullptr;
    try {
      d = pickle::decode(bytes, scratch, options).root;
    } catch (const std::exception& e) {
      ctx.fail(FamilyErrorKind::Pickle, fmt::format("the pickled dtype: {}", e.what()), "/dtype/1");
    }
    auto name = void_dtype_from_pickle(d);
    if (!name) {
      ctx.fail(FamilyErrorKind::BadHeader,
               "a pickled dtype other than a plain void dtype (structured dtypes are not read)",
               "/dtype/1");
    }
    dtype = *name;
  } else {
    dtype = detail::require_string(ctx, dt[1], "/dtype/1");
  }
  const auto parsed = parse_dtype(dtype);
  if (!parsed) {
    ctx.fail(FamilyErrorKind::BadHeader,
             fmt::format("\"{}\" is not a numpy dtype.str this loader reads", dtype), "/dtype/1");
  }

  std::vector<std::int64_t> shape;
  std::string shape_key = "/shape";
  if (const json* b = detail::find(sub, "broadcast_to");
      b != nullptr && !b->is_null() && !(b->is_array() && b->empty())) {
    shape_key = "/broadcast_to";
    shape = detail::require_int_array(ctx, *b, shape_key);
  } else {
    shape = detail::require_int_array(ctx, detail::require(ctx, sub, "shape"), shape_key);
  }
  std::vector<std::int64_t> strides =
      detail::require_int_array(ctx, detail::require(ctx, sub, "strides"), "/strides");
  if (strides.size() != shape.size()) {
    ctx.fail(FamilyErrorKind::BadHeader,
             fmt::format("{} strides for {} dimensions", strides.size(), shape.size()), "/strides");
  }
  auto bytes = detail::host_bytes(ctx, frames, 0);
  auto e = extent(shape, strides, parsed->itemsize);
  if (!e) {
    ctx.fail(FamilyErrorKind::BadHeader, "a shape with a negative or too large size", shape_key);
  }
  if (e->count > 0 && (e->lo < 0 || e->hi > static_cast<i128>(bytes.size()))) {
    ctx.fail(FamilyErrorKind::BadFrames,
             fmt::format("shape {} with strides {} needs more than the frame's {} bytes",
                         json(shape).dump(), json(strides).dump(), bytes.size()),
             "/strides", 0);
  }
  Node* n = ctx.graph().ndarray();
  ArrayParts& a = *n->array();
  a.dtype = std::move(dtype);
  a.shape = std::move(shape);
  a.strides = std::move(strides);
  a.offset = 0;
  a.writeable = writeable;
  n->set_borrowed(bytes.data(), bytes.size());
  return n;
}

// ---- torch.Tensor ------------------------------------------------------------------------

// The ndarray Tensor.numpy() gives: the same memory, strides in bytes.
Node* numpy_view(const Node& t, const char* numpy_dtype, Graph& scratch) {
  const ArrayParts& a = *t.array();
  const std::size_t itemsize = parse_dtype(numpy_dtype)->itemsize;
  Node* v = scratch.ndarray();
  ArrayParts& p = *v->array();
  p.dtype = numpy_dtype;
  p.shape = a.shape;
  const auto scale = [&](std::int64_t x) -> std::int64_t {
    i128 r = static_cast<i128>(x) * static_cast<i128>(itemsize);
    if (r > std::numeric_limits<std::int64_t>::max() ||
        r < std::numeric_limits<std::int64_t>::min()) {
      throw FamilyError(FamilyErrorKind::InvalidValue, "a tensor's strides overflow in bytes");
    }
    return static_cast<std::int64_t>(r);
  };
  for (std::int64_t s : a.strides) p.strides.push_back(scale(s));
  p.offset = scale(a.offset);
  p.writeable = true;
  const auto payload = t.payload();
  v->set_borrowed(payload.data(), payload.size());
  return v;
}

std::optional<std::pair<json, std::vector<Frame>>> tensor_dumps(const Node& t, DumpContext& ctx) {
  if (!t.array()) return std::nullopt;
  const ArrayParts& a = *t.array();
  const char* np = torch_to_numpy(a.dtype);
  if (np == nullptr) return std::nullopt;  // bfloat16 and others numpy has no dtype for
  const Node* grad = a.grad;
  const char* grad_np = nullptr;
  if (grad != nullptr) {
    // distributed sends grad.numpy(): only a plain tensor survives that.
    if (grad->kind != Kind::Tensor || !grad->array() || grad->array()->requires_grad ||
        grad->array()->grad != nullptr || grad->array()->device != "cpu") {
      return std::nullopt;
    }
    grad_np = torch_to_numpy(grad->array()->dtype);
    if (grad_np == nullptr) return std::nullopt;
  }
  static const std::vector<std::string> kInner = {"dask", "pickle"};
  Message data = ctx.serialize(*numpy_view(t, np, ctx.scratch()), kInner);
  json header = {{"sub-header", std::move(data.header)}};
  std::vector<Frame> frames = std::move(data.frames);
  if (grad != nullptr) {
    Message g = ctx.serialize(*numpy_view(*grad, grad_np, ctx.scratch()), kInner);
    header["grad"] = {{"header", std::move(g.header)}, {"start", frames.size()}};
    for (Frame& f : g.frames) frames.push_back(std::move(f));
  }
  header["requires_grad"] = a.requires_grad;
  // distributed writes t.device.type ("cuda"); the full name ("cuda:1")
  // loads the same way and keeps the index.
  header["device"] = a.device;
  return std::make_pair(std::move(header), std::move(frames));
}

Node* as_tensor(const LoadContext& ctx, Node* nd, std::string_view key, bool requires_grad,
                std::string device) {
  if (nd->kind != Kind::NDArray || !nd->array()) {
    ctx.fail(FamilyErrorKind::BadHeader,
             fmt::format("a tensor's data loads as a {}, not an ndarray", kind_name(nd->kind)),
             key);
  }
  const ArrayParts& a = *nd->array();
  const char* torch = numpy_to_torch(a.dtype);
  if (torch == nullptr) {
    ctx.fail(FamilyErrorKind::BadHeader,
             fmt::format("numpy dtype \"{}\" has no torch dtype", a.dtype), key);
  }
  const auto itemsize = static_cast<std::int64_t>(parse_dtype(a.dtype)->itemsize);
  Node* t = ctx.graph().tensor();
  ArrayParts& p = *t->array();
  for (std::int64_t s : a.strides) {
    if (s % itemsize != 0 || s < 0) {
      ctx.fail(
          FamilyErrorKind::BadHeader,
          fmt::format("stride {} is not a non-negative multiple of the item size {}", s, itemsize),
          key);
    }
    p.strides.push_back(s / itemsize);
  }
  if (a.offset % itemsize != 0) {
    ctx.fail(FamilyErrorKind::BadHeader, "the data's offset is not a multiple of its item size",
             key);
  }
  p.dtype = torch;
  p.shape = a.shape;
  p.offset = a.offset / itemsize;
  p.requires_grad = requires_grad;
  p.device = std::move(device);
  // The ndarray node stays in the graph, so its memory (borrowed from a
  // frame, or its own) lives as long as the tensor.
  const auto payload = nd->payload();
  t->set_borrowed(payload.data(), payload.size());
  return t;
}

Node* tensor_loads(const json& sub, std::span<const Frame> frames, const LoadContext& ctx) {
  if (!sub.is_object()) ctx.fail(FamilyErrorKind::BadHeader, "the sub-header is a map");
  std::span<const Frame> data_frames = frames;
  Node* grad = nullptr;
  // distributed tests `header.get("grad", False)`: an empty map means none.
  if (const json* g = detail::find(sub, "grad"); g != nullptr && !g->is_null() &&
                                                 !(g->is_boolean() && !g->get<bool>()) &&
                                                 !(g->is_object() && g->empty())) {
    const json& gh = detail::require(ctx, *g, "header", "/grad");
    const std::size_t start =
        detail::require_index(ctx, detail::require(ctx, *g, "start", "/grad"), "/grad/start");
    if (start > frames.size()) {
      ctx.fail(FamilyErrorKind::BadFrames,
               fmt::format("the grad starts at frame {} of {}", start, frames.size()),
               "/grad/start");
    }
    Node* nd = ctx.load(gh, "/grad/header", frames.subspan(start), start);
    grad = as_tensor(ctx, nd, "/grad/header", false, "cpu");
    data_frames = frames.first(start);
  }
  const bool requires_grad =
      detail::require_bool(ctx, detail::require(ctx, sub, "requires_grad"), "/requires_grad");
  const std::string& device =
      detail::require_string(ctx, detail::require(ctx, sub, "device"), "/device");
  Node* nd = ctx.load(detail::require(ctx, sub, "sub-header"), "/sub-header", data_frames, 0);
  Node* t = as_tensor(ctx, nd, "/sub-header", requires_grad, device);
  // What torch itself refuses: gradients on integer tensors, a grad of
  // another dtype or shape.
  const std::string& dtype = t->array()->dtype;
  const bool inexact = dtype.rfind("float", 0) == 0 || dtype.rfind("complex", 0) == 0;
  if (requires_grad && !inexact) {
    ctx.fail(FamilyErrorKind::BadHeader, fmt::format("a {} tensor cannot require grad", dtype),
             "/requires_grad");
  }
  if (grad != nullptr && (grad->array()->dtype != dtype || grad->array()->shape != t->array()->shape)) {
    ctx.fail(FamilyErrorKind::BadHeader,
             fmt::format("the grad ({} {}) differs from the tensor ({} {}) in dtype or shape",
                         grad->array()->dtype, json(grad->array()->shape).dump(), dtype,
                         json(t->array()->shape).dump()),
             "/grad/header");
  }
  if (grad != nullptr) grad->array()->device = device;
  t->array()->grad = grad;
  return t;
}

// ---- bytes, bytearray, memoryview -------------------------------------------------------

// One frame is borrowed; several are joined (distributed's b"".join).
Node* bytes_node(const LoadContext& ctx, std::span<const Frame> frames, Kind kind) {
  Node* n = ctx.graph().make(kind);
  if (frames.size() == 1) {
    auto b = detail::host_bytes(ctx, frames, 0);
    n->set_borrowed(b.data(), b.size());
    return n;
  }
  std::string joined;
  for (std::size_t i = 0; i < frames.size(); ++i) {
    auto b = detail::host_bytes(ctx, frames, i);
    joined.append(reinterpret_cast<const char*>(b.data()), b.size());
  }
  n->set_owned(std::move(joined));
  return n;
}

std::optional<std::pair<json, std::vector<Frame>>> bytes_dumps(const Node& n, DumpContext&) {
  const auto p = n.payload();
  std::vector<Frame> frames;
  frames.push_back(Frame::borrowed_view(p.data(), p.size(), n.kind == Kind::Bytes));
  return std::make_pair(json::object(), std::move(frames));
}

Node* memoryview_loads(const json& sub, std::span<const Frame> frames, const LoadContext& ctx) {
  if (const json* f = detail::find(sub, "format")) detail::require_string(ctx, *f, "/format");
  Node* n = bytes_node(ctx, frames, Kind::PickleBuffer);
  n->flag = frames.size() != 1 || frames[0].readonly;
  return n;
}

// ---- modules -------------------------------------------------------------------------------

std::optional<std::pair<json, std::vector<Frame>>> module_dumps(const Node& n, DumpContext&) {
  json header = {{"name", n.name()}};
  if (!n.items.empty() && n.items[0] != nullptr && n.items[0]->kind == Kind::Global) {
    header["subclass"] = json::array({std::string(n.items[0]->payload()), n.items[0]->name()});
  }
  return std::make_pair(std::move(header), std::vector<Frame>{});
}

Node* module_loads(const json& sub, std::span<const Frame> frames, const LoadContext& ctx) {
  if (!frames.empty()) {
    ctx.fail(FamilyErrorKind::BadFrames,
             fmt::format("a module travels by name, with no frames, not {}", frames.size()));
  }
  const std::string& name = detail::require_string(ctx, detail::require(ctx, sub, "name"), "/name");
  Node* subclass = nullptr;
  if (const json* s = detail::find(sub, "subclass"); s != nullptr && !s->is_null()) {
    if (!s->is_array() || s->size() != 2 || !(*s)[0].is_string() || !(*s)[1].is_string()) {
      ctx.fail(FamilyErrorKind::BadHeader, "\"subclass\" is [module, qualname]", "/subclass");
    }
    subclass = ctx.graph().global((*s)[0].get<std::string>(), (*s)[1].get<std::string>());
  }
  return ctx.graph().module(name, subclass);
}

}  // namespace

// ---- the registry and the family ------------------------------------------------------------

void DaskTypeRegistry::add(DaskType type) {
  for (auto& t : types_) {
    if (t.module == type.module && t.qualname == type.qualname) {
      t = std::move(type);
      return;
    }
  }
  types_.push_back(std::move(type));
}

const DaskType* DaskTypeRegistry::for_kind(Kind kind) const {
  for (const auto& t : types_) {
    if (std::find(t.kinds.begin(), t.kinds.end(), kind) != t.kinds.end()) return &t;
  }
  return nullptr;
}

const DaskType* DaskTypeRegistry::for_class(std::string_view module,
                                            std::string_view qualname) const {
  for (const auto& t : types_) {
    if (t.module == module && t.qualname == qualname) return &t;
  }
  return nullptr;
}

DaskTypeRegistry DaskTypeRegistry::builtin() {
  DaskTypeRegistry r;
  r.add({"numpy.ndarray", "numpy", "ndarray", {Kind::NDArray}, ndarray_dumps, ndarray_loads});
  r.add({"torch.Tensor", "torch", "Tensor", {Kind::Tensor}, tensor_dumps, tensor_loads});
  const std::pair<const char*, Kind> byte_types[] = {{"bytes", Kind::Bytes},
                                                     {"bytearray", Kind::ByteArray}};
  for (const auto& [name, kind] : byte_types) {
    r.add({name,
           "builtins",
           name,
           {kind},
           bytes_dumps,
           [kind = kind](const json&, std::span<const Frame> frames, const LoadContext& ctx) {
             return bytes_node(ctx, frames, kind);
           }});
  }
  r.add({"memoryview", "builtins", "memoryview", {}, nullptr, memoryview_loads});
  // Python cannot pickle types.ModuleType by reference (its __module__ is
  // "builtins"), so the class is named where it lives; a subclass rides in
  // the sub-header.
  r.add({"module", "types", "ModuleType", {Kind::Module}, module_dumps, module_loads});
  return r;
}

Family dask_family(DaskTypeRegistry types) {
  auto registry = std::make_shared<const DaskTypeRegistry>(std::move(types));
  Family f;
  f.name = "dask";
  f.dumps = [registry](const Node& value, DumpContext& ctx) -> std::optional<Message> {
    const DaskType* type = registry->for_kind(value.kind);
    if (type == nullptr || !type->dumps) return std::nullopt;
    auto result = type->dumps(value, ctx);
    if (!result) return std::nullopt;
    Message message;
    message.header = {{"sub-header", std::move(result->first)},
                      {"type", type->type_name},
                      {"type-serialized",
                       detail::pickled_class(type->module, type->qualname, ctx.pickle_protocol())},
                      {"serializer", "dask"}};
    message.frames = std::move(result->second);
    return message;
  };
  f.loads = [registry](const json& header, std::span<const Frame> frames,
                       const LoadContext& ctx) -> Node* {
    auto [module, qualname] = detail::load_pickled_class(
        ctx, detail::require(ctx, header, "type-serialized"), "/type-serialized");
    const DaskType* type = registry->for_class(module, qualname);
    if (type == nullptr || !type->loads) {
      ctx.fail(FamilyErrorKind::UnknownType,
               fmt::format("the dask family has no loader for {}.{}", module, qualname),
               "/type-serialized");
    }
    const json& sub = detail::require(ctx, header, "sub-header");
    return type->loads(sub, frames, ctx.at("/sub-header"));
  };
  f.data_kinds = {Kind::NDArray, Kind::Tensor, Kind::Bytes, Kind::ByteArray};
  return f;
}

}  // namespace serialcheck::families
