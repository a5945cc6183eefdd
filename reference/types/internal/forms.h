// Small tests on decoded nodes that the recognisers of reduce forms share
// (ndarray.cpp, tensor.cpp, builtin_reduce.cpp). Each accepts nullptr and
// answers false for it. Nothing here throws.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>
#include <vector>

#include "reference/value/numeric.h"
#include "reference/value/value.h"

namespace serialcheck::types::internal {

// The global module.qualname.
inline bool is_global(const Node* n, std::string_view module, std::string_view qualname) {
  return n != nullptr && n->kind == Kind::Global && n->payload() == module && n->name() == qualname;
}

inline bool is_str(const Node* n, std::string_view text) {
  return n != nullptr && n->kind == Kind::Str && n->payload() == text;
}

// An int that fits int64, in `out`.
inline bool small_int(const Node* n, std::int64_t& out) {
  if (n == nullptr || n->kind != Kind::Int) return false;
  out = n->small();
  return !n->big || twos_le_to_int64(n->payload(), out);
}

// A tuple of at most `max_items` ints in int64, each >= 0 (a shape or
// strides), in `out`.
inline bool nonnegative_dims(const Node* n, std::vector<std::int64_t>& out,
                             std::size_t max_items = static_cast<std::size_t>(-1)) {
  if (n == nullptr || n->kind != Kind::Tuple || n->items.size() > max_items) return false;
  out.clear();
  for (const Node* item : n->items) {
    std::int64_t v = 0;
    if (!small_int(item, v) || v < 0) return false;
    out.push_back(v);
  }
  return true;
}

}  // namespace serialcheck::types::internal
