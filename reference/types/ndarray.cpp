// numpy arrays: layout helpers, equality, and the pickle forms numpy 1.24
// writes for an exact numpy.ndarray of a numeric dtype (methods.c:
// array_reduce_ex and arraydescr_reduce, observed with pickletools):
//
//   below protocol 5, and at 5 for an array neither C- nor F-contiguous:
//     numpy.core.multiarray._reconstruct(numpy.ndarray, (0,), b'b')
//     BUILD (1, shape, dtype, is_fortran, data)
//   where is_fortran is "F-contiguous and not C-contiguous" and data is
//   tobytes() in that order (so, for a contiguous array, its memory);
//
//   protocol 5, C- or F-contiguous:
//     numpy.core.numeric._frombuffer(PickleBuffer(memory), dtype, shape, order)
//   order 'C' when C-contiguous, else 'F'; the buffer is the array's memory
//   (read-only when the array is), so it goes in band as bytes or bytearray,
//   or out of band through the buffer callback;
//
//   the dtype: numpy.dtype('f8', False, True)
//     BUILD (3, '<', None, None, None, -1, -1, 0)
//   numpy's builtin dtypes ('<' and '|' on a little-endian machine) are
//   singletons, so every array of one such dtype shares one dtype object and
//   the pickle writes it once; a '>' dtype is a new object per array.
//
// Python objects the C pickler memoizes by value are modelled by the encoder:
// b'b', b'' and one-byte data are CPython's cached one-byte bytes, and '<',
// '>', '|', 'C', 'F' its cached one-character strs.
#include "reference/types/ndarray.h"

#include <algorithm>
#include <cstring>
#include <limits>
#include <memory>
#include <unordered_map>
#include <utility>

#include "reference/types/domain.h"
#include "reference/types/internal/forms.h"
#include "reference/types/pickle_codec.h"
#include "reference/types/value_kinds.h"
#include "reference/value/children.h"
#include "reference/value/numeric.h"

namespace serialcheck::types {

// ---------------------------------------------------------------------------
// dtypes

std::string NumericDtype::kind_and_size() const {
  return std::string(1, kind) + std::to_string(itemsize);
}

std::string NumericDtype::str() const {
  return std::string(1, byteorder) + kind_and_size();
}

std::optional<NumericDtype> parse_numeric_dtype(std::string_view s) {
  if (s.size() < 3 || s.size() > 4) return std::nullopt;
  NumericDtype d;
  d.byteorder = s[0];
  d.kind = s[1];
  std::string_view size = s.substr(2);
  if (size == "1") {
    d.itemsize = 1;
  } else if (size == "2") {
    d.itemsize = 2;
  } else if (size == "4") {
    d.itemsize = 4;
  } else if (size == "8") {
    d.itemsize = 8;
  } else if (size == "16") {
    d.itemsize = 16;
  } else {
    return std::nullopt;
  }
  bool ok = false;
  switch (d.kind) {
    case 'b': ok = d.itemsize == 1; break;
    case 'i':
    case 'u': ok = d.itemsize <= 8; break;
    case 'f': ok = d.itemsize >= 2 && d.itemsize <= 8; break;
    case 'c': ok = d.itemsize == 8 || d.itemsize == 16; break;
    default: break;
  }
  if (!ok) return std::nullopt;
  // numpy spells one-byte types with '|' whatever byte order was asked for.
  if (d.itemsize == 1 ? d.byteorder != '|' : (d.byteorder != '<' && d.byteorder != '>')) {
    return std::nullopt;
  }
  return d;
}

const std::vector<std::string>& numeric_dtypes() {
  static const std::vector<std::string> all = [] {
    std::vector<std::string> out = {"|b1", "|i1", "|u1"};
    for (const char* t : {"i2", "u2", "i4", "u4", "i8", "u8", "f2", "f4", "f8", "c8", "c16"}) {
      out.push_back(std::string("<") + t);
      out.push_back(std::string(">") + t);
    }
    return out;
  }();
  return all;
}

// ---------------------------------------------------------------------------
// Layout

namespace {

constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

// Products and sums of int64 dimensions and strides, without overflow.
__extension__ typedef __int128 Wide;

// The lowest and one past the highest byte offset (relative to element 0) a
// non-empty array touches.
struct Extent {
  Wide lo = 0;
  Wide hi = 0;
};

Extent extent_of(const ArrayParts& a, int itemsize) {
  Extent e;
  for (std::size_t k = 0; k < a.shape.size(); ++k) {
    Wide span = static_cast<Wide>(a.shape[k] - 1) * a.strides[k];
    if (span < 0) {
      e.lo += span;
    } else {
      e.hi += span;
    }
  }
  e.hi += itemsize;
  return e;
}

bool contiguous(const ArrayParts& a, int itemsize, bool c_order) {
  const std::size_t nd = a.shape.size();
  for (std::int64_t d : a.shape) {
    if (d == 0) return true;  // numpy: an empty array is both
  }
  std::int64_t expected = itemsize;
  for (std::size_t i = 0; i < nd; ++i) {
    std::size_t k = c_order ? nd - 1 - i : i;
    if (a.shape[k] == 1) continue;  // relaxed strides: any stride will do
    if (a.strides[k] != expected) return false;
    expected *= a.shape[k];
  }
  return true;
}

}  // namespace

std::string ndarray_problem(const ArrayParts& a, std::size_t payload_size) {
  auto dtype = parse_numeric_dtype(a.dtype);
  if (!dtype) {
    return "dtype '" + a.dtype +
           "' is not a numeric numpy dtype (|b1, |i1, |u1, or <, > with i2 u2 i4 u4 i8 u8 f2 f4 "
           "f8 c8 c16)";
  }
  if (a.shape.size() > kMaxArrayDims) {
    return std::to_string(a.shape.size()) + " dimensions, more than numpy's " +
           std::to_string(kMaxArrayDims);
  }
  if (a.strides.size() != a.shape.size()) {
    return std::to_string(a.strides.size()) + " strides for " + std::to_string(a.shape.size()) +
           " dimensions";
  }
  Wide bytes = dtype->itemsize;
  bool empty = false;
  for (std::size_t k = 0; k < a.shape.size(); ++k) {
    if (a.shape[k] < 0) return "dimension " + std::to_string(k) + " is negative";
    if (a.shape[k] == 0) {
      empty = true;
      continue;
    }
    bytes *= a.shape[k];
    if (bytes > kInt64Max) return "the array is too big (its byte size overflows int64)";
  }
  if (a.offset < 0 || static_cast<std::uint64_t>(a.offset) > payload_size) {
    return "offset " + std::to_string(a.offset) + " is outside the payload of " +
           std::to_string(payload_size) + " bytes";
  }
  if (empty) return {};
  Extent e = extent_of(a, dtype->itemsize);
  if (a.offset + e.lo < 0 || a.offset + e.hi > static_cast<Wide>(payload_size)) {
    return "elements reach outside the payload of " + std::to_string(payload_size) +
           " bytes (offset " + std::to_string(a.offset) + ")";
  }
  return {};
}

std::int64_t ndarray_size(const ArrayParts& a) {
  std::int64_t n = 1;
  for (std::int64_t d : a.shape) n *= d;
  return n;
}

bool ndarray_c_contiguous(const ArrayParts& a, int itemsize) {
  return contiguous(a, itemsize, true);
}

bool ndarray_f_contiguous(const ArrayParts& a, int itemsize) {
  return contiguous(a, itemsize, false);
}

std::vector<std::int64_t> contiguous_strides(const std::vector<std::int64_t>& shape, int itemsize,
                                             char order) {
  const std::size_t nd = shape.size();
  std::vector<std::int64_t> strides(nd);
  std::int64_t s = itemsize;
  for (std::size_t i = 0; i < nd; ++i) {
    std::size_t k = order == 'F' ? i : nd - 1 - i;
    strides[k] = s;
    if (shape[k] != 0) s *= shape[k];
  }
  return strides;
}

std::string ndarray_bytes(const Node& n, char order) {
  const ArrayParts& a = *n.array();
  const int itemsize = parse_numeric_dtype(a.dtype)->itemsize;
  const std::int64_t count = ndarray_size(a);
  if (count == 0) return {};
  const auto total = static_cast<std::size_t>(count) * static_cast<std::size_t>(itemsize);
  const char* base = n.payload().data() + a.offset;
  const bool f = order == 'F';
  if (f ? ndarray_f_contiguous(a, itemsize) : ndarray_c_contiguous(a, itemsize)) {
    return std::string(base, total);
  }
  // Walk the elements in the requested order, fastest dimension innermost.
  const std::size_t nd = a.shape.size();
  std::vector<std::size_t> dims(nd);  // fastest first
  for (std::size_t i = 0; i < nd; ++i) dims[i] = f ? i : nd - 1 - i;
  std::vector<std::int64_t> index(nd, 0);
  std::string out(total, '\0');
  char* dst = out.data();
  const std::int64_t inner = a.shape[dims[0]];
  const std::int64_t inner_stride = a.strides[dims[0]];
  std::int64_t at = 0;  // byte offset of the current row's first element
  for (;;) {
    const char* src = base + at;
    for (std::int64_t i = 0; i < inner; ++i) {
      std::memcpy(dst, src, static_cast<std::size_t>(itemsize));
      dst += itemsize;
      src += inner_stride;
    }
    std::size_t level = 1;
    for (; level < nd; ++level) {
      std::size_t k = dims[level];
      at += a.strides[k];
      if (++index[k] < a.shape[k]) break;
      at -= a.strides[k] * a.shape[k];
      index[k] = 0;
    }
    if (level >= nd) break;
  }
  return out;
}

namespace {

// The logical bytes of a well-formed array with each number little-endian
// (a complex number is two: each part is swapped on its own).
std::string little_endian_bytes(const Node& n, const NumericDtype& d) {
  std::string bytes = ndarray_bytes(n);
  if (d.byteorder != '>') return bytes;
  const std::size_t part = static_cast<std::size_t>(d.kind == 'c' ? d.itemsize / 2 : d.itemsize);
  for (std::size_t i = 0; i + part <= bytes.size(); i += part) {
    std::reverse(bytes.begin() + static_cast<std::ptrdiff_t>(i),
                 bytes.begin() + static_cast<std::ptrdiff_t>(i + part));
  }
  return bytes;
}

}  // namespace

bool ndarray_equal(const Node& x, const Node& y, std::string* why, bool byte_order) {
  auto say = [&](std::string reason) {
    if (why != nullptr) *why = std::move(reason);
    return false;
  };
  if (!x.array() || !y.array()) {
    if (!x.array() && !y.array()) return true;
    return say("ndarray parts missing on one side");
  }
  const ArrayParts& a = *x.array();
  const ArrayParts& b = *y.array();
  const std::optional<NumericDtype> da = parse_numeric_dtype(a.dtype);
  const std::optional<NumericDtype> db = parse_numeric_dtype(b.dtype);
  const bool same_number_type = da && db && da->kind == db->kind && da->itemsize == db->itemsize;
  if (a.dtype != b.dtype && (byte_order || !same_number_type)) {
    return say("ndarray dtype '" + a.dtype + "' != '" + b.dtype + "'");
  }
  if (a.shape != b.shape) {
    auto text = [](const std::vector<std::int64_t>& s) {
      std::string t = "(";
      for (std::size_t i = 0; i < s.size(); ++i) {
        if (i > 0) t += ", ";
        t += std::to_string(s[i]);
      }
      return t + (s.size() == 1 ? ",)" : ")");
    };
    return say("ndarray shape " + text(a.shape) + " != " + text(b.shape));
  }
  const bool x_ok = ndarray_problem(a, x.payload().size()).empty();
  const bool y_ok = ndarray_problem(b, y.payload().size()).empty();
  if (!x_ok || !y_ok) {
    // A malformed array has no elements to compare: require the same parts.
    if (x_ok != y_ok || a.strides != b.strides || a.offset != b.offset ||
        x.payload() != y.payload()) {
      return say("malformed ndarray parts differ");
    }
    return true;
  }
  const bool swapped = a.dtype != b.dtype;  // only when byte order is layout
  const std::string ex = swapped ? little_endian_bytes(x, *da) : ndarray_bytes(x);
  const std::string ey = swapped ? little_endian_bytes(y, *db) : ndarray_bytes(y);
  if (ex == ey) return true;
  const int itemsize = parse_numeric_dtype(a.dtype)->itemsize;
  std::size_t i = 0;
  while (ex[i] == ey[i]) ++i;
  return say("ndarray elements differ at flat index " +
             std::to_string(i / static_cast<std::size_t>(itemsize)) + " (C order)");
}

// ---------------------------------------------------------------------------
// Writing: the reduce numpy returns.

namespace {

Node* make_dtype(Graph& g, const NumericDtype& d) {
  Node* dtype = g.object(g.global("numpy", "dtype"),
                         g.tuple({g.str(d.kind_and_size()), g.boolean(false), g.boolean(true)}));
  dtype->obj()->state = g.tuple({g.integer(3), g.str(std::string(1, d.byteorder)), g.none(), g.none(),
                               g.none(), g.integer(-1), g.integer(-1), g.integer(0)});
  return dtype;
}

Node* borrowed_bytes(Graph& g, const char* data, std::size_t size) {
  Node* b = g.make(Kind::Bytes);
  b->set_borrowed(data, size);
  return b;
}

}  // namespace

Node* lower_ndarray(Lowering& lowering, const Node& n) {
  if (!n.array()) {
    refuse_pickling("an ndarray node without parts");
  }
  const ArrayParts& a = *n.array();
  if (std::string problem = ndarray_problem(a, n.payload().size()); !problem.empty()) {
    refuse_pickling("ndarray: " + problem);
  }
  const NumericDtype dt = *parse_numeric_dtype(a.dtype);
  Graph& g = lowering.scratch();
  Node* dtype = dt.singleton() ? lowering.shared("numpy.dtype " + a.dtype,
                                                 [&](Graph& s) { return make_dtype(s, dt); })
                               : make_dtype(g, dt);
  std::vector<Node*> dims;
  dims.reserve(a.shape.size());
  for (std::int64_t d : a.shape) dims.push_back(g.integer(d));
  Node* shape = g.tuple(std::move(dims));

  const bool c = ndarray_c_contiguous(a, dt.itemsize);
  const bool f = ndarray_f_contiguous(a, dt.itemsize);
  const auto nbytes =
      static_cast<std::size_t>(ndarray_size(a)) * static_cast<std::size_t>(dt.itemsize);
  const char* memory = n.payload().data() + a.offset;

  if (lowering.options().protocol >= 5 && (c || f)) {
    // The PickleBuffer borrows the array's memory: in band it is copied
    // into the pickle, out of band it is handed out as is.
    Node* buffer = g.pickle_buffer_borrowed(memory, nbytes, !a.writeable);
    Node* args = g.tuple({buffer, dtype, shape, g.str(c ? "C" : "F")});
    return g.object(g.global("numpy.core.numeric", "_frombuffer"), args);
  }

  const bool is_fortran = f && !c;
  Node* data = (c || f) ? borrowed_bytes(g, memory, nbytes) : g.bytes(ndarray_bytes(n, 'C'));
  Node* args = g.tuple({g.global("numpy", "ndarray"), g.tuple({g.integer(0)}), g.bytes("b")});
  Node* array = g.object(g.global("numpy.core.multiarray", "_reconstruct"), args);
  array->obj()->state = g.tuple({g.integer(1), shape, dtype, g.boolean(is_fortran), data});
  return array;
}

// ---------------------------------------------------------------------------
// Reading: numpy's forms, back into NDArray nodes.

namespace {

using internal::is_global;
using internal::small_int;

bool is_int(const Node* n, std::int64_t v) {
  if (n == nullptr || n->kind != Kind::Int) return false;
  std::int64_t x = n->small();
  if (n->big && !twos_le_to_int64(n->payload(), x)) return false;
  return x == v;
}

bool is_bool(const Node* n, bool v) {
  return n != nullptr && n->kind == Kind::Bool && n->flag == v;
}

bool is_none(const Node* n) {
  return n != nullptr && n->kind == Kind::None;
}

const Node* tuple_of(const Node* n, std::size_t size) {
  return n != nullptr && n->kind == Kind::Tuple && n->items.size() == size ? n : nullptr;
}

// callable(*args) with nothing else but an optional BUILD state.
bool plain_reduce(const Node& n) {
  return n.kind == Kind::Object && n.obj() && n.obj()->callable != nullptr && n.obj()->args != nullptr &&
         n.obj()->args->kind == Kind::Tuple && n.obj()->state_setter == nullptr &&
         n.obj()->listitems.empty() && n.obj()->dictitems.empty();
}

// Objects the C pickler memoizes by value (CPython caches them), so sharing
// them says nothing about the objects numpy made.
bool value_memoized(const Node* n) {
  if (n->kind == Kind::Bytes) return n->payload().size() <= 1;
  if (n->kind == Kind::Str) {
    std::string_view s = n->payload();
    if (s.size() <= 1) return true;
    auto b0 = static_cast<unsigned char>(s[0]);
    return s.size() == 2 && (b0 == 0xc2 || b0 == 0xc3);
  }
  if (n->kind == Kind::Tuple) return n->items.empty();  // never memoized
  return is_atom(n->kind) || n->kind == Kind::Global;   // globals: by name
}

// numpy.dtype('f8', False, True) BUILD (3, '<', None, None, None, -1, -1, 0).
bool match_dtype(const Node* d, NumericDtype& out, std::vector<const Node*>& fresh) {
  if (d == nullptr || !plain_reduce(*d) || !is_global(d->obj()->callable, "numpy", "dtype")) {
    return false;
  }
  const Node* args = tuple_of(d->obj()->args, 3);
  const Node* state = tuple_of(d->obj()->state, 8);
  if (args == nullptr || state == nullptr) return false;
  const Node* kind = args->items[0];
  const Node* endian = state->items[1];
  if (kind == nullptr || kind->kind != Kind::Str || !is_bool(args->items[1], false) ||
      !is_bool(args->items[2], true)) {
    return false;
  }
  if (!is_int(state->items[0], 3) || endian == nullptr || endian->kind != Kind::Str ||
      endian->payload().size() != 1 || !is_none(state->items[2]) || !is_none(state->items[3]) ||
      !is_none(state->items[4]) || !is_int(state->items[5], -1) || !is_int(state->items[6], -1) ||
      !is_int(state->items[7], 0)) {
    return false;
  }
  auto parsed = parse_numeric_dtype(std::string(endian->payload()) + std::string(kind->payload()));
  if (!parsed) return false;
  out = *parsed;
  fresh.push_back(args);
  fresh.push_back(state);
  fresh.push_back(kind);
  return true;
}

bool match_shape(const Node* t, std::vector<std::int64_t>& shape) {
  return internal::nonnegative_dims(t, shape, kMaxArrayDims);
}

// One array in numpy's pickled form, as found in the graph.
struct Form {
  const Node* dtype = nullptr;  // the dtype object
  NumericDtype dt;
  std::vector<std::int64_t> shape;
  char order = 'C';
  const Node* data = nullptr;          // bytes, bytearray or pickle buffer
  bool writeable = true;               // as pickled
  Supplied supplied = Supplied::None;  // the out-of-band memory the loader was given
  // Objects numpy makes for this array alone: if anything else refers to
  // them, the model (which makes them afresh) could not write the same bytes.
  std::vector<const Node*> fresh;
};

bool match_form(const Node& o, Form& f) {
  if (!plain_reduce(o)) return false;
  const Node* callable = o.obj()->callable;
  const Node* args = o.obj()->args;
  if (is_global(callable, "numpy.core.multiarray", "_reconstruct")) {
    const Node* state = tuple_of(o.obj()->state, 5);
    if (tuple_of(args, 3) == nullptr || state == nullptr) return false;
    const Node* zero = tuple_of(args->items[1], 1);
    const Node* dummy = args->items[2];
    if (!is_global(args->items[0], "numpy", "ndarray") || zero == nullptr ||
        !is_int(zero->items[0], 0) || dummy == nullptr || dummy->kind != Kind::Bytes ||
        dummy->payload() != "b") {
      return false;
    }
    const Node* fortran = state->items[3];
    f.data = state->items[4];
    if (!is_int(state->items[0], 1) || !match_shape(state->items[1], f.shape) ||
        !match_dtype(state->items[2], f.dt, f.fresh) || fortran == nullptr ||
        fortran->kind != Kind::Bool || f.data == nullptr || f.data->kind != Kind::Bytes) {
      return false;
    }
    f.dtype = state->items[2];
    f.order = fortran->flag ? 'F' : 'C';
    f.writeable = true;  // numpy's __setstate__ makes a writeable array
    f.fresh.insert(f.fresh.end(), {args, zero, state, state->items[1], f.data});
  } else if (is_global(callable, "numpy.core.numeric", "_frombuffer")) {
    if (o.obj()->state != nullptr || tuple_of(args, 4) == nullptr) return false;
    const Node* order = args->items[3];
    f.data = args->items[0];
    if (f.data == nullptr || !match_dtype(args->items[1], f.dt, f.fresh) ||
        !match_shape(args->items[2], f.shape) || order == nullptr || order->kind != Kind::Str ||
        (order->payload() != "C" && order->payload() != "F")) {
      return false;
    }
    switch (f.data->kind) {
      case Kind::PickleBuffer:
        f.writeable = !f.data->flag;
        f.supplied = f.data->supplied;
        break;
      case Kind::ByteArray: f.writeable = true; break;
      case Kind::Bytes: f.writeable = false; break;
      default: return false;
    }
    f.dtype = args->items[1];
    f.order = order->payload()[0];
    f.fresh.insert(f.fresh.end(), {args, args->items[2], f.data});
  } else {
    return false;
  }
  // The data must be exactly the elements.
  Wide bytes = f.dt.itemsize;
  for (std::int64_t d : f.shape) {
    bytes *= d;
    if (bytes > kInt64Max) return false;
  }
  return bytes == static_cast<Wide>(f.data->payload().size());
}

// Which of a graph's arrays in numpy's form become NDArray nodes. An array
// is raised only when the model, which holds no dtype objects, writes it
// back the same: its fresh objects are referenced by it alone; a '<' or '|'
// dtype is the one object every raised array of that dtype shares (the
// first such object found; arrays with another copy of it stay generic,
// as arrays that came out of pickle.loads do), referenced by those arrays
// only; a '>' dtype belongs to one array and nothing else.
std::unordered_map<const Node*, bool> plan_raises(const Graph& graph) {
  std::vector<std::pair<const Node*, Form>> candidates;
  std::unordered_map<const Node*, std::uint32_t> refs;  // nodes of interest -> references
  for (std::size_t i = 0; i < graph.size(); ++i) {
    const Node& n = graph.node(i);
    Form f;
    if (n.kind != Kind::Object || !match_form(n, f)) continue;
    for (const Node* t : f.fresh) {
      if (!value_memoized(t)) refs.emplace(t, 0);
    }
    refs.emplace(f.dtype, 0);
    candidates.emplace_back(&n, std::move(f));
  }
  std::unordered_map<const Node*, bool> decisions;
  if (candidates.empty()) return decisions;
  for (std::size_t i = 0; i < graph.size(); ++i) {
    for_each_child(graph.node(i), [&](const Node* c) {
      if (auto it = refs.find(c); it != refs.end()) ++it->second;
    });
  }
  std::unordered_map<const Node*, std::uint32_t> dtype_uses;  // by candidates with clean parts
  std::vector<char> clean(candidates.size(), 0);
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Form& f = candidates[i].second;
    clean[i] = std::all_of(f.fresh.begin(), f.fresh.end(),
                           [&](const Node* t) { return value_memoized(t) || refs[t] == 1; });
    if (clean[i]) ++dtype_uses[f.dtype];
  }
  std::unordered_map<std::string, const Node*> singleton_of;  // dtype.str -> chosen object
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    const Form& f = candidates[i].second;
    bool raise = false;
    if (clean[i] && refs[f.dtype] == dtype_uses[f.dtype]) {
      if (f.dt.singleton()) {
        auto [it, fresh] = singleton_of.emplace(f.dt.str(), f.dtype);
        raise = it->second == f.dtype;
      } else {
        raise = dtype_uses[f.dtype] == 1;
      }
    }
    decisions.emplace(candidates[i].first, raise);
  }
  return decisions;
}

// The decisions for the graph being raised, made once per pass over it
// (raise_domain_forms visits every Object node once; a decision is used up
// when its node is visited, and a node without one starts a new plan).
struct RaisePlan {
  const Graph* graph = nullptr;
  std::unordered_map<const Node*, bool> decisions;
};
thread_local RaisePlan current_plan;

// Equality and the JSON form learn the domain kinds through
// register_value_kinds(). This file is linked into every program that
// decodes or encodes (the codec raises and lowers arrays through it), so
// registering here registers before main() wherever domain values arise.
[[maybe_unused]] const bool value_kinds_registered = (register_value_kinds(), true);

}  // namespace

bool raise_ndarray(Graph& graph, Node& object) {
  if (object.kind != Kind::Object || !object.obj()) return false;
  const Node* callable = object.obj()->callable;
  if (!is_global(callable, "numpy.core.multiarray", "_reconstruct") &&
      !is_global(callable, "numpy.core.numeric", "_frombuffer")) {
    return false;
  }
  Form f;
  if (!match_form(object, f)) return false;
  RaisePlan& plan = current_plan;
  auto it = plan.graph == &graph ? plan.decisions.find(&object) : plan.decisions.end();
  if (it == plan.decisions.end()) {
    plan.graph = &graph;
    plan.decisions = plan_raises(graph);
    it = plan.decisions.find(&object);
    if (it == plan.decisions.end()) return false;
  }
  const bool raise = it->second;
  plan.decisions.erase(it);
  if (plan.decisions.empty()) plan.graph = nullptr;
  if (!raise) return false;

  auto parts = std::make_unique<ArrayParts>();
  parts->dtype = f.dt.str();
  parts->shape = f.shape;
  parts->strides = contiguous_strides(f.shape, f.dt.itemsize, f.order);
  parts->offset = 0;
  parts->writeable = f.writeable;
  // Zero-copy: the array views the data node's bytes (an out-of-band
  // buffer's memory stays the caller's; in-band data stays in its node).
  std::string_view data = f.data->payload();
  object.kind = Kind::NDArray;
  object.supplied = f.supplied;
  object.set_obj(nullptr);
  object.set_array(std::move(parts));
  object.set_borrowed(data.data(), data.size());
  return true;
}

}  // namespace serialcheck::types
