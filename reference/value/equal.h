// Equality of two values: structural, kind-exact (1 != 1.0 != True),
// NaN-aware (NaN equals NaN, bit for bit), identity-aware (the sharing and
// cycle structure of both graphs must match: a node shared in one must be
// shared the same way in the other). Sets and frozensets compare as
// unordered collections; dicts compare in insertion order.
// Never recurses: a 100,000-deep value compares in constant stack.
#pragma once

#include <string>

#include "reference/value/value.h"

namespace serialcheck {

struct Difference {
  std::string path;    // where the values differ, e.g. "root[3]['a'].args[0]"
  std::string reason;  // what differs, e.g. "int 3 != int 4"
};

bool equal(const Node* a, const Node* b, Difference* why = nullptr);

}  // namespace serialcheck
