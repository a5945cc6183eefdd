// Resource limits of the decoder, and the bounds it keeps for any input.
// The default limits accept every pickle CPython's C pickler writes for
// ordinary data and stop hostile input from crashing the decoder, hanging it
// or making it allocate far beyond the input's size. docs/safe-loading.md
// states the guarantees; decode.bounded checks them.
#pragma once

#include <cstddef>

namespace serialcheck::pickle {

struct Limits {
  // Marks open at once (LimitExceeded at the MARK past it). CPython's
  // pickler keeps at most two open per level of nesting (a reduce's
  // argument tuple and an APPENDS/SETITEMS batch), often none (one-item
  // lists and dicts, tuples of up to three at protocol 2 and up), so this
  // accepts any value nested 100,000 deep.
  std::size_t max_depth = 250000;
  // Distinct memo entries, and the largest memo key accepted (LimitExceeded
  // at the PUT/BINPUT/LONG_BINPUT/MEMOIZE).
  std::size_t max_memo = 1u << 24;
  // Nodes and bytes the decoder may allocate: at most
  // alloc_per_input_byte * input size + alloc_constant bytes (estimated
  // from node count and payload sizes, charged before the allocation;
  // LimitExceeded at the opcode that would pass it). A single declared
  // length can never exceed the input: it is checked against the bytes left
  // (Truncated) before anything is made for it.
  std::size_t alloc_per_input_byte = 64;
  std::size_t alloc_constant = 1u << 20;
};

// The bounds every decode keeps, whatever the input and the limits, in the
// units of DecodeStats (n = input size):
//   steps     <= n                                   (each opcode reads a byte)
//   allocated <= alloc_per_input_byte * n + alloc_constant     (enforced)
//   work      <= kWorkPerInputByte * n + kWorkPerAllocatedByte * allocated
//   nodes     <= kNodesPerStep * steps               (before domain forms)
//   max_stack <= steps
// work is linear in n because allocated is; docs/safe-loading.md derives it.
inline constexpr std::size_t kWorkPerInputByte = 64;
inline constexpr std::size_t kWorkPerAllocatedByte = 2;
inline constexpr std::size_t kNodesPerStep = 4;

}  // namespace serialcheck::pickle
