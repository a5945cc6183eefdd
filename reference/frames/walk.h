// Collection walking: which collections serialize() takes apart so that the
// data inside them (arrays, tensors, bytes, device buffers) travels as frames
// of its own, and how dict keys ride in headers.
//
// distributed decides by looking at the first element of a list, set or
// tuple (or the first value of a dict) and only for the exact builtin types,
// so `[(1, array)]` is pickled whole while `[array, 1]` is walked. Here a
// collection is walked when data sits anywhere inside it, at any depth, and
// list/dict subclasses (objects with list or dict items) are walked too.
// A collection is never walked when that would lose sharing: its elements
// are serialized one by one, and an object reachable from two of them (or a
// cycle) would come back as two objects.
#pragma once

#include <absl/container/flat_hash_map.h>

#include <cstddef>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "reference/value/value.h"

namespace serialcheck::families {

// Collections nested deeper than this are serialized whole by the families
// (whose encoders do not recurse), so walking never exhausts the stack.
inline constexpr std::size_t kMaxWalkDepth = 100;

enum class CollectionType { List, Tuple, Set, Dict };

// "list", "tuple", "set", "dict": the "type-serialized" of a collection header.
std::string_view collection_type_name(CollectionType type);
std::optional<CollectionType> parse_collection_type(std::string_view name);

// How a node is walked.
struct CollectionShape {
  CollectionType type = CollectionType::List;
  // An Object node whose list items (List) or dict items (Dict) are walked;
  // the rest of it (callable, args, state) travels as the "subclass" shell.
  bool subclass = false;
  std::vector<const Node*> elements;  // items; for a dict, the values
  std::vector<const Node*> keys;      // a dict's keys, parallel to elements
};

// The shape of `n` when serialize() can walk it: a list, tuple, set, a dict
// whose keys all have a header form (key_to_header), or an Object with list
// items only or dict items only (header-safe keys). nullopt otherwise
// (frozenset: distributed's loader does not know it; other kinds).
std::optional<CollectionShape> collection_shape(const Node& n);

// A dict key as a header value, as distributed stores it under "key": None,
// bool, int in the int64/uint64 range, float (not NaN: msgpack may not keep
// its bits), str without lone surrogates, bytes, and tuples of these (as
// arrays). nullopt for anything else (the dict is then not walked).
std::optional<nlohmann::json> key_to_header(const Node& key);

// The inverse, into `graph`: arrays become tuples. nullptr for a header
// value no dict key can be (a map, nested too deep).
Node* key_from_header(const nlohmann::json& value, Graph& graph);

// What a Python dict compares a key by: two keys have the same identity
// exactly when Python would make them one entry (1, 1.0 and True; 0.0 and
// -0.0; equal strs, bytes, tuples). A NaN is only itself. nullopt for a
// node that is no key these families write (not None, bool, int, float,
// str, bytes or a tuple of them).
std::optional<std::string> key_identity(const Node& key);

// One pass over a value (iterative: any depth) that answers, for every node,
// the two questions serialize() asks before walking a collection.
class WalkPlan {
 public:
  // `is_data(n)`: n is data the listed families send as frames of its own.
  WalkPlan(const Node* root, const std::function<bool(const Node&)>& is_data);

  // The elements of `n` can be serialized one by one without losing
  // sharing: `n` is referenced once (the root: never) and no node below it
  // (str, bytes, globals and modules excepted: their identity carries no
  // meaning) is reached from two of its elements or leads back to `n`.
  // Sharing inside one element is fine: that element travels whole.
  bool separable(const Node* n) const;

  // A data node is an element of `n`, or of a walkable collection that is
  // an element of `n`, and so on down.
  bool holds_data(const Node* n) const;

 private:
  struct Info {
    std::uint8_t parents = 0;   // references to the node, saturating at 2
    bool shared_below = false;  // a node below is shared or closes a cycle
    bool holds_data = false;
  };
  const Node* root_;
  absl::flat_hash_map<const Node*, Info> info_;
  // separable() answers that needed a search below the node.
  mutable absl::flat_hash_map<const Node*, bool> separable_;
};

// Calls f(child) for every node `n` refers to: items, an object's parts, a
// tensor's grad, a module's subclass.
void for_each_child(const Node& n, const std::function<void(const Node*)>& f);

}  // namespace serialcheck::families
