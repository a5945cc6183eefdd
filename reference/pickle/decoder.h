// The pickle decoder: protocols 0-5, every opcode, never executes anything.
// Globals become inert Global nodes and reduces become Object nodes, except
// the known reduce forms of builtin types (bytes/bytearray/set/frozenset at
// low protocols), which become the builtin kinds so that a value decodes to
// the same model whatever protocol carried it. INST and OBJ make an Object
// marked instantiate (Node::flag, JSON "instantiate"): a loader makes it as
// pickle's instantiate() does, by cls.__new__(cls) when there are no args
// and the class has no __getinitargs__, by cls(*args) otherwise.
//
// Safe loading: with an allowlist in the options, every global the stream
// names and every persistent id is checked at its opcode (docs/safe-loading.md).
// An observer sees the same names, the calls and the persistent ids as the
// decoder meets them; `scan` (scan.h) is built on it.
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
// as long as the graph. `readonly` says what the loader supplies (as
// CPython's loads(buffers=) is given bytes or a bytearray); it is recorded
// in the node's `supplied` and never changes its readonly flag, which is the
// stream's (READONLY_BUFFER).
struct BufferView {
  const std::uint8_t* data = nullptr;
  std::size_t size = 0;
  bool readonly = true;
};

class Allowlist;  // policy.h

// What a Python unpickler would act on, reported by the decoder in stream
// order. Offsets are those of the opcode; opcode names are the table's.
struct GlobalEvent {
  std::size_t offset = 0;
  std::string_view opcode;          // GLOBAL, INST, STACK_GLOBAL, EXT1/2/4
  std::string_view module;          // as a Python 3 loader resolves it (after fix_imports)
  std::string_view qualname;        //
  std::string_view written_module;  // as the stream spells it
  std::string_view written_qualname;
};

// A callable applied: REDUCE (the callable), NEWOBJ/NEWOBJ_EX/OBJ/INST (the
// class), BUILD (the object whose state is set).
struct CallEvent {
  std::size_t offset = 0;
  std::string_view opcode;
  const Node* callee = nullptr;
};

struct PersistentIdEvent {
  std::size_t offset = 0;
  std::string_view opcode;  // PERSID, BINPERSID
  const Node* pid = nullptr;
};

// Called before the allowlist check of the same event, so an observer sees
// what a policy refuses. The nodes live in the graph being decoded.
class DecodeObserver {
 public:
  virtual ~DecodeObserver() = default;
  virtual void on_global(const GlobalEvent&) {}
  virtual void on_call(const CallEvent&) {}
  virtual void on_persistent_id(const PersistentIdEvent&) {}
};

// What a decode cost, counted deterministically (docs/safe-loading.md gives
// the bounds). Filled in on success and, through DecodeOptions::stats, on
// failure too.
struct DecodeStats {
  std::size_t input_size = 0;
  std::size_t steps = 0;      // opcodes executed (each reads at least one byte)
  std::size_t work = 0;       // steps + bytes read + stack items moved + bytes charged
                              // + big-int conversion work: a measure of time
  std::size_t allocated = 0;  // bytes charged to the allocation budget
  std::size_t budget = 0;     // the budget: alloc_per_input_byte * input_size + alloc_constant
  std::size_t nodes = 0;      // graph nodes made
  std::size_t max_stack = 0;  // most items on the stack at once
};

// The encodings of Python 3's pickle.loads(encoding=) that the model can
// hold: every other codec decodes bytes into text some other way.
enum class Python2Str { Ascii, Latin1, Bytes };

struct DecodeOptions {
  // Emulates an older loader: a PROTO opcode above this fails with
  // UnsupportedProtocolError naming both protocols.
  int max_protocol = 5;
  // Maps Python 2 names (__builtin__, copy_reg...) to Python 3 names for
  // streams below protocol 3, as CPython's fix_imports does.
  bool fix_imports = true;
  // How a Python 2 str (STRING, BINSTRING, SHORT_BINSTRING) loads, as
  // Python 3's pickle.loads(encoding=) says: ASCII text (the default; a byte
  // beyond ASCII fails), latin-1 text (each byte its code point), or bytes.
  Python2Str python2_str = Python2Str::Ascii;
  std::span<const BufferView> buffers;
  // NEXT_BUFFER beyond `buffers` reads as an empty read-only buffer instead
  // of failing: for looking at a stream whose buffers are elsewhere.
  bool stand_in_buffers = false;
  Limits limits;
  // The safe-loading policy; nullptr: every global and persistent id is
  // accepted (as inert names and values). Must outlive the decode.
  const Allowlist* allowlist = nullptr;
  DecodeObserver* observer = nullptr;
  // When set, receives the stats of the decode whether it succeeds or throws.
  DecodeStats* stats = nullptr;
};

struct DecodeResult {
  Node* root = nullptr;
  int protocol = 0;          // from PROTO, 0 when absent
  std::size_t consumed = 0;  // offset just past STOP
  DecodeStats stats;
};

// Decodes one pickle from `data` into `graph` (graph.root is set too).
// Bytes/str payloads are copied into the graph (its payload arena), so `data`
// may be freed after. Throws PickleError (with byte offset) on any malformed
// input. Each thread keeps up to four sets of working memory (object stack,
// mark stack, memo; none grown past 64Ki entries) between calls; the graph's
// node chunks and arena blocks (payloads and item spans) come from, and
// return to, the thread's caches of them (see Graph).
DecodeResult decode(std::span<const std::uint8_t> data, Graph& graph,
                    const DecodeOptions& options = {});

inline DecodeResult decode(std::string_view data, Graph& graph, const DecodeOptions& options = {}) {
  return decode(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(data.data()),
                                              data.size()),
                graph, options);
}

}  // namespace serialcheck::pickle
