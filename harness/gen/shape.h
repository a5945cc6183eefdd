// The shape of a value graph: which kinds it holds, which nodes are shared,
// whether it has a cycle. Generator sanity tests and the identity property
// use it; it walks the graph without recursion.
#pragma once

#include <array>
#include <cstddef>
#include <vector>

#include "reference/value/value.h"

namespace serialcheck::gen {

inline constexpr std::size_t kKindCount = static_cast<std::size_t>(kLastKind) + 1;

// '' and one-character latin-1 strs, b'' and one-byte bytes: CPython keeps
// one object per such value, and the encoder memoizes them by value, so a
// value holds one node per such value (the generators ensure it). Globals
// and modules are too: one object per name.
bool is_singleton(const Node& node);

struct Shape {
  std::size_t nodes = 0;                        // distinct nodes reachable from the root
  std::size_t non_atoms = 0;                    // of which not None, bool, int or float
  std::array<std::size_t, kKindCount> kinds{};  // reachable nodes per kind
  // Nodes with two or more references (the root counts as referenced once):
  // non-atoms other than singletons, and singletons.
  std::size_t shared = 0;
  std::size_t shared_singletons = 0;
  bool cyclic = false;  // some node reaches itself
  std::size_t count(Kind k) const { return kinds[static_cast<std::size_t>(k)]; }
};

// The nodes a node refers to, in a fixed order: items; for an object its
// callable, args, state, state_setter, listitems, then dictitems key, value...;
// a tensor's grad. A module has none: its pickle is its name alone. Null
// parts are left out.
std::vector<const Node*> children(const Node& node);

Shape shape_of(const Node* root);

}  // namespace serialcheck::gen
