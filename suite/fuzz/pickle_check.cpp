#include "suite/fuzz/pickle_check.h"

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>
#include <string_view>
#include <typeinfo>
#include <unordered_set>

#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/extension.h"
#include "reference/value/equal.h"

namespace serialcheck::fuzz {
namespace {

[[noreturn]] void finding(const std::string& stage, const std::string& message) {
  std::fprintf(stderr, "serialcheck-fuzz: %s: %s\n", stage.c_str(), message.c_str());
  std::fflush(stderr);
  std::abort();
}

std::string describe(const std::exception& e) {
  return std::string(typeid(e).name()) + ": " + e.what();
}

std::string describe(const pickle::PickleError& e) {
  return std::string(pickle::error_kind_name(e.kind())) + " at " + std::to_string(e.offset()) +
         ": " + e.detail();
}

// Protocol 0 writes a float as repr() text, and every NaN's repr is "nan":
// the sign and payload bits of a NaN cannot survive it (in CPython either).
// Before the protocol 0 round trip, NaNs become the NaN that "nan" reads as.
void canonicalize_nans(Graph& graph) {
  static const double nan_from_text = [] {
    Graph g;
    return pickle::decode(std::string_view("Fnan\n."), g).root->f;
  }();
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.node(i);
    if (n.kind == Kind::Float && std::isnan(n.f)) n.f = nan_from_text;
  }
}

// The pickler never memoizes a persistent id: it asks persistent_id at every
// reference and writes the pid each time, so a persistent-load result the
// input shares (PERSID, PUT, then GET) comes back as one persistent id per
// reference, all with the same pid object. Nor does it memoize a global it
// writes as EXT (an extension reference, reference/pickle/extension.h). The
// input's value is made so before it is compared: every reference to a
// persistent id or an extension reference after the first gets its own node.
void unshare_unmemoized(Graph& graph) {
  std::unordered_set<const Node*> seen;
  auto visit = [&](Node*& slot) {
    if (slot == nullptr) return;
    const bool persid = slot->kind == Kind::PersId;
    const std::int64_t code = persid ? 0 : pickle::extension_code(slot);
    if (!persid && code == 0) return;
    if (seen.insert(slot).second) return;
    Node* fresh = persid ? graph.make(Kind::PersId) : pickle::extension_ref(graph, code);
    if (persid) fresh->items = slot->items;
    seen.insert(fresh);
    slot = fresh;
  };
  visit(graph.root);
  const std::size_t count = graph.size();  // nodes made here need no visit
  for (std::size_t i = 0; i < count; ++i) {
    Node& n = graph.node(i);
    for (Node*& c : n.items) visit(c);
    if (n.obj()) {
      visit(n.obj()->callable);
      visit(n.obj()->args);
      visit(n.obj()->state);
      visit(n.obj()->state_setter);
      for (Node*& c : n.obj()->listitems) visit(c);
      for (auto& [k, v] : n.obj()->dictitems) {
        visit(k);
        visit(v);
      }
    }
    if (n.array()) visit(n.array()->grad);
  }
}

// The check encodes without a buffer callback, so every PickleBuffer goes
// in band: a read-only one as bytes, a writable one as a bytearray, which is
// what it reads back as (in CPython too). The decoder makes one where
// READONLY_BUFFER meets an ordinary object (bytearray() from a REDUCE...).
void buffers_in_band(Graph& graph) {
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.node(i);
    if (n.kind != Kind::PickleBuffer) continue;
    n.kind = n.flag ? Kind::Bytes : Kind::ByteArray;
    n.flag = false;
  }
}

bool is_global(const Node* n, std::string_view module, std::string_view qualname) {
  return n != nullptr && n->kind == Kind::Global && n->payload() == module && n->name() == qualname;
}

// Below protocol 4 CPython writes a dotted global (a nested class) as
// getattr(parent, "name"), and the decoder, which never calls anything, reads
// that back as the call. Such calls become the dotted global again, in place
// (so sharing is kept), innermost first: nodes are made in stream order.
void fold_getattr_globals(Graph& graph) {
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.node(i);
    if (n.kind != Kind::Object || !n.obj()) continue;
    const ObjectParts& o = *n.obj();
    if (!is_global(o.callable, "builtins", "getattr") || o.args == nullptr ||
        o.args->kind != Kind::Tuple || o.args->items.size() != 2 || o.state != nullptr ||
        o.state_setter != nullptr || !o.listitems.empty() || !o.dictitems.empty()) {
      continue;
    }
    const Node* parent = o.args->items[0];
    const Node* attr = o.args->items[1];
    if (parent == nullptr || parent->kind != Kind::Global || attr == nullptr ||
        attr->kind != Kind::Str) {
      continue;
    }
    std::string module(parent->payload());
    std::string qualname = parent->name() + "." + std::string(attr->payload());
    n.set_obj(nullptr);
    n.kind = Kind::Global;
    n.set_owned(std::move(module));
    n.set_name(std::move(qualname));
  }
}

// Protocol 0 writes a persistent id as the text str(pid) (PERSID), as
// CPython does, so an int, bool or float pid reads back as that str. The
// text is the encoder's own for the pid alone; a pid it refuses stays.
void stringify_protocol0_pids(Graph& graph) {
  const std::size_t count = graph.size();
  for (std::size_t i = 0; i < count; ++i) {
    Node& n = graph.node(i);
    if (n.kind != Kind::PersId || n.items.size() != 1 || n.items[0] == nullptr) continue;
    const Kind k = n.items[0]->kind;
    if (k != Kind::Int && k != Kind::Bool && k != Kind::Float) continue;
    Graph scratch;
    pickle::EncodeOptions eo;
    eo.protocol = 0;
    std::string bytes;
    try {
      bytes = pickle::encode(scratch.persid(n.items[0]), eo).bytes;
    } catch (const pickle::PickleError&) {
      continue;
    }
    // "P<text>\n." exactly.
    if (bytes.size() < 3 || bytes[0] != 'P' || bytes.substr(bytes.size() - 2) != "\n.") continue;
    n.items[0] = graph.str(bytes.substr(1, bytes.size() - 3));
  }
}

void roundtrip_at(Graph& graph, int protocol) {
  const Node* root = graph.root;
  const std::string stage = "protocol " + std::to_string(protocol);
  pickle::EncodeOptions eo;
  eo.protocol = protocol;
  // Names pass through unchanged: the Python 2 name tables are not a
  // bijection (two Python 3 names can share one Python 2 name), so with
  // fix_imports a global could legitimately come back under another name.
  eo.fix_imports = false;
  pickle::EncodeResult encoded;
  try {
    encoded = pickle::encode(root, eo);
  } catch (const pickle::PickleError& e) {
    if (e.kind() == pickle::ErrorKind::Unpicklable ||
        e.kind() == pickle::ErrorKind::LimitExceeded) {
      return;  // refused, as CPython refuses it
    }
    finding(stage + " encode", "unexpected error kind: " + describe(e));
  } catch (const std::exception& e) {
    finding(stage + " encode", "threw something other than PickleError: " + describe(e));
  }
  if (!encoded.buffers.empty()) finding(stage + " encode", "out-of-band buffers nobody asked for");

  Graph again;
  pickle::DecodeOptions dopts;
  dopts.fix_imports = false;
  const std::string& bytes = encoded.bytes;
  try {
    const pickle::DecodeResult r = pickle::decode(bytes, again, dopts);
    if (r.consumed != bytes.size()) {
      finding(stage + " decode", "STOP at " + std::to_string(r.consumed) + " of " +
                                     std::to_string(bytes.size()) + " encoded bytes");
    }
  } catch (const pickle::PickleError& e) {
    finding(stage + " decode", "the encoder's output does not decode: " + describe(e));
  } catch (const std::exception& e) {
    finding(stage + " decode", "threw something other than PickleError: " + describe(e));
  }
  if (protocol < 4) fold_getattr_globals(again);
  // What was written as a PickleBuffer reads back as bytes or a bytearray.
  buffers_in_band(graph);

  // Sharing of immutable nodes is not compared: CPython's pickler does not
  // keep it for every kind (an empty tuple is written afresh each time, never
  // memoized), and the encoder matches CPython byte for byte.
  EqualOptions eq;
  eq.immutable_sharing = false;
  Difference why;
  if (!equal(root, again.root, eq, &why)) {
    finding(stage + " compare",
            "value differs after the round trip at " + why.path + ": " + why.reason);
  }
}

}  // namespace

DecodeOutcome decode_or_refuse(std::span<const std::uint8_t> data, Graph& graph) {
  DecodeOutcome out;
  try {
    out.result = pickle::decode(data, graph);
  } catch (const pickle::PickleError& e) {
    out.error = std::string(pickle::error_kind_name(e.kind())) + "\t" + std::to_string(e.offset()) +
                "\t" + e.detail();
    if (e.kind() == pickle::ErrorKind::TrailingData || e.kind() == pickle::ErrorKind::Unpicklable) {
      finding("decode", "error kind the decoder never raises by default: " + describe(e));
    }
    return out;
  } catch (const std::exception& e) {
    finding("decode", "threw something other than PickleError: " + describe(e));
  } catch (...) {
    finding("decode", "threw something other than PickleError");
  }
  if (out.result.root == nullptr || graph.root != out.result.root) {
    finding("decode", "succeeded without a root");
  }
  if (out.result.consumed == 0 || out.result.consumed > data.size()) {
    finding("decode", "consumed " + std::to_string(out.result.consumed) + " of " +
                          std::to_string(data.size()) + " bytes");
  }
  return out;
}

void check_roundtrip(Graph& graph) {
  unshare_unmemoized(graph);
  roundtrip_at(graph, 5);  // then the graph's PickleBuffers are bytes
  roundtrip_at(graph, 4);
  // A getattr call in the input itself reads back as a dotted global below
  // protocol 4, so it is folded on this side too.
  fold_getattr_globals(graph);
  for (int protocol = 3; protocol >= 1; --protocol) roundtrip_at(graph, protocol);
  canonicalize_nans(graph);
  stringify_protocol0_pids(graph);
  roundtrip_at(graph, 0);
}

}  // namespace serialcheck::fuzz
