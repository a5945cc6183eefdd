// The pickle decoder: protocols 0-5, every opcode, never executes anything.
// Globals become inert Global nodes and reduces become Object nodes, except
// the known reduce forms of builtin types (bytes/bytearray/set/frozenset at
// low protocols), which become the builtin kinds so that a value decodes to
// the same model whatever protocol carried it.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "reference/pickle/limits.h"
#include "reference/value/value.h"

namespace serialcheck::pickle {

// An out-of-band buffer handed to the decoder (PEP 574). The decoder does not
// copy it: PickleBuffer nodes borrow this memory, which the caller keeps alive
// as long as the graph.
struct BufferView {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  bool readonly = true;
};

struct DecodeOptions {
  // Emulates an older loader: a PROTO opcode above this fails with
  // UnsupportedProtocolError naming both protocols.
  int max_protocol = 5;
  // Maps Python 2 names (__builtin__, copy_reg...) to Python 3 names for
  // streams below protocol 3, as CPython's fix_imports does.
  bool fix_imports = true;
  std::span<const BufferView> buffers;
  Limits limits;
};

struct DecodeResult {
  Node* root = nullptr;
  int protocol = 0;          // from PROTO, 0 when absent
  std::size_t consumed = 0;  // offset just past STOP
};

// Decodes one pickle from `data` into `graph` (graph.root is set too).
// Bytes/str payloads are copied into the graph, so `data` may be freed after.
// Throws PickleError (with byte offset) on any malformed input.
DecodeResult decode(std::span<const std::uint8_t> data, Graph& graph,
                    const DecodeOptions& options = {});

inline DecodeResult decode(std::string_view data, Graph& graph, const DecodeOptions& options = {}) {
  return decode(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(data.data()),
                                              data.size()),
                graph, options);
}

}  // namespace serialcheck::pickle
