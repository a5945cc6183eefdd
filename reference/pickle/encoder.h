// The pickle encoder: protocols 0-5, byte-identical to CPython 3.11's C
// pickler (`pickle.dumps(obj, protocol=p)`) for the equivalent Python object:
// same opcodes, memo numbering and PUT/MEMOIZE placement, FRAME boundaries,
// and APPENDS/SETITEMS/ADDITEMS batches of 1000. EncodeOptions::target makes
// it another version's C pickler (3.6 to 3.15, target.h).
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "reference/pickle/target.h"
#include "reference/value/value.h"

namespace serialcheck::pickle {

struct EncodeOptions {
  // A negative protocol is the target's highest; one above it fails.
  int protocol = 5;
  // Whose C pickler to write like (3.11 unless told).
  PythonTarget target = PythonTarget::default_target();
  // Protocol 5 only, as Python's buffer_callback: called for each
  // PickleBuffer; return true to write it in band, false to send it out of
  // band (it is then appended to EncodeResult::buffers, not copied).
  // When empty, every buffer is written in band.
  std::function<bool(const Node& buffer)> buffer_callback;
  // Nesting depth beyond which the encoder fails with LimitExceeded instead
  // of recursing further (CPython itself stops near 1000).
  std::size_t max_depth = 20000;
  // Map Python 3 names to Python 2 names below protocol 3, as CPython's
  // fix_imports=True (the default of pickle.dumps) does.
  bool fix_imports = true;
  // Below protocol 3, write bytes as Python 2 writes its str (STRING,
  // SHORT_BINSTRING, BINSTRING) instead of as Python 3's bytes reduce: a
  // stand-in for a Python 2 writer where none is installed (cross.py2's
  // tests). Python 3 reads such a str as its loads(encoding=) says.
  bool python2_strs = false;
};

struct EncodeResult {
  std::string bytes;
  // Out-of-band buffers in NEXT_BUFFER order; they point into the graph,
  // or into `lowered` for the buffers of domain values (numpy arrays...),
  // whose memory is still the value's.
  std::vector<const Node*> buffers;
  std::shared_ptr<const Graph> lowered;
};

// Throws PickleError (kind Unpicklable or LimitExceeded) when the value
// cannot be written at the requested protocol (e.g. a PickleBuffer below 5).
// Thread-safe for distinct calls; each thread keeps up to four sets of
// working memory (a memo of 16Ki direct slots, 256 KiB of which only the
// pages used are touched, and a hash table of at most 16Ki slots; the task
// stack; an output buffer of at most 1 MiB) between calls.
EncodeResult encode(const Node* root, const EncodeOptions& options = {});

}  // namespace serialcheck::pickle
