// Small combinators the value generators are made of. RapidCheck's oneOf
// never shrinks from one alternative to another; these do, towards the first
// alternative, so a failing list can shrink to None.
#pragma once

#include <rapidcheck.h>

#include <utility>
#include <vector>

namespace serialcheck::gen {

// Picks an alternative with probability proportional to its weight (weights
// of 0 are skipped). Shrinks towards earlier alternatives, then within the
// chosen one.
template <typename T>
rc::Gen<T> weightedChoice(std::vector<std::pair<int, rc::Gen<T>>> alternatives);

// Between 0 and max_items items, the bound scaled by RapidCheck's size (the
// full bound from size 50 on). Items are generated at the unscaled size.
// Shrinks by dropping items, then by shrinking them.
template <typename T>
rc::Gen<std::vector<T>> itemsOf(rc::Gen<T> item, int max_items);

// true with probability numerator/denominator; shrinks to false.
rc::Gen<bool> chance(int numerator, int denominator);

}  // namespace serialcheck::gen

#include "harness/gen/choice.hpp"
