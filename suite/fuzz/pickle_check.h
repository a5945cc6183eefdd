// The property the pickle fuzz target checks, shared by the target and by
// pickle_triage (which scripts/fuzz runs on each finding to say where it
// failed). For any input bytes:
//   1. decode() either succeeds or throws a PickleError; nothing else.
//   2. When it succeeds, the value re-encodes at every protocol 0-5, or the
//      encoder refuses it with a PickleError of kind Unpicklable (a value
//      CPython cannot pickle at that protocol either) or LimitExceeded
//      (nesting past the encoder's max_depth).
//   3. What the encoder writes decodes again, to a value equal to the first
//      (up to what the protocol cannot carry, see check_roundtrip).
// A breach prints one line starting "serialcheck-fuzz: " and aborts, so
// libFuzzer records the input as a crash.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

#include "reference/pickle/decoder.h"
#include "reference/value/value.h"

namespace serialcheck::fuzz {

struct DecodeOutcome {
  pickle::DecodeResult result;       // valid when error is empty
  std::optional<std::string> error;  // "kind<TAB>offset<TAB>detail" when decode refused
};

// Step 1: decodes `data` with default options into `graph`.
DecodeOutcome decode_or_refuse(std::span<const std::uint8_t> data, Graph& graph);

// Steps 2 and 3, for a value decode_or_refuse() produced. Changes `graph`
// between protocols where a protocol cannot carry a distinction (see the
// .cpp): getattr(global, "name") calls become dotted globals before
// protocols 3-1, and NaNs become the one NaN protocol 0 reads back.
void check_roundtrip(Graph& graph);

}  // namespace serialcheck::fuzz
