// The children of a node: the one traversal every walk over the model uses
// (the JSON writer's reference count, the Python ndarray planner, the
// collection walk, the harness's copies and reachability), so they all see
// a node's children in the same order.
//
// The order is fixed: the items in order (a list's, tuple's or set's items,
// a dict's key0, value0, key1, value1, ..., a persid's pid, a module's
// class); then an object's reduce parts, callable, args, state,
// state_setter, its listitems in order and its dictitems as key, value,
// key, value, ...; then a tensor's grad. A well-formed node has children in
// one of these fields only, so the order within a kind is what matters:
// it is the order the canonical JSON form writes them in. Absent children
// (a null pointer: an object without state, a tensor without grad) are
// skipped. Nothing here allocates or throws.
#pragma once

#include <cstdint>
#include <type_traits>

#include "reference/value/value.h"

namespace serialcheck {

// The field of its parent a child is reached through.
enum class ChildPart : std::uint8_t {
  Item,           // items[i]
  Callable,       // an object's callable
  Args,           // an object's args
  State,          // an object's state
  StateSetter,    // an object's state_setter
  ListItem,       // an object's listitems[i]
  DictItemKey,    // an object's dictitems[i].first
  DictItemValue,  // an object's dictitems[i].second
  Grad,           // a tensor's grad
};

// The parts of an object's reduce that travel together: callable, args,
// state and state_setter (its list and dict items are items of their own).
inline bool is_reduce_part(ChildPart part) {
  return part == ChildPart::Callable || part == ChildPart::Args || part == ChildPart::State ||
         part == ChildPart::StateSetter;
}

namespace internal {

// Calls fn(slot, part) for every child slot of `n`, null ones included, in
// the order above. `slot` is a Node*& (a Node* const& for a const node's
// items).
template <typename N, typename Fn>
void for_each_child_slot(N& n, Fn& fn) {
  for (auto& c : n.items) fn(c, ChildPart::Item);
  if (n.obj()) {
    ObjectParts& o = *n.obj();
    fn(o.callable, ChildPart::Callable);
    fn(o.args, ChildPart::Args);
    fn(o.state, ChildPart::State);
    fn(o.state_setter, ChildPart::StateSetter);
    for (Node*& c : o.listitems) fn(c, ChildPart::ListItem);
    for (auto& [k, v] : o.dictitems) {
      fn(k, ChildPart::DictItemKey);
      fn(v, ChildPart::DictItemValue);
    }
  }
  if (n.array()) fn(n.array()->grad, ChildPart::Grad);
}

}  // namespace internal

// Calls fn(child) or fn(child, part) for every child of `n` that is
// present, in the order above.
template <typename Fn>
void for_each_child(const Node& n, Fn&& fn) {
  auto visit = [&fn](Node* c, ChildPart part) {
    if (c == nullptr) return;
    if constexpr (std::is_invocable_v<Fn&, Node*, ChildPart>) {
      fn(c, part);
    } else {
      fn(c);
    }
  };
  internal::for_each_child_slot(n, visit);
}

// Calls fn(slot) with a reference to each pointer of `n` that holds a
// child, in the order above, so the caller can point it elsewhere.
template <typename Fn>
void for_each_child_slot(Node& n, Fn&& fn) {
  auto visit = [&fn](Node*& slot, ChildPart) {
    if (slot != nullptr) fn(slot);
  };
  internal::for_each_child_slot(n, visit);
}

}  // namespace serialcheck
