// Resource limits of the decoder. The defaults accept every pickle CPython's
// C pickler writes for ordinary data and stop hostile input from crashing
// the decoder, hanging it or making it allocate far beyond the input's size.
#pragma once

#include <cstddef>

namespace serialcheck::pickle {

struct Limits {
  // Containers open at once on the stack (MARKs plus nested constructs).
  std::size_t max_depth = 100000;
  // Distinct memo entries, and the largest memo key accepted.
  std::size_t max_memo = 1u << 24;
  // Nodes and bytes the decoder may allocate: at most
  // alloc_per_input_byte * input size + alloc_constant bytes (estimated
  // from node count and payload sizes).
  std::size_t alloc_per_input_byte = 64;
  std::size_t alloc_constant = 1u << 20;
};

}  // namespace serialcheck::pickle
