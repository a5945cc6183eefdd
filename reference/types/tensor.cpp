#include "reference/types/tensor.h"

#include <array>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <unordered_set>
#include <utility>
#include <vector>

#include "reference/types/domain.h"
#include "reference/types/internal/forms.h"
#include "reference/types/pickle_codec.h"
#include "reference/value/numeric.h"

namespace serialcheck::types {

namespace {

using internal::is_global;
using internal::is_str;
using internal::nonnegative_dims;
using internal::small_int;

// Layout arithmetic is done wide so that no int64 shape or stride overflows.
__extension__ typedef __int128 Wide;

constexpr std::array<TorchDtype, 12> kDtypes{{
    {"float64", 8, "DoubleStorage", true, "<f8"},
    {"float32", 4, "FloatStorage", true, "<f4"},
    {"float16", 2, "HalfStorage", true, "<f2"},
    {"bfloat16", 2, "BFloat16Storage", true, ""},
    {"complex128", 16, "ComplexDoubleStorage", true, "<c16"},
    {"complex64", 8, "ComplexFloatStorage", true, "<c8"},
    {"int64", 8, "LongStorage", false, "<i8"},
    {"int32", 4, "IntStorage", false, "<i4"},
    {"int16", 2, "ShortStorage", false, "<i2"},
    {"int8", 1, "CharStorage", false, "|i1"},
    {"uint8", 1, "ByteStorage", false, "|u1"},
    {"bool", 1, "BoolStorage", false, "|b1"},
}};

// torch.serialization's MAGIC_NUMBER 0x1950a86a20f9469cfc6c and PROTOCOL_VERSION.
constexpr std::string_view kMagicLe("\x6c\xfc\x9c\x46\xf9\x20\x6a\xa8\x50\x19", 10);
constexpr std::int64_t kLegacyProtocolVersion = 1001;
// torch.save's default pickle protocol.
constexpr int kInnerProtocol = 2;

constexpr std::string_view kRebuildModule = "torch._utils";
constexpr std::string_view kRebuildName = "_rebuild_tensor_v2";
constexpr std::string_view kLoadModule = "torch.storage";
constexpr std::string_view kLoadName = "_load_from_bytes";

// Set while a storage stream is being decoded: nothing inside it is a
// tensor, and not looking keeps the nesting (and the stack) flat.
thread_local bool in_storage_stream = false;

// An Object node with only a callable and args.
bool plain_call(const Node* n) {
  if (n == nullptr || n->kind != Kind::Object || !n->obj()) return false;
  const ObjectParts& o = *n->obj();
  return o.state == nullptr && o.state_setter == nullptr && o.listitems.empty() &&
         o.dictitems.empty() && o.args != nullptr && o.args->kind == Kind::Tuple;
}

bool call_of(const Node* n, std::string_view module, std::string_view name, std::size_t nargs) {
  return plain_call(n) && is_global(n->obj()->callable, module, name) &&
         n->obj()->args->items.size() == nargs;
}

// getattr(getattr(torch.Tensor, 'grad'), '__set__'), or the dotted global
// torch.Tensor.grad.__set__ that protocols 4 and 5 can also name.
bool is_grad_setter(const Node* n) {
  if (is_global(n, "torch", "Tensor.grad.__set__")) return true;
  if (!call_of(n, "builtins", "getattr", 2) || !is_str(n->obj()->args->items[1], "__set__")) {
    return false;
  }
  const Node* descriptor = n->obj()->args->items[0];
  return call_of(descriptor, "builtins", "getattr", 2) &&
         is_global(descriptor->obj()->args->items[0], "torch", "Tensor") &&
         is_str(descriptor->obj()->args->items[1], "grad");
}

std::int64_t saturating_mul(std::int64_t a, std::int64_t b) {
  Wide p = static_cast<Wide>(a) * b;
  return p > std::numeric_limits<std::int64_t>::max() ? std::numeric_limits<std::int64_t>::max()
                                                      : static_cast<std::int64_t>(p);
}

void append_le64(std::string& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
}

// One pickle of the storage stream, decoded from `pos`; nullptr when the
// decoder refuses it.
const Node* next_pickle(std::string_view bytes, std::size_t& pos, Graph& graph) {
  std::optional<LoadedPickle> r = pickle_codec().load_front(bytes.substr(pos), graph);
  if (!r) return nullptr;
  pos += r->consumed;
  return r->root;
}

// What a Tensor node is made of, before it is made.
struct TensorForm {
  ArrayParts parts;
  std::string_view storage;  // inside the pickle's bytes node
};

// The form of `n` apart from its state: the _rebuild_tensor_v2 call with a
// recognised storage. A grad, if any, is checked by the caller.
std::optional<TensorForm> parse_call(const Node& n) {
  if (n.kind != Kind::Object || !n.obj()) return std::nullopt;
  const ObjectParts& o = *n.obj();
  if (!is_global(o.callable, kRebuildModule, kRebuildName) || !o.listitems.empty() ||
      !o.dictitems.empty() || o.args == nullptr || o.args->kind != Kind::Tuple ||
      o.args->items.size() != 6) {
    return std::nullopt;
  }
  if ((o.state == nullptr) != (o.state_setter == nullptr)) return std::nullopt;
  if (o.state_setter != nullptr && !is_grad_setter(o.state_setter)) return std::nullopt;
  const NodeList& a = o.args->items;
  // backward_hooks: torch always writes an empty OrderedDict.
  if (!call_of(a[5], "collections", "OrderedDict", 0)) return std::nullopt;
  if (a[4] == nullptr || a[4]->kind != Kind::Bool) return std::nullopt;
  if (!call_of(a[0], kLoadModule, kLoadName, 1)) return std::nullopt;
  const Node* blob = a[0]->obj()->args->items[0];
  if (blob == nullptr || blob->kind != Kind::Bytes) return std::nullopt;

  TensorForm form;
  ArrayParts& p = form.parts;
  if (!small_int(a[1], p.offset) || p.offset < 0) return std::nullopt;
  if (!nonnegative_dims(a[2], p.shape) || !nonnegative_dims(a[3], p.strides)) return std::nullopt;
  p.requires_grad = a[4]->flag;
  auto storage = parse_legacy_storage_stream(blob->payload());
  if (!storage) return std::nullopt;
  p.dtype = std::string(storage->dtype->name);
  p.device = std::move(storage->location);
  form.storage = storage->data;
  return form;
}

// Makes `n` (an Object) the Tensor node `form` describes, in place.
void rewrite(Node& n, TensorForm form, Node* grad) {
  n.kind = Kind::Tensor;
  n.set_obj(nullptr);
  n.items.clear();
  n.set_name({});
  n.set_array(std::make_unique<ArrayParts>(std::move(form.parts)));
  n.array()->grad = grad;
  n.set_borrowed(form.storage.data(), form.storage.size());
}

// Checks `form` (with `grad` attached) as a Tensor node would be checked.
bool acceptable(const TensorForm& form, const Node& self, Node* grad) {
  Node probe(Kind::Tensor);
  probe.set_array(std::make_unique<ArrayParts>(form.parts));
  probe.array()->grad = grad;
  probe.set_borrowed(form.storage.data(), form.storage.size());
  if (grad == &self) return false;
  return !tensor_problem(probe).has_value();
}

}  // namespace

std::span<const TorchDtype> torch_dtypes() {
  return kDtypes;
}

const TorchDtype* find_torch_dtype(std::string_view name) {
  for (const TorchDtype& d : kDtypes) {
    if (d.name == name) return &d;
  }
  return nullptr;
}

const TorchDtype* find_torch_storage_type(std::string_view storage_type) {
  for (const TorchDtype& d : kDtypes) {
    if (d.storage_type == storage_type) return &d;
  }
  return nullptr;
}

bool valid_torch_device(std::string_view device) {
  if (device == "cpu" || device == "cuda") return true;
  if (device.substr(0, 5) != "cuda:" || device.size() == 5 || device.size() > 9) return false;
  for (char c : device.substr(5)) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

std::int64_t tensor_numel(const ArrayParts& parts) {
  std::int64_t n = 1;
  for (std::int64_t d : parts.shape) n = saturating_mul(n, d < 0 ? 0 : d);
  return n;
}

std::optional<std::string> tensor_problem(const Node& tensor) {
  if (tensor.kind != Kind::Tensor || !tensor.array()) return "not a tensor node";
  const ArrayParts& p = *tensor.array();
  const TorchDtype* dtype = find_torch_dtype(p.dtype);
  if (dtype == nullptr) return "unknown tensor dtype \"" + p.dtype + "\"";
  if (!valid_torch_device(p.device)) return "unknown tensor device \"" + p.device + "\"";
  if (p.shape.size() != p.strides.size()) {
    return "a tensor with " + std::to_string(p.shape.size()) + " dimensions has " +
           std::to_string(p.strides.size()) + " strides";
  }
  for (std::size_t i = 0; i < p.shape.size(); ++i) {
    if (p.shape[i] < 0) return "tensor size " + std::to_string(p.shape[i]) + " is negative";
    if (p.strides[i] < 0) return "tensor stride " + std::to_string(p.strides[i]) + " is negative";
  }
  if (p.offset < 0) return "tensor storage offset " + std::to_string(p.offset) + " is negative";
  const std::size_t bytes = tensor.payload().size();
  if (bytes % dtype->itemsize != 0) {
    return "a " + p.dtype + " storage of " + std::to_string(bytes) + " bytes is not whole elements";
  }
  const auto elements = static_cast<Wide>(bytes / dtype->itemsize);
  if (tensor_numel(p) > 0) {
    Wide last = p.offset;
    for (std::size_t i = 0; i < p.shape.size(); ++i) {
      last += static_cast<Wide>(p.shape[i] - 1) * p.strides[i];
    }
    if (last >= elements) {
      return "the tensor view reaches past the end of its storage of " +
             std::to_string(bytes / dtype->itemsize) + " elements";
    }
  }
  if (p.requires_grad && !dtype->differentiable) {
    return "only floating point and complex tensors can require grad, not " + p.dtype;
  }
  if (p.grad != nullptr) {
    const Node& g = *p.grad;
    if (g.kind != Kind::Tensor || !g.array()) {
      return "a tensor's grad is a " + std::string(kind_name(g.kind)) + ", not a tensor";
    }
    if (&g == &tensor) return "a tensor cannot be its own grad";
    if (g.array()->dtype != p.dtype || g.array()->shape != p.shape || g.array()->device != p.device) {
      return "a tensor's grad must have its dtype, shape and device";
    }
  }
  return std::nullopt;
}

namespace {

std::string dims_text(const std::vector<std::int64_t>& v) {
  std::string out = "[";
  for (std::size_t i = 0; i < v.size(); ++i) {
    if (i > 0) out += ", ";
    out += std::to_string(v[i]);
  }
  return out + "]";
}

bool differ(std::string* why, std::string reason) {
  if (why != nullptr) *why = std::move(reason);
  return false;
}

// The first element (in logical order) whose bytes differ between two
// valid tensors of one layout, or nullopt. Dimensions of stride 0 repeat
// the same elements and are walked once.
std::optional<std::vector<std::int64_t>> first_difference(const Node& a, const Node& b,
                                                          std::size_t itemsize) {
  const ArrayParts& p = *a.array();
  const std::string_view x = a.payload();
  const std::string_view y = b.payload();
  if (tensor_numel(p) == 0) return std::nullopt;
  std::vector<std::size_t> walked;  // dimensions walked, outermost first
  Wide visits = 1;
  Wide last = p.offset;
  for (std::size_t k = 0; k < p.shape.size(); ++k) {
    last += static_cast<Wide>(p.shape[k] - 1) * p.strides[k];
    if (p.strides[k] != 0 && p.shape[k] > 1) {
      walked.push_back(k);
      visits *= p.shape[k];
    }
  }
  const Wide elements = static_cast<Wide>(x.size() / itemsize);
  if (visits > elements) {
    // Self-overlapping: compare the span, reporting its first element.
    const auto begin = static_cast<std::size_t>(p.offset) * itemsize;
    const auto end = static_cast<std::size_t>(last + 1) * itemsize;
    if (x.substr(begin, end - begin) == y.substr(begin, end - begin)) return std::nullopt;
    return std::vector<std::int64_t>(p.shape.size(), 0);
  }
  std::vector<std::int64_t> index(p.shape.size(), 0);
  std::int64_t pos = p.offset;
  while (true) {
    const auto at = static_cast<std::size_t>(pos) * itemsize;
    if (std::memcmp(x.data() + at, y.data() + at, itemsize) != 0) return index;
    std::size_t w = walked.size();
    while (w > 0) {
      const std::size_t k = walked[w - 1];
      if (++index[k] < p.shape[k]) {
        pos += p.strides[k];
        break;
      }
      pos -= (p.shape[k] - 1) * p.strides[k];
      index[k] = 0;
      --w;
    }
    if (w == 0) return std::nullopt;
  }
}

}  // namespace

// The elements of a well-formed tensor, in logical order (last index
// fastest), as bytes.
static std::string logical_bytes(const Node& n, std::size_t itemsize) {
  const ArrayParts& p = *n.array();
  std::string out;
  const std::int64_t count = tensor_numel(p);
  if (count == 0) return out;
  out.reserve(static_cast<std::size_t>(count) * itemsize);
  const std::string_view data = n.payload();
  std::vector<std::int64_t> index(p.shape.size(), 0);
  std::int64_t pos = p.offset;
  while (true) {
    out.append(data.substr(static_cast<std::size_t>(pos) * itemsize, itemsize));
    std::size_t k = p.shape.size();
    while (k > 0) {
      --k;
      if (++index[k] < p.shape[k]) {
        pos += p.strides[k];
        break;
      }
      pos -= (p.shape[k] - 1) * p.strides[k];
      index[k] = 0;
      if (k == 0) return out;
    }
    if (p.shape.empty()) return out;
  }
}

bool tensor_equal(const Node& a, const Node& b, std::string* why, bool layout) {
  if (!a.array() || !b.array()) {
    if (!a.array() && !b.array()) return true;
    return differ(why, "tensor parts missing on one side");
  }
  const ArrayParts& p = *a.array();
  const ArrayParts& q = *b.array();
  if (p.dtype != q.dtype) return differ(why, "tensor dtype " + p.dtype + " != " + q.dtype);
  if (p.device != q.device) return differ(why, "tensor device " + p.device + " != " + q.device);
  if (p.requires_grad != q.requires_grad) {
    return differ(why, std::string("tensor requires_grad ") + (p.requires_grad ? "true" : "false") +
                           " != " + (q.requires_grad ? "true" : "false"));
  }
  if (p.shape != q.shape) {
    return differ(why, "tensor shape " + dims_text(p.shape) + " != " + dims_text(q.shape));
  }
  if (!layout) {
    auto valid = [](const Node& n) {
      Node probe(Kind::Tensor);
      probe.set_array(std::make_unique<ArrayParts>(*n.array()));
      probe.array()->grad = nullptr;
      probe.set_borrowed(n.payload().data(), n.payload().size());
      return !tensor_problem(probe).has_value();
    };
    if (!valid(a) || !valid(b)) return differ(why, "a tensor is not well formed");
    const std::size_t itemsize = find_torch_dtype(p.dtype)->itemsize;
    if (logical_bytes(a, itemsize) != logical_bytes(b, itemsize)) {
      return differ(why, "tensor elements differ");
    }
    return true;
  }
  if (p.strides != q.strides) {
    return differ(why, "tensor strides " + dims_text(p.strides) + " != " + dims_text(q.strides));
  }
  if (p.offset != q.offset) {
    return differ(why, "tensor storage offset " + std::to_string(p.offset) +
                           " != " + std::to_string(q.offset));
  }
  // Layout checks look at the grads too; equality leaves those to its caller.
  auto valid = [](const Node& n) {
    Node probe(Kind::Tensor);
    probe.set_array(std::make_unique<ArrayParts>(*n.array()));
    probe.array()->grad = nullptr;
    probe.set_borrowed(n.payload().data(), n.payload().size());
    return !tensor_problem(probe).has_value();
  };
  if (!valid(a) || !valid(b)) {
    if (a.payload() == b.payload()) return true;
    return differ(why, "tensor storages differ (the tensor is not well formed)");
  }
  const std::size_t itemsize = find_torch_dtype(p.dtype)->itemsize;
  if (auto index = first_difference(a, b, itemsize)) {
    return differ(why, "tensor element " + dims_text(*index) + " differs");
  }
  return true;
}

std::string legacy_storage_stream(const TorchDtype& dtype, std::string_view location,
                                  std::string_view data, std::string_view key) {
  const auto numel = static_cast<std::int64_t>(data.size() / dtype.itemsize);
  const PickleCodec& codec = pickle_codec();
  Graph g;
  std::string out;
  auto dump = [&](const Node* root) { out += codec.dumps(root, kInnerProtocol); };
  dump(g.integer_le(kMagicLe));
  dump(g.integer(kLegacyProtocolVersion));
  // torch.serialization's sys_info; its loader reads and ignores it.
  dump(g.dict({g.str("protocol_version"), g.integer(kLegacyProtocolVersion), g.str("little_endian"),
               g.boolean(true), g.str("type_sizes"),
               g.dict({g.str("short"), g.integer(2), g.str("int"), g.integer(4), g.str("long"),
                       g.integer(4)})}));
  dump(g.persid(g.tuple({g.str("storage"), g.global("torch", std::string(dtype.storage_type)),
                         g.str(std::string(key)), g.str(std::string(location)), g.integer(numel),
                         g.none()})));
  dump(g.list({g.str(std::string(key))}));
  append_le64(out, static_cast<std::uint64_t>(numel));
  out.append(data);
  return out;
}

std::optional<LegacyStorage> parse_legacy_storage_stream(std::string_view bytes) {
  struct Flag {
    Flag() { in_storage_stream = true; }
    ~Flag() { in_storage_stream = false; }
  } flag;
  Graph g;
  std::size_t pos = 0;
  const Node* magic = next_pickle(bytes, pos, g);
  if (magic == nullptr || magic->kind != Kind::Int || !magic->big || magic->payload() != kMagicLe) {
    return std::nullopt;
  }
  std::int64_t version = 0;
  if (!small_int(next_pickle(bytes, pos, g), version) || version != kLegacyProtocolVersion) {
    return std::nullopt;
  }
  const Node* sys_info = next_pickle(bytes, pos, g);
  if (sys_info == nullptr || sys_info->kind != Kind::Dict) return std::nullopt;
  const Node* pers = next_pickle(bytes, pos, g);
  if (pers == nullptr || pers->kind != Kind::PersId || pers->items.size() != 1) return std::nullopt;
  const Node* pid = pers->items[0];
  if (pid->kind != Kind::Tuple || pid->items.size() != 6) return std::nullopt;
  const NodeList& f = pid->items;
  std::int64_t numel = 0;
  if (!is_str(f[0], "storage") || f[1]->kind != Kind::Global || f[1]->payload() != "torch" ||
      f[2]->kind != Kind::Str || f[3]->kind != Kind::Str || !small_int(f[4], numel) || numel < 0 ||
      f[5]->kind != Kind::None) {
    return std::nullopt;
  }
  LegacyStorage out;
  out.dtype = find_torch_storage_type(f[1]->name());
  out.location = std::string(f[3]->payload());
  if (out.dtype == nullptr || !valid_torch_device(out.location)) return std::nullopt;
  const Node* keys = next_pickle(bytes, pos, g);
  if (keys == nullptr || keys->kind != Kind::List || keys->items.size() != 1 ||
      !is_str(keys->items[0], f[2]->payload())) {
    return std::nullopt;
  }
  std::string_view rest = bytes.substr(pos);
  if (rest.size() < 8) return std::nullopt;
  std::uint64_t count = 0;
  for (int i = 7; i >= 0; --i) count = (count << 8) | static_cast<unsigned char>(rest[i]);
  if (count != static_cast<std::uint64_t>(numel)) return std::nullopt;
  rest.remove_prefix(8);
  if (count > rest.size() / out.dtype->itemsize || rest.size() != count * out.dtype->itemsize) {
    return std::nullopt;
  }
  out.data = rest;
  return out;
}

Node* lower_tensor(Lowering& lowering, const Node& n) {
  if (auto problem = tensor_problem(n)) {
    refuse_pickling("can't pickle tensor: " + *problem);
  }
  const ArrayParts& p = *n.array();
  Graph& g = lowering.scratch();
  const TorchDtype& dtype = *find_torch_dtype(p.dtype);
  auto dims = [&](const std::vector<std::int64_t>& values) {
    std::vector<Node*> items;
    items.reserve(values.size());
    for (std::int64_t v : values) items.push_back(g.integer(v));
    return g.tuple(std::move(items));
  };
  Node* storage = g.object(g.global(std::string(kLoadModule), std::string(kLoadName)),
                           g.tuple({g.bytes(legacy_storage_stream(dtype, p.device, n.payload()))}));
  // torch makes a fresh (empty) OrderedDict of backward hooks per tensor.
  Node* hooks = g.object(g.global("collections", "OrderedDict"), g.tuple());
  Node* out = g.object(g.global(std::string(kRebuildModule), std::string(kRebuildName)),
                       g.tuple({storage, g.integer(p.offset), dims(p.shape), dims(p.strides),
                                g.boolean(p.requires_grad), hooks}));
  if (p.grad != nullptr) {
    out->obj()->state = p.grad;  // the encoder lowers it in turn
    out->obj()->state_setter = lowering.shared("torch.Tensor.grad.__set__", [](Graph& s) {
      Node* descriptor = s.object(s.global("builtins", "getattr"),
                                  s.tuple({s.global("torch", "Tensor"), s.str("grad")}));
      return s.object(s.global("builtins", "getattr"), s.tuple({descriptor, s.str("__set__")}));
    });
  }
  return out;
}

bool raise_tensor(Graph& /*graph*/, Node& object) {
  if (in_storage_stream) return false;
  // The grad of a tensor is decoded after it, so it is still an Object when
  // the tensor is looked at: follow the chain of grads first and raise it
  // from its far end. The chain only runs through nodes whose call is
  // already a tensor form, and each is parsed once here.
  struct Link {
    Node* node;
    TensorForm form;
  };
  // Most objects are not a tensor's call at all: they are told apart
  // before anything is allocated for the chain.
  if (object.kind != Kind::Object) return false;
  std::optional<TensorForm> first = parse_call(object);
  if (!first) return false;
  std::vector<Link> chain;
  std::unordered_set<const Node*> seen{&object};
  chain.push_back({&object, std::move(*first)});
  for (Node* n = object.obj()->state; n != nullptr && n->kind == Kind::Object && seen.insert(n).second;) {
    auto form = parse_call(*n);
    if (!form) break;
    chain.push_back({n, std::move(*form)});
    n = n->obj()->state;
  }
  bool raised = false;
  for (std::size_t i = chain.size(); i-- > 0;) {
    Link& link = chain[i];
    Node* grad = link.node->obj()->state;
    raised =
        (grad == nullptr || grad->kind == Kind::Tensor) && acceptable(link.form, *link.node, grad);
    if (raised) rewrite(*link.node, std::move(link.form), grad);
  }
  return raised && !chain.empty() && chain.front().node == &object;
}

}  // namespace serialcheck::types
