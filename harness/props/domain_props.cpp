// The domain properties (docs/conformance.md, "Domain properties"):
// tensor.grad, module.by-reference, zerocopy.oob, zerocopy.nested,
// zerocopy.device, header.sub-header-intact, protocol.negotiated,
// wire.distributed, wire.packed.
//
// Zero-copy is observable only where the harness holds the memory on both
// sides: the reference dumps the value's own memory and loads views of the
// frames. A Python subject dumps objects the bridge made (copies), so for it
// zerocopy.* checks what the wire shows: every array above the threshold
// travels as a frame of its own, outside the pickle.
#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include "harness/gen/domain_values.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"
#include "harness/props/value_tools.h"
#include "reference/device/device.h"
#include "reference/frames/family.h"
#include "reference/frames/header.h"
#include "reference/frames/header_json.h"
#include "reference/frames/packed.h"
#include "reference/types/ndarray.h"
#include "reference/types/tensor.h"

namespace serialcheck::props {
namespace {

constexpr const char* kDistributed = "distributed";

bool is_reference(const Subject& s) {
  return s.capabilities().native_codec;
}

CasePlan domain_plan(CaseDomain domain, const Capabilities& caps) {
  CasePlan plan = subject_plan(caps);
  plan.domain = domain;
  return plan;
}

// The subject dumps the case and loads its own message back (loader limit
// 5): `back` is the value, or nullptr with `failed` set by the step that
// failed.
struct OwnRoundtrip {
  OwnRoundtrip(Subject& subject, const TestCase& c) {
    m = dumps_step(subject, c, "dumps", failed);
    if (m) back = loads_step(subject, *m, graph, 5, "loads", failed);
  }
  Outcome failed;
  std::optional<Message> m;
  Graph graph;
  Node* back = nullptr;
};

// Protocol 5 with buffers out of band: what zero-copy needs.
Applicability oob_applies(Subject& subject, CaseDomain domain) {
  const Capabilities caps = subject.capabilities();
  Applicability a;
  a.plan = domain_plan(domain, caps);
  if (!caps.out_of_band || caps.max_protocol < 5) {
    a.skip_reason = "sends no buffer out of band (needs protocol 5 with out_of_band)";
    return a;
  }
  a.plan.min_protocol = 5;
  a.plan.max_protocol = 5;
  a.plan.out_of_band = true;
  return a;
}

Outcome failed_with(Outcome o, const Message& m) {
  o.failing_message = message_to_json(m);
  return o;
}

// ---- tensor.grad ------------------------------------------------------------------

// Strides that place elements: those of dimensions longer than 1, in a
// tensor that has elements (torch and numpy treat the others as free).
bool same_layout_strides(const ArrayParts& a, const ArrayParts& b) {
  if (a.strides.size() != b.strides.size()) return false;
  if (types::tensor_numel(a) == 0) return true;
  for (std::size_t k = 0; k < a.shape.size(); ++k) {
    if (a.shape[k] > 1 && a.strides[k] != b.strides[k]) return false;
  }
  return true;
}

// What differs between two tensors (and their grads, recursively), or "".
// Storage offsets are layout; strides are compared (the property names them).
std::string tensor_difference(const Node* want, const Node* got, const std::string& where,
                              int depth = 0) {
  if (got == nullptr || got->kind != Kind::Tensor || !got->array()) {
    return where + " loads as " + (got ? std::string(kind_name(got->kind)) : "nothing") +
           ", not a tensor";
  }
  const ArrayParts& w = *want->array();
  const ArrayParts& g = *got->array();
  std::string why;
  if (!types::tensor_equal(*want, *got, &why, /*layout=*/false)) return where + ": " + why;
  if (!same_layout_strides(w, g)) {
    return fmt::format("{}: strides [{}] became [{}]", where, fmt::join(w.strides, ", "),
                       fmt::join(g.strides, ", "));
  }
  if ((w.grad == nullptr) != (g.grad == nullptr)) {
    return where + (w.grad ? ": the grad was lost" : ": a grad appeared");
  }
  if (w.grad != nullptr && depth < 4) {
    return tensor_difference(w.grad, g.grad, where + ".grad", depth + 1);
  }
  return {};
}

std::string tensor_fingerprint(const std::string& difference) {
  for (const char* key : {"grad was lost", "requires_grad", "strides", "dtype", "shape", "device",
                          "element", "not a tensor"}) {
    if (difference.find(key) != std::string::npos) {
      std::string k = key;
      std::replace(k.begin(), k.end(), ' ', '-');
      return "tensor:" + k;
    }
  }
  return "tensor:other";
}

Outcome tensor_grad(Subject& subject, const TestCase& c, PropertyEnv&) {
  OwnRoundtrip r(subject, c);
  if (r.back == nullptr) return r.failed;
  const std::string d = tensor_difference(c.value, r.back, "tensor");
  if (d.empty()) return Outcome::pass();
  return failed_with(Outcome::fail(tensor_fingerprint(d), d), *r.m);
}

// ---- module.by-reference -------------------------------------------------------------

Outcome module_by_reference(Subject& subject, const TestCase& c, PropertyEnv&) {
  OwnRoundtrip r(subject, c);
  if (r.back == nullptr) return r.failed;
  // A list of modules, or (shrunk) one module.
  auto modules_of = [](const Node* v) {
    return v->kind == Kind::List ? std::vector<Node*>(v->items.begin(), v->items.end()) : std::vector<Node*>{const_cast<Node*>(v)};
  };
  const std::vector<Node*> want = modules_of(c.value);
  const std::vector<Node*> got = modules_of(r.back);
  if (got.size() != want.size()) {
    return failed_with(Outcome::fail("module:shape", "the list of modules did not come back"),
                       *r.m);
  }
  for (std::size_t i = 0; i < want.size(); ++i) {
    const Node* w = want[i];
    const Node* g = got[i];
    if (w->kind != Kind::Module) continue;  // a shrunk case may hold other values
    if (g->kind != Kind::Module) {
      return failed_with(
          Outcome::fail("module:not-a-module",
                        fmt::format("module {} loads as a {}", w->name(), kind_name(g->kind))),
          *r.m);
    }
    if (g->name() != w->name()) {
      return failed_with(Outcome::fail("module:name", fmt::format("module {} loads as module {}",
                                                                  w->name(), g->name())),
                         *r.m);
    }
    if (g->flag) {
      return failed_with(
          Outcome::fail("module:copy",
                        fmt::format("module {} loads as a new module object, not the one "
                                    "registered under its name",
                                    w->name())),
          *r.m);
    }
    // The same module twice is one object.
    for (std::size_t j = 0; j < i; ++j) {
      if (want[j] == w && got[j] != g) {
        return failed_with(Outcome::fail("module:identity",
                                         fmt::format("module {} loads as two objects", w->name())),
                           *r.m);
      }
    }
  }
  return Outcome::pass();
}

// ---- zerocopy.oob / zerocopy.nested -------------------------------------------------

// The distinct arrays of a value, above the threshold.
std::vector<const Node*> big_arrays(const Node* value) {
  std::vector<const Node*> out;
  for (const Node* n : reachable(value)) {
    if (n->kind != Kind::NDArray || !n->array()) continue;
    if (types::ndarray_bytes(*n).size() >= gen::kZeroCopyThreshold) out.push_back(n);
  }
  return out;
}

// Every big array of `value` is a frame of `m` holding exactly its bytes
// (`aliasing`: the frame lies in the array's memory); "" or what is wrong.
std::string frames_problem(const Node* value, const Message& m, bool aliasing) {
  for (const Node* a : big_arrays(value)) {
    const std::string bytes = types::ndarray_bytes(*a);
    bool own_frame = false;
    bool aliased = false;
    for (const Frame& f : m.frames) {
      if (f.on_device() || f.view() != bytes) continue;
      own_frame = true;
      aliased = aliased || families::frame_aliases(f, *a);
    }
    const auto shape = a->array()->shape;
    if (!own_frame) {
      return fmt::format("a {} array of shape ({}) ({} bytes) is not a frame of its own", a->array()->dtype,
                         fmt::join(shape, ", "), bytes.size());
    }
    if (aliasing && !aliased) {
      return fmt::format("the frame of a {} array of {} bytes is a copy, not the array's memory",
                         a->array()->dtype, bytes.size());
    }
  }
  return {};
}

// The loaded arrays borrow the frames (the reference's loads).
std::string borrow_problem(const Node* back, const Message& m) {
  for (const Node* a : big_arrays(back)) {
    bool borrows = false;
    for (const Frame& f : m.frames) borrows = borrows || families::node_borrows(*a, f);
    if (!borrows) {
      return fmt::format("a loaded {} array of {} bytes is a copy, not a view of its frame",
                         a->array()->dtype, types::ndarray_bytes(*a).size());
    }
  }
  return {};
}

// The reference's families (dask, then pickle): the walk puts every array
// in its own frame without a copy, and loading copies none.
Outcome families_zero_copy(const TestCase& c) {
  families::SerializeOptions so;
  Message m = families::serialize(c.value, so);
  if (m.header.value("serializer", "") == "error") {
    return Outcome::fail("exception:unserializable@families-dumps",
                         "the dask and pickle families could not serialize the value");
  }
  if (auto copied = families::copied_on_serialize(c.value, m); !copied.empty()) {
    return failed_with(Outcome::fail("zerocopy:copied@families-dumps",
                                     fmt::format("{} data node(s) copied by serialize(), first a {}",
                                                 copied.size(), kind_name(copied[0]->kind))),
                       m);
  }
  Graph graph;
  Node* back = families::deserialize(m, graph);
  if (auto copied = families::copied_on_deserialize(back, m); !copied.empty()) {
    return failed_with(Outcome::fail("zerocopy:copied@families-loads",
                                     fmt::format("{} data node(s) copied by deserialize(), first a {}",
                                                 copied.size(), kind_name(copied[0]->kind))),
                       m);
  }
  EqualOptions loose;
  loose.immutable_sharing = false;
  Difference d;
  if (!same_value(c.value, back, false, &d, loose)) {
    return failed_with(mismatch_outcome(d, "families", c.value, back, "serialized", "deserialized"),
                       m);
  }
  return Outcome::pass();
}

Outcome zero_copy(Subject& subject, const TestCase& c, PropertyEnv&) {
  Outcome failed;
  auto m = dumps_step(subject, c, "dumps", failed);
  if (!m) return failed;
  const bool reference = is_reference(subject);
  if (std::string p = frames_problem(c.value, *m, reference); !p.empty()) {
    return failed_with(Outcome::fail(reference && p.find("copy") != std::string::npos
                                         ? "zerocopy:copied@dumps"
                                         : "zerocopy:no-frame@dumps",
                                     p),
                       *m);
  }
  Graph graph;
  Node* back = loads_step(subject, *m, graph, 5, "loads", failed);
  if (back == nullptr) return failed;
  Difference d;
  if (!same_value(c.value, back, through_python(subject), &d)) {
    return failed_with(mismatch_outcome(d, "", c.value, back, "dumped", "loaded"), *m);
  }
  if (reference) {
    if (std::string p = borrow_problem(back, *m); !p.empty()) {
      return failed_with(Outcome::fail("zerocopy:copied@loads", p), *m);
    }
    return families_zero_copy(c);
  }
  return Outcome::pass();
}

// ---- zerocopy.device ----------------------------------------------------------------

// A property of the serialization families: it runs on the subject's own
// family registry (Subject::family_registry), at protocol 5, and needs
// `family` in it; other subjects skip it.
Applicability families_apply(Subject& subject, CaseDomain domain, const char* family) {
  Applicability a;
  a.plan = domain_plan(domain, subject.capabilities());
  a.plan.min_protocol = a.plan.max_protocol = 5;
  const families::FamilyRegistry* registry = subject.family_registry();
  if (registry == nullptr) {
    a.skip_reason =
        "has no serialization families in this process for the harness to call (only the "
        "reference and its mutants do)";
  } else if (registry->find(family) == nullptr) {
    a.skip_reason = fmt::format("its families have no \"{}\" family", family);
  }
  return a;
}

Applicability device_applies(Subject& subject) {
  return families_apply(subject, CaseDomain::DeviceBuffers, "cuda");
}

// failed_with() for a message with device frames, which the case report
// holds as host bytes: read back with counted copies, after the counters
// were read.
Outcome failed_with_host_frames(Outcome o, const Message& m) {
  Message host;
  host.header = m.header;
  for (const Frame& f : m.frames) host.frames.push_back(to_host(f));
  return failed_with(std::move(o), host);
}

Outcome zero_copy_device(Subject& subject, const TestCase& c, PropertyEnv&) {
  const families::FamilyRegistry& registry = *subject.family_registry();
  std::vector<const Node*> buffers;
  for (const Node* n : reachable(c.value)) {
    if (n->kind == Kind::DeviceBuffer && n->device()) buffers.push_back(n);
  }
  if (buffers.empty()) return Outcome::discard("the value holds no device buffer");
  device::Device& dev = buffers.front()->device()->device();
  const device::CopyCounters before = dev.counters();
  families::SerializeOptions so;
  so.serializers = {"cuda", "dask", "pickle"};
  Message m = families::serialize(c.value, so, registry);
  Graph graph;
  Node* back = families::deserialize(m, graph, {}, registry);
  const device::CopyCounters after = dev.counters();
  if (after.host_to_device != before.host_to_device ||
      after.device_to_host != before.device_to_host) {
    return failed_with_host_frames(
        Outcome::fail("zerocopy:device-copy",
                      fmt::format("serialize then deserialize copied {} time(s) device->host and "
                                  "{} time(s) host->device",
                                  after.device_to_host - before.device_to_host,
                                  after.host_to_device - before.host_to_device)),
        m);
  }
  if (auto copied = families::copied_on_deserialize(back, m); !copied.empty()) {
    return failed_with_host_frames(
        Outcome::fail("zerocopy:copied@loads",
                      "a loaded device buffer is not the frame's allocation"),
        m);
  }
  Difference d;
  EqualOptions loose;
  loose.immutable_sharing = false;
  if (!same_value(c.value, back, false, &d, loose)) {
    return failed_with_host_frames(
        mismatch_outcome(d, "", c.value, back, "serialized", "deserialized"), m);
  }
  return Outcome::pass();
}

// ---- header.sub-header-intact ----------------------------------------------------------

// numpy's dtype.str for a torch dtype, or nullptr when numpy has none.
const char* numpy_dtype_of(const std::string& torch) {
  const types::TorchDtype* d = types::find_torch_dtype(torch);
  return d != nullptr && !d->numpy.empty() ? d->numpy.data() : nullptr;
}

// Tensor.numpy(): the same memory, strides in bytes.
Node* numpy_view(const Node& t, Graph& g) {
  const char* dtype = numpy_dtype_of(t.array()->dtype);
  const auto dt = types::parse_numeric_dtype(dtype);
  Node* v = g.ndarray();
  ArrayParts& p = *v->array();
  p.dtype = dtype;
  p.shape = t.array()->shape;
  for (std::int64_t s : t.array()->strides) p.strides.push_back(s * dt->itemsize);
  p.offset = t.array()->offset * dt->itemsize;
  p.writeable = true;
  v->set_borrowed(t.payload().data(), t.payload().size());
  return v;
}

// What distributed's torch serializer can send: t.numpy() and t.grad.numpy()
// (numpy has the dtype; a grad that requires grad has no numpy()).
bool dask_can_send(const Node* t) {
  if (numpy_dtype_of(t->array()->dtype) == nullptr) return false;
  const Node* g = t->array()->grad;
  if (g == nullptr) return true;
  return numpy_dtype_of(g->array()->dtype) != nullptr && !g->array()->requires_grad &&
         g->array()->grad == nullptr;
}

Applicability subheader_applies(Subject& subject) {
  const Capabilities caps = subject.capabilities();
  Applicability a;
  a.plan = domain_plan(CaseDomain::Tensor, caps);
  a.plan.min_protocol = a.plan.max_protocol = std::min(5, caps.max_protocol);
  const bool dask = is_reference(subject) || std::find(caps.families.begin(), caps.families.end(),
                                                       "dask") != caps.families.end();
  if (!dask) a.skip_reason = "has no dask family that wraps another family's header";
  return a;
}

// The header `subject` (or the reference's families) writes for `value`.
std::optional<Message> header_dumps(Subject& subject, const Node* value, int protocol,
                                    Outcome& failed) {
  if (is_reference(subject)) {
    families::SerializeOptions so;
    so.protocol = protocol;
    return families::serialize(value, so);
  }
  TestCase c;
  c.value = value;
  c.protocol = protocol;
  c.out_of_band = true;
  return dumps_step(subject, c, "dumps", failed);
}

Outcome subheader_intact(Subject& subject, const TestCase& c, PropertyEnv&) {
  if (!dask_can_send(c.value)) {
    return Outcome::discard(
        "the dask family cannot send this tensor (no numpy dtype, or a grad that requires "
        "grad); it goes to the pickle family");
  }
  if (types::tensor_numel(*c.value->array()) == 0) {
    // Its strides are arbitrary: the numpy view made here and torch's own
    // .numpy() may disagree on them without any family being wrong.
    return Outcome::discard("an empty tensor's strides are arbitrary");
  }
  Outcome failed;
  auto whole = header_dumps(subject, c.value, c.protocol, failed);
  if (!whole) return failed;
  // dask's wrapper {"serializer": "dask", "type": "torch.Tensor", "sub-header":
  // <the torch serializer's header>}; that header nests the array's whole
  // header under its own "sub-header", and the grad's under "grad".
  const nlohmann::json& h = whole->header;
  if (h.value("serializer", "") != "dask" || !h.contains("sub-header") ||
      !h["sub-header"].is_object()) {
    return failed_with(Outcome::fail("header:not-dask",
                                     "the tensor was not serialized by the dask family"),
                       *whole);
  }
  const nlohmann::json& t = h["sub-header"];
  Graph scratch;
  auto inner = header_dumps(subject, numpy_view(*c.value, scratch), c.protocol, failed);
  if (!inner) return failed;
  if (!t.contains("sub-header")) {
    return failed_with(Outcome::fail("header:no-sub-header",
                                     "the tensor's header does not nest the array's header "
                                     "under \"sub-header\""),
                       *whole);
  }
  if (t["sub-header"] != inner->header) {
    return failed_with(
        Outcome::fail("header:sub-header-changed",
                      "the tensor's \"sub-header\" differs from the header the array gets alone",
                      "sub-header: " + header_to_text_json(t["sub-header"]).dump() +
                          "\nalone:      " + header_to_text_json(inner->header).dump()),
        *whole);
  }
  if (const Node* grad = c.value->array()->grad) {
    auto g = header_dumps(subject, numpy_view(*grad, scratch), c.protocol, failed);
    if (!g) return failed;
    if (!t.contains("grad") || !t["grad"].is_object() || !t["grad"].contains("header")) {
      return failed_with(Outcome::fail("header:no-grad-header",
                                       "the tensor has a grad and its header has no "
                                       "\"grad\" with a \"header\""),
                         *whole);
    }
    if (t["grad"]["header"] != g->header) {
      return failed_with(Outcome::fail("header:grad-header-changed",
                                       "the grad's header differs from the one it gets alone",
                                       "grad: " + header_to_text_json(t["grad"]["header"]).dump() +
                                           "\nalone: " + header_to_text_json(g->header).dump()),
                         *whole);
    }
  }
  return Outcome::pass();
}

// ---- protocol.negotiated -------------------------------------------------------------

Applicability negotiated_applies(Subject& subject) {
  // Negotiation is an option of the families' serialize(), which Python
  // subjects do not expose (distributed's serialize() always writes its own
  // highest protocol; the picklers write the protocol they are given).
  Applicability a = families_apply(subject, CaseDomain::NestedArrays, "pickle");
  a.plan.lower_loader = true;  // the peer's highest protocol, 0 to 4
  return a;
}

Outcome negotiated(Subject& subject, const TestCase& c, PropertyEnv&) {
  const families::FamilyRegistry& registry = *subject.family_registry();
  const int peer = c.max_protocol;
  families::SerializeOptions so;
  so.serializers = {"pickle"};
  so.peer_max_protocol = peer;
  Message m = families::serialize(c.value, so, registry);
  if (m.header.value("pickle-protocol", -1) != peer) {
    return failed_with(Outcome::fail("negotiate:header",
                                     fmt::format("the header records protocol {}, the peer "
                                                 "reads up to {}",
                                                 m.header.value("pickle-protocol", -1), peer)),
                       m);
  }
  const std::string_view pickle = m.frames.empty() ? std::string_view() : m.frames[0].view();
  const int written = pickle.size() >= 2 && static_cast<unsigned char>(pickle[0]) == 0x80
                          ? static_cast<unsigned char>(pickle[1])
                          : 0;
  if (written > peer) {
    return failed_with(Outcome::fail("negotiate:protocol",
                                     fmt::format("wrote protocol {} for a peer that reads up to {}",
                                                 written, peer)),
                       m);
  }
  if (m.frames.size() != 1) {
    return failed_with(Outcome::fail("negotiate:out-of-band",
                                     fmt::format("{} buffer frames for a peer below protocol 5",
                                                 m.frames.size() - 1)),
                       m);
  }
  families::DeserializeOptions lo;
  lo.max_protocol = peer;
  Graph graph;
  Node* back = families::deserialize(m, graph, lo, registry);
  Difference d;
  if (!same_value(c.value, back, false, &d)) {
    return failed_with(mismatch_outcome(d, "peer", c.value, back, "serialized", "loaded by peer"),
                       m);
  }
  return Outcome::pass();
}

// ---- wire.distributed ---------------------------------------------------------------

Applicability wire_applies(Subject& subject, PropertyEnv& env) {
  Applicability a = families_apply(subject, CaseDomain::Wire, "pickle");
  a.plan.python_safe = true;
  if (!a.skip_reason.empty()) return a;
  std::string why;
  if (env.subject(kDistributed, &why) == nullptr) {
    a.skip_reason = "needs the distributed subject: " + why;
  }
  return a;
}

// The same message as a transport may hand it over: the same bytes, with
// each host frame's writability flipped (distributed's TCP comm gives
// writable frames whatever the sender had; other comms give the sender's
// read-only bytes). Only the header says which buffers were writable.
Message with_writability_flipped(const Message& m) {
  Message out;
  out.header = m.header;
  for (const Frame& f : m.frames) {
    out.frames.push_back(f.on_device() ? f : Frame::owned(std::string(f.view()), !f.readonly));
  }
  return out;
}

// The first array or pickle buffer whose writability differs between two
// loads of one message (`a` from the frames as written, `b` from them
// flipped), or "".
std::string writability_difference(const Node* a, const Node* b) {
  const std::vector<const Node*> ra = reachable(a);
  const std::vector<const Node*> rb = reachable(b);
  for (std::size_t i = 0; i < ra.size() && i < rb.size(); ++i) {
    const Node* x = ra[i];
    const Node* y = rb[i];
    if (x->kind != y->kind) return {};  // not the same shape: equality says so
    // What the loaded objects are, whether the stream or the memory a loader
    // was given made them read-only.
    auto loads = [](const Node* n) { return loaded_readonly(*n) ? "read-only" : "writable"; };
    if (x->kind == Kind::NDArray && x->array() && y->array() &&
        loaded_readonly(*x) != loaded_readonly(*y)) {
      return fmt::format(
          "a {} array of shape ({}) loads {} from the frames as written and {} from the same "
          "frames with their writability flipped: the header does not say which buffers are "
          "writable",
          x->array()->dtype, fmt::join(x->array()->shape, ", "), loads(x), loads(y));
    }
    if (x->kind == Kind::PickleBuffer && loaded_readonly(*x) != loaded_readonly(*y)) {
      return fmt::format(
          "a pickle buffer of {} bytes loads {} from the frames as written and {} from the same "
          "frames with their writability flipped: the header does not say which buffers are "
          "writable",
          x->payload().size(), loads(x), loads(y));
    }
  }
  return {};
}

// `ours` loads in distributed to the original value, and the writability
// of its buffers comes from the header, not from how the frames arrive.
Outcome loads_in_distributed(Subject& dist, const TestCase& c, const Message& ours,
                             const EqualOptions& numpy_view) {
  Outcome failed;
  Graph g1;
  Node* back = loads_step(dist, ours, g1, 5, "distributed-loads", failed);
  if (back == nullptr) return failed;
  Difference d;
  if (!same_value(c.value, back, true, &d, numpy_view)) {
    return failed_with(mismatch_outcome(d, "distributed-loads", c.value, back,
                                        "serialized by the subject", "loaded by distributed"),
                       ours);
  }
  const Message flipped = with_writability_flipped(ours);
  Graph g2;
  Node* again = loads_step(dist, flipped, g2, 5, "distributed-loads", failed);
  if (again == nullptr) return failed;
  if (!same_value(back, again, true, &d, numpy_view)) {
    return failed_with(
        mismatch_outcome(d, "distributed-loads", back, again, "loaded from the frames as written",
                         "loaded from the frames with writability flipped"),
        ours);
  }
  if (std::string w = writability_difference(back, again); !w.empty()) {
    return failed_with(Outcome::fail("wire:writeable@distributed-loads", w), ours);
  }
  return Outcome::pass();
}

// How a value compares after distributed carried it: a tensor arrives as
// its numpy view, and immutable values need not stay shared.
EqualOptions distributed_view() {
  EqualOptions o;
  o.tensor_layout = false;
  o.immutable_sharing = false;
  return o;
}

Outcome wire_distributed(Subject& subject, const TestCase& c, PropertyEnv& env) {
  Subject* dist = env.subject(kDistributed, nullptr);
  if (dist == nullptr) return Outcome::discard("the distributed subject is not available");
  const families::FamilyRegistry& registry = *subject.family_registry();
  const EqualOptions numpy_view = distributed_view();
  // The subject's messages load in distributed: with the default families
  // (dask, then pickle), and with the pickle family alone (distributed's
  // serialize(x, serializers=["pickle"])), whose header says which
  // out-of-band buffers are writable.
  for (const std::vector<std::string>& serializers :
       {std::vector<std::string>{"dask", "pickle"}, std::vector<std::string>{"pickle"}}) {
    families::SerializeOptions so;
    so.serializers = serializers;
    Message ours = families::serialize(c.value, so, registry);
    if (Outcome o = loads_in_distributed(*dist, c, ours, numpy_view); o.failed()) return o;
  }
  // distributed's message loads in the subject.
  Outcome failed;
  TestCase dc = c;
  dc.out_of_band = true;
  auto theirs = dumps_step(*dist, dc, "distributed-dumps", failed);
  if (!theirs) {
    // Not a wire question: distributed cannot send this value at all (a
    // tensor whose grad requires grad); tensor.grad on distributed says so.
    return Outcome::discard("distributed cannot serialize this value: " + failed.message);
  }
  // Compared with what distributed itself loads from it: where distributed
  // changes a value (an array twice becomes two arrays), zerocopy.nested on
  // distributed says so; the wire question is whether both sides read the
  // same message the same way.
  Graph g3;
  Node* theirs_back = loads_step(*dist, *theirs, g3, 5, "distributed-loads-own", failed);
  if (theirs_back == nullptr) return failed;
  Graph g2;
  Node* ours_back = nullptr;
  try {
    ours_back = families::deserialize(*theirs, g2, {}, registry);
  } catch (const std::exception& e) {
    return failed_with(exception_outcome(e, "reference-loads"), *theirs);
  }
  Difference d;
  if (!same_value(theirs_back, ours_back, true, &d, numpy_view)) {
    return failed_with(mismatch_outcome(d, "reference-loads", theirs_back, ours_back,
                                        "loaded by distributed", "loaded by the subject"),
                       *theirs);
  }
  return Outcome::pass();
}

// ---- wire.packed --------------------------------------------------------------------

// None, and each codec both sides have. distributed also knows zlib (and
// snappy where it is installed), which the reference does not read:
// unpack_message refuses them as unsupported-compression.
constexpr Compression kPackedCodecs[] = {Compression::None, Compression::Lz4, Compression::Zstd};

Applicability packed_applies(Subject& subject, PropertyEnv& env) {
  Applicability a = families_apply(subject, CaseDomain::Packed, "pickle");
  a.plan.python_safe = true;
  if (!a.skip_reason.empty()) return a;
  if (!subject.capabilities().packs_messages) {
    a.skip_reason = "packs no messages into one byte string (no packs_messages capability)";
    return a;
  }
  std::string why;
  if (env.subject(kDistributed, &why) == nullptr) {
    a.skip_reason = "needs the distributed subject: " + why;
  }
  return a;
}

// The first byte where two strings differ (the shorter one's size when one
// is a prefix of the other).
std::size_t first_difference(std::string_view a, std::string_view b) {
  const auto [x, y] = std::mismatch(a.begin(), a.end(), b.begin(), b.end());
  return static_cast<std::size_t>(x - a.begin());
}

std::string codec_text(const nlohmann::json& entry) {
  return entry.is_string() ? entry.get<std::string>() : "none";
}

// The subject's packing of distributed's message (`ours`) against
// distributed's own bytes (`theirs`), packed with the same codec: the same
// frames, the same header apart from the order of its keys (the reference
// writes them sorted, docs/frames.md), and each frame compressed or sent as
// is as distributed did, to the same bytes where both codec libraries are
// of one version. distributed decides on random samples of a frame where
// the subject decides on the whole frame, so a frame in the compression
// window that distributed sent as is may be compressed by the subject: then
// it must decompress to distributed's frame.
Outcome compare_packed(const PackedBytes& ours, const PackedBytes& theirs, Compression codec) {
  constexpr std::string_view kStage = "@packed-bytes";
  const std::string name(compression_name(codec));
  std::vector<Frame> a;
  nlohmann::json ha;
  try {
    a = unpack_frames(byte_span(ours.bytes));
    if (a.empty()) throw FrameError(FrameErrorKind::HeaderSchema, "no header frame", 0);
    ha = decode_header(a[0].bytes());
  } catch (const std::exception& e) {
    return Outcome::fail(fmt::format("wire:packed-layout{}", kStage),
                         fmt::format("the subject's {} packing of distributed's message is not "
                                     "a packed message: {}",
                                     name, e.what()));
  }
  const std::vector<Frame> b = unpack_frames(byte_span(theirs.bytes));
  const nlohmann::json hb = decode_header(b.at(0).bytes());
  if (a.size() != b.size()) {
    return Outcome::fail(fmt::format("wire:packed-frames{}", kStage),
                         fmt::format("packed with {}, the subject writes {} frames after the "
                                     "header and distributed {}",
                                     name, a.size() - 1, b.size() - 1));
  }
  // Every key but "compression", by value, in key order.
  std::set<std::string> keys;
  if (ha.is_object()) {
    for (const auto& [k, v] : ha.items()) keys.insert(k);
  }
  if (hb.is_object()) {
    for (const auto& [k, v] : hb.items()) keys.insert(k);
  }
  for (const std::string& k : keys) {
    if (k == "compression") continue;
    const bool in_a = ha.contains(k);
    const bool in_b = hb.contains(k);
    if (in_a && in_b && ha[k] == hb[k]) continue;
    return Outcome::fail(
        fmt::format("wire:packed-header{}", kStage),
        fmt::format("packed with {}, header key \"{}\" is {} in the subject's and {} in "
                    "distributed's",
                    name, k, in_a ? header_to_text_json(ha[k]).dump() : "missing",
                    in_b ? header_to_text_json(hb[k]).dump() : "missing"));
  }
  const auto entries = [&](const nlohmann::json& h) -> const nlohmann::json* {
    const auto it = h.find("compression");
    return it != h.end() && it->is_array() && it->size() + 1 == a.size() ? &*it : nullptr;
  };
  const nlohmann::json* ca = entries(ha);
  const nlohmann::json* cb = entries(hb);
  if (ca == nullptr || cb == nullptr) {
    return Outcome::fail(fmt::format("wire:packed-header{}", kStage),
                         fmt::format("packed with {}, the {} header has no \"compression\" "
                                     "array of one entry per frame",
                                     name, ca == nullptr ? "subject's" : "distributed's"));
  }
  const CompressionOptions window;  // distributed's maybe_compress window and ratio
  for (std::size_t i = 1; i < a.size(); ++i) {
    const nlohmann::json& ea = (*ca)[i - 1];
    const nlohmann::json& eb = (*cb)[i - 1];
    const std::size_t at = static_cast<std::size_t>(a[i].data - byte_span(ours.bytes).data());
    const std::size_t plain_size = b[i].size;
    if (codec_text(ea) == codec_text(eb)) {
      if (!ea.is_string() || ours.codec_version == theirs.codec_version) {
        if (a[i].view() != b[i].view()) {
          const std::size_t k = first_difference(a[i].view(), b[i].view());
          return Outcome::fail(
              fmt::format("wire:packed-frame{}", kStage),
              fmt::format("packed with {}, frame {} ({}; {} bytes in the subject's, {} in "
                          "distributed's) first differs at byte {} (byte {} of the packed "
                          "message)",
                          name, i, codec_text(ea), a[i].size, b[i].size, k, at + k));
        }
      }
      continue;
    }
    // Sent as is by distributed, compressed by the subject: distributed's
    // samples said no where the whole frame says yes.
    if (ea.is_string() && !eb.is_string() && ea.get<std::string>() == name &&
        plain_size >= window.min_size && plain_size <= window.max_size) {
      std::string plain;
      try {
        plain = decompress_frame(codec, a[i].bytes(), plain_size, i);
      } catch (const std::exception&) {
        plain.clear();
      }
      if (plain == b[i].view()) continue;
      return Outcome::fail(fmt::format("wire:packed-compression{}", kStage),
                           fmt::format("packed with {}, frame {} is marked {} in the subject's "
                                       "header but does not decompress to distributed's frame "
                                       "of {} bytes",
                                       name, i, codec_text(ea), plain_size));
    }
    return Outcome::fail(
        fmt::format("wire:packed-compression{}", kStage),
        fmt::format("packed with {}, frame {} is marked {} in the subject's header and {} in "
                    "distributed's ({} bytes as distributed sends it)",
                    name, i, codec_text(ea), codec_text(eb), b[i].size));
  }
  return Outcome::pass();
}

Outcome wire_packed(Subject& subject, const TestCase& c, PropertyEnv& env) {
  Subject* dist = env.subject(kDistributed, nullptr);
  if (dist == nullptr) return Outcome::discard("the distributed subject is not available");
  const families::FamilyRegistry& registry = *subject.family_registry();
  const EqualOptions numpy_view = distributed_view();
  for (const Compression codec : kPackedCodecs) {
    const std::string name(compression_name(codec));
    // distributed packs the value; the subject reads it, and packs the
    // message it read again.
    PackedBytes theirs;
    try {
      theirs = dist->dumps_packed(c.value, codec);
    } catch (const std::exception& e) {
      // Not a packing question: distributed cannot send this value at all
      // (a tensor whose grad requires grad; tensor.grad says so).
      return Outcome::discard(std::string("distributed cannot serialize this value: ") + e.what());
    }
    Graph g1;
    Node* theirs_back = nullptr;
    try {
      theirs_back = dist->loads_packed(byte_span(theirs.bytes), g1);
    } catch (const std::exception& e) {
      return exception_outcome(e, "distributed-loads-own-packed");
    }
    Message read;
    Graph g2;
    Node* ours_back = nullptr;
    try {
      read = subject.unpack(byte_span(theirs.bytes));
      ours_back = families::deserialize(read, g2, {}, registry);
    } catch (const std::exception& e) {
      Outcome o = exception_outcome(e, "reference-loads-packed");
      o.message = "distributed's message packed with " + name + ": " + o.message;
      return o;
    }
    Difference d;
    if (!same_value(theirs_back, ours_back, true, &d, numpy_view)) {
      return failed_with(
          mismatch_outcome(d, "reference-loads-packed", theirs_back, ours_back,
                           "loaded by distributed", "unpacked and loaded by the subject"),
          read);
    }
    PackedBytes again;
    try {
      again = subject.pack(read, codec);
    } catch (const std::exception& e) {
      return failed_with(exception_outcome(e, "reference-packs"), read);
    }
    if (Outcome o = compare_packed(again, theirs, codec); o.failed()) {
      return failed_with(std::move(o), read);
    }
    // The subject packs its own message; distributed reads it.
    families::SerializeOptions so;
    so.serializers = {"dask", "pickle"};
    const Message ours = families::serialize(c.value, so, registry);
    PackedBytes packed;
    try {
      packed = subject.pack(ours, codec);
    } catch (const std::exception& e) {
      return failed_with(exception_outcome(e, "reference-packs"), ours);
    }
    Graph g3;
    Node* back = nullptr;
    try {
      back = dist->loads_packed(byte_span(packed.bytes), g3);
    } catch (const std::exception& e) {
      Outcome o = exception_outcome(e, "distributed-loads-packed");
      o.message = "the subject's message packed with " + name + ": " + o.message;
      return failed_with(std::move(o), ours);
    }
    if (!same_value(c.value, back, true, &d, numpy_view)) {
      return failed_with(
          mismatch_outcome(d, "distributed-loads-packed", c.value, back,
                           "serialized by the subject", "unpacked and loaded by distributed"),
          ours);
    }
  }
  return Outcome::pass();
}

Applicability everyone(Subject& subject, CaseDomain domain) {
  Applicability a;
  a.plan = domain_plan(domain, subject.capabilities());
  return a;
}

}  // namespace

void add_domain_properties(Registry& out) {
  add(out, 80,
      {"tensor.grad", "a tensor's values, dtype, shape, strides, requires_grad and grad survive",
       [](Subject& s, PropertyEnv&) { return everyone(s, CaseDomain::Tensor); }, tensor_grad},
      {control("drops-grad", "loads tensors without their grad", "tensor:grad-was-lost")});
  add(out, 90,
      {"module.by-reference",
       "modules, ModuleType subclasses included, load as the very module registered "
       "under their name",
       [](Subject& s, PropertyEnv&) { return everyone(s, CaseDomain::Module); },
       module_by_reference},
      {control("copies-modules",
               "loads a module as a new module object instead of the one registered under its name",
               "module:copy")});
  add(out, 100,
      {"zerocopy.oob",
       "an array above the threshold becomes a frame of its own (on the reference: "
       "aliasing the array, and the loaded array aliases the frame)",
       [](Subject& s, PropertyEnv&) { return oob_applies(s, CaseDomain::BigArray); }, zero_copy},
      {control("copies-buffers", "copies every out-of-band buffer into a frame of its own memory",
               "zerocopy:copied@dumps")});
  add(out, 110,
      {"zerocopy.nested",
       "the same for arrays at any depth and position in lists, tuples and dicts",
       [](Subject& s, PropertyEnv&) { return oob_applies(s, CaseDomain::NestedArrays); },
       zero_copy},
      {control("first-item-only",
               "sends buffers out of band only when the value, or a collection's first item, is an "
               "array (dask's old walk)",
               "zerocopy:no-frame@dumps")});
  add(out, 120,
      {"zerocopy.device", "device buffers travel with no device-to-host or host-to-device copy",
       [](Subject& s, PropertyEnv&) { return device_applies(s); }, zero_copy_device},
      {control("cuda-through-host",
               "its cuda family stages every device buffer through host memory (one device-to-host "
               "and one host-to-device copy)",
               "zerocopy:device-copy")});
  add(out, 130,
      {"header.sub-header-intact",
       "a wrapping family nests the inner header under sub-header, unchanged",
       [](Subject& s, PropertyEnv&) { return subheader_applies(s); }, subheader_intact},
      {control("clobbers-sub-header",
               "the tensor serializer writes its own \"type\" into the array's header it nests",
               "header:sub-header-changed")});
  add(out, 140,
      {"protocol.negotiated",
       "a peer's highest protocol makes the pickle family write at most that protocol, "
       "buffers in band, and record it",
       [](Subject& s, PropertyEnv&) { return negotiated_applies(s); }, negotiated},
      {control("ignores-peer-protocol",
               "its pickle family records the negotiated protocol but writes the pickle at its own "
               "(protocol 5 to a peer that reads up to 4)",
               "negotiate:protocol")});
  add(out, 150,
      {"wire.distributed",
       "the subject's family messages load in distributed, and distributed's in the "
       "subject's families, to equal values; the header decides which buffers are "
       "writable",
       wire_applies, wire_distributed},
      {peer_control("distributed-drops-grad", "distributed",
                    "a distributed stand-in that loads tensors without their grad", "mismatch:"),
       control("drops-writeable",
               "its pickle family leaves \"writeable\" out of the header, so a loader takes the "
               "buffers' writability from however the frames arrive",
               "wire:writeable@distributed-loads")});
  add(out, 160,
      {"wire.packed",
       "messages packed into one byte string (distributed's serialize_bytes layout), with no "
       "compression and with each codec both sides have, read the same on both sides; the "
       "subject packs distributed's message to distributed's frames and compression entries",
       packed_applies, wire_packed},
      {control("swaps-compression",
               "its packing swaps the \"compression\" entries of a compressed frame and a frame "
               "sent as is",
               "wire:packed-compression@packed-bytes")});
}

}  // namespace serialcheck::props
