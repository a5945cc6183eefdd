#include "reference/frames/walk.h"

#include <absl/container/flat_hash_set.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <string>
#include <utility>

#include "reference/frames/families_common.h"
#include "reference/value/children.h"
#include "reference/value/numeric.h"

namespace serialcheck::families {
namespace {

using json = nlohmann::json;

// Tuples nested deeper than this are not header keys (nobody needs them, and
// it keeps the conversions bounded).
constexpr std::size_t kMaxKeyDepth = 32;

bool is_atom_or_null(const Node* n) {
  return n == nullptr || is_atom(n->kind);
}

// Nodes whose identity carries no meaning for the value: sharing them
// between walked elements loses nothing a loader could observe.
bool identity_free(const Node& n) {
  return n.kind == Kind::Str || n.kind == Kind::Bytes || n.kind == Kind::Global ||
         n.kind == Kind::Module;
}

std::optional<json> key_json(const Node& key, std::size_t depth) {
  switch (key.kind) {
    case Kind::None: return json(nullptr);
    case Kind::Bool: return json(key.flag);
    case Kind::Int:
      if (!key.big) return json(key.small());
      if (auto u = detail::big_as_u64(key.payload())) return json(*u);
      return std::nullopt;
    case Kind::Float:
      if (std::isnan(key.f)) return std::nullopt;
      return json(key.f);
    case Kind::Str:
      if (detail::has_lone_surrogate(key.payload())) return std::nullopt;
      return json(std::string(key.payload()));
    case Kind::Bytes: {
      auto p = key.payload();
      return json::binary(std::vector<std::uint8_t>(p.begin(), p.end()));
    }
    case Kind::Tuple: {
      if (depth >= kMaxKeyDepth) return std::nullopt;
      json array = json::array();
      for (const Node* item : key.items) {
        if (item == nullptr) return std::nullopt;
        auto j = key_json(*item, depth + 1);
        if (!j) return std::nullopt;
        array.push_back(std::move(*j));
      }
      return array;
    }
    default: return std::nullopt;
  }
}

bool key_safe(const Node& key, std::size_t depth) {
  switch (key.kind) {
    case Kind::None:
    case Kind::Bool:
    case Kind::Bytes: return true;
    case Kind::Int: return !key.big || detail::big_as_u64(key.payload()).has_value();
    case Kind::Float: return !std::isnan(key.f);
    case Kind::Str: return !detail::has_lone_surrogate(key.payload());
    case Kind::Tuple:
      if (depth >= kMaxKeyDepth) return false;
      for (const Node* item : key.items) {
        if (item == nullptr || !key_safe(*item, depth + 1)) return false;
      }
      return true;
    default: return false;
  }
}

Node* key_node(const json& value, Graph& graph, std::size_t depth) {
  using Type = json::value_t;
  switch (value.type()) {
    case Type::null: return graph.none();
    case Type::boolean: return graph.boolean(value.get<bool>());
    case Type::number_integer: return graph.integer(value.get<std::int64_t>());
    case Type::number_unsigned: {
      const auto u = value.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
        return graph.integer(static_cast<std::int64_t>(u));
      }
      std::string le(9, '\0');  // the ninth byte keeps the sign positive
      for (int i = 0; i < 8; ++i) le[i] = static_cast<char>((u >> (8 * i)) & 0xFF);
      return graph.integer_le(le);
    }
    case Type::number_float: return graph.floating(value.get<double>());
    case Type::string: return graph.str(value.get<std::string>());
    case Type::binary: {
      const auto& bin = value.get_binary();
      return graph.bytes(std::string(bin.begin(), bin.end()));
    }
    case Type::array: {
      if (depth >= kMaxKeyDepth) return nullptr;
      std::vector<Node*> items;
      items.reserve(value.size());
      for (const auto& item : value) {
        Node* n = key_node(item, graph, depth + 1);
        if (n == nullptr) return nullptr;
        items.push_back(n);
      }
      return graph.tuple(std::move(items));
    }
    default: return nullptr;
  }
}

std::optional<std::string> identity_of(const Node& key, std::size_t depth) {
  switch (key.kind) {
    case Kind::None: return "N";
    case Kind::Bool: return key.flag ? "i1" : "i0";
    case Kind::Int:
      if (!key.big) return "i" + std::to_string(key.small());
      return "i" + twos_le_to_decimal(key.payload());
    case Kind::Float: {
      const double d = key.f;
      if (std::isnan(d)) {
        // NaN != NaN: each NaN object is a key of its own.
        return "n" + std::to_string(reinterpret_cast<std::uintptr_t>(&key));
      }
      if (d == 0) return "i0";
      if (std::isfinite(d) && d == std::floor(d)) {
        // An integral float equals the int of that value; %.0f prints it exactly.
        char buf[400];
        std::snprintf(buf, sizeof buf, "%.0f", d);
        return "i" + std::string(buf);
      }
      char buf[64];
      std::snprintf(buf, sizeof buf, "%a", d);
      return "f" + std::string(buf);
    }
    case Kind::Str: return "s" + std::string(key.payload());
    case Kind::Bytes: return "b" + std::string(key.payload());
    case Kind::Tuple: {
      if (depth >= kMaxKeyDepth) return std::nullopt;
      std::string out = "(";
      for (const Node* item : key.items) {
        if (item == nullptr) return std::nullopt;
        auto part = identity_of(*item, depth + 1);
        if (!part) return std::nullopt;
        out += std::to_string(part->size()) + ":" + *part;
      }
      return out + ")";
    }
    default: return std::nullopt;
  }
}

// Keys with a header form that a loader will not merge.
bool keys_safe(const std::vector<const Node*>& keys) {
  absl::flat_hash_set<std::string> seen;
  for (const Node* key : keys) {
    if (key == nullptr || !key_safe(*key, 0)) return false;
    auto identity = identity_of(*key, 0);
    if (!identity || !seen.insert(std::move(*identity)).second) return false;
  }
  return true;
}

// The cheap structural test behind collection_shape.
bool walkable(const Node& n) {
  switch (n.kind) {
    case Kind::List:
    case Kind::Tuple:
    case Kind::Set: return true;
    case Kind::Dict: {
      if (n.items.size() % 2 != 0) return false;
      std::vector<const Node*> keys;
      for (std::size_t i = 0; i < n.items.size(); i += 2) keys.push_back(n.items[i]);
      return keys_safe(keys);
    }
    case Kind::Object: {
      if (!n.obj()) return false;
      const auto& parts = *n.obj();
      if (!parts.listitems.empty() && parts.dictitems.empty()) return true;
      if (parts.listitems.empty() && !parts.dictitems.empty()) {
        std::vector<const Node*> keys;
        for (const auto& kv : parts.dictitems) keys.push_back(kv.first);
        return keys_safe(keys);
      }
      return false;
    }
    default: return false;
  }
}

template <typename F>
void for_each_element(const Node& n, F&& f) {
  switch (n.kind) {
    case Kind::Dict:
      for (std::size_t i = 1; i < n.items.size(); i += 2) f(n.items[i]);
      break;
    case Kind::Object:
      for (const Node* item : n.obj()->listitems) f(item);
      for (const auto& kv : n.obj()->dictitems) f(kv.second);
      break;
    default:
      for (const Node* item : n.items) f(item);
      break;
  }
}

}  // namespace

std::string_view collection_type_name(CollectionType type) {
  switch (type) {
    case CollectionType::List: return "list";
    case CollectionType::Tuple: return "tuple";
    case CollectionType::Set: return "set";
    case CollectionType::Dict: return "dict";
  }
  return "list";
}

std::optional<CollectionType> parse_collection_type(std::string_view name) {
  if (name == "list") return CollectionType::List;
  if (name == "tuple") return CollectionType::Tuple;
  if (name == "set") return CollectionType::Set;
  if (name == "dict") return CollectionType::Dict;
  return std::nullopt;
}

std::optional<CollectionShape> collection_shape(const Node& n) {
  if (!walkable(n)) return std::nullopt;
  CollectionShape shape;
  switch (n.kind) {
    case Kind::List: shape.type = CollectionType::List; break;
    case Kind::Tuple: shape.type = CollectionType::Tuple; break;
    case Kind::Set: shape.type = CollectionType::Set; break;
    case Kind::Dict:
      shape.type = CollectionType::Dict;
      for (std::size_t i = 0; i + 1 < n.items.size(); i += 2) {
        shape.keys.push_back(n.items[i]);
        shape.elements.push_back(n.items[i + 1]);
      }
      return shape;
    case Kind::Object:
      shape.subclass = true;
      if (!n.obj()->listitems.empty()) {
        shape.type = CollectionType::List;
        shape.elements.assign(n.obj()->listitems.begin(), n.obj()->listitems.end());
      } else {
        shape.type = CollectionType::Dict;
        for (const auto& kv : n.obj()->dictitems) {
          shape.keys.push_back(kv.first);
          shape.elements.push_back(kv.second);
        }
      }
      return shape;
    default: return std::nullopt;
  }
  shape.elements.assign(n.items.begin(), n.items.end());
  return shape;
}

std::optional<json> key_to_header(const Node& key) {
  return key_json(key, 0);
}

Node* key_from_header(const json& value, Graph& graph) {
  return key_node(value, graph, 0);
}

std::optional<std::string> key_identity(const Node& key) {
  return identity_of(key, 0);
}

void for_each_child(const Node& n, const std::function<void(const Node*)>& f) {
  serialcheck::for_each_child(n, f);
}

WalkPlan::WalkPlan(const Node* root, const std::function<bool(const Node&)>& is_data)
    : root_(root) {
  if (is_atom_or_null(root)) return;
  // Pass 1: how many references reach each node (0, 1, or 2 for "more").
  info_.try_emplace(root);
  std::vector<const Node*> stack{root};
  while (!stack.empty()) {
    const Node* n = stack.back();
    stack.pop_back();
    serialcheck::for_each_child(*n, [&](const Node* c) {
      if (is_atom_or_null(c)) return;
      auto [it, inserted] = info_.try_emplace(c);
      if (it->second.parents < 2) ++it->second.parents;
      if (inserted) stack.push_back(c);
    });
  }

  // Pass 2, in post-order: whether any node below is shared (or closes a
  // cycle), and whether data sits in the walkable part below.
  enum : std::uint8_t { kNew, kOpen, kDone };
  absl::flat_hash_map<const Node*, std::uint8_t> state;
  state.reserve(info_.size());
  std::vector<std::pair<const Node*, bool>> work{{root, false}};
  while (!work.empty()) {
    auto [n, leaving] = work.back();
    work.pop_back();
    if (!leaving) {
      std::uint8_t& s = state[n];
      if (s != kNew) continue;
      s = kOpen;  // set before the loop below may rehash `state`
      work.emplace_back(n, true);
      serialcheck::for_each_child(*n, [&](const Node* c) {
        if (!is_atom_or_null(c) && state[c] == kNew) work.emplace_back(c, false);
      });
      continue;
    }
    bool shared = false;
    serialcheck::for_each_child(*n, [&](const Node* c) {
      if (shared || is_atom_or_null(c) || identity_free(*c)) return;
      const Info& ci = info_[c];
      if (ci.parents > 1 || state[c] != kDone || ci.shared_below) shared = true;
    });
    Info& info = info_[n];
    info.shared_below = shared;
    if (walkable(*n)) {
      bool data = false;
      for_each_element(*n, [&](const Node* e) {
        if (data || is_atom_or_null(e)) return;
        if (is_data(*e) || (state[e] == kDone && info_[e].holds_data)) data = true;
      });
      info.holds_data = data;
    }
    state[n] = kDone;
  }
}

bool WalkPlan::separable(const Node* n) const {
  auto it = info_.find(n);
  if (it == info_.end()) return false;
  const Info& info = it->second;
  if (info.parents > (n == root_ ? 0 : 1)) return false;  // shared, or on a cycle
  if (!info.shared_below) return true;
  if (auto cached = separable_.find(n); cached != separable_.end()) return cached->second;
  // Something below is shared: separable when no node is reached from two of
  // n's parts (each child its own part, an object's callable, args and state
  // one part: they travel together) and nothing below leads back to n.
  absl::flat_hash_map<const Node*, std::size_t> owner;
  bool ok = true;
  constexpr std::size_t kReduceParts = 0;  // the group of an object's callable, args and state
  std::size_t group = kReduceParts + 1;
  std::vector<const Node*> stack;
  auto visit = [&](const Node* start, std::size_t g) {
    stack.assign({start});
    while (ok && !stack.empty()) {
      const Node* x = stack.back();
      stack.pop_back();
      if (is_atom_or_null(x) || identity_free(*x)) continue;
      if (x == n) {
        ok = false;
        break;
      }
      auto [at, inserted] = owner.try_emplace(x, g);
      if (!inserted) {
        if (at->second != g) ok = false;
        continue;
      }
      serialcheck::for_each_child(*x, [&](const Node* c) { stack.push_back(c); });
    }
  };
  // A tensor's grad is not one of the parts searched here.
  serialcheck::for_each_child(*n, [&](const Node* c, ChildPart part) {
    if (part == ChildPart::Grad) return;
    visit(c, is_reduce_part(part) ? kReduceParts : group++);
  });
  separable_.emplace(n, ok);
  return ok;
}

bool WalkPlan::holds_data(const Node* n) const {
  auto it = info_.find(n);
  return it != info_.end() && it->second.holds_data;
}

}  // namespace serialcheck::families
