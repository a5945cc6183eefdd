// Turns a Plan into a value graph. The builder enforces what makes a value
// one that pickle can carry faithfully: dict keys and set items are hashable
// and pairwise unequal as Python compares them (1 == 1.0 == True,
// 0 == -0.0 == False); a Share step reuses only nodes pickle memoizes (never
// an empty tuple, a PickleBuffer, a persistent id or its pid); a Cycle step
// targets only an enclosing list, dict or object from a part Python fills in
// after creating it (list items, dict values, an object's state, listitems
// and dictitems). A step with nothing to refer to becomes None. What pickle
// memoizes by value is one node per value: each global name, each '' or
// one-character latin-1 str, each b'' or one-byte bytes.
#pragma once

#include <optional>
#include <string>

#include "harness/gen/config.h"
#include "harness/gen/plan.h"
#include "reference/value/value.h"

namespace serialcheck::gen {

// Builds `plan` into `graph`; returns the root (also stored in graph.root).
Node* build(const Plan& plan, const GenConfig& config, Graph& graph);

// A string equal for two hashable values exactly when Python's == holds
// between them (so 1, 1.0 and True have one key); nullopt for values that
// are unhashable or NaN-bearing. Tuples and frozensets are walked to the
// depth the generators give them.
std::optional<std::string> hash_key(const Node* node);

}  // namespace serialcheck::gen
