// Explanations a failure carries: an aligned disassembly of two pickle
// streams with the first divergence marked, and the description of two
// values that differ.
#pragma once

#include <string>
#include <string_view>

#include "reference/value/equal.h"
#include "reference/value/value.h"

namespace serialcheck {

struct ByteDiff {
  bool same = true;
  // "opcode" (different opcodes at the divergence), "argument" (same opcode,
  // different argument), "length" (one stream is a prefix of the other),
  // "malformed" (a stream does not disassemble up to the divergence) or
  // "raw" (same instructions, different bytes).
  std::string where;
  std::string summary;      // one line
  std::string explanation;  // the aligned listing
};

// Compares two pickle streams instruction by instruction. `left_name` and
// `right_name` label the columns (e.g. "cpython", "reference").
ByteDiff diff_pickles(std::string_view left, std::string_view right, std::string_view left_name,
                      std::string_view right_name);

// "path: reason" followed by both values in canonical JSON (shortened).
std::string explain_difference(const Difference& d, const Node* expected, const Node* actual,
                               std::string_view expected_name, std::string_view actual_name);

// The fingerprint category of an equal() difference: "sharing", "kind",
// "length", "readonly", "structure" or "value".
std::string difference_category(const Difference& d);

// Canonical JSON, cut to `limit` characters with "..." when longer.
std::string short_json(const Node* value, std::size_t limit = 400);

}  // namespace serialcheck
