// Message headers in the JSON files and output the tool writes.
//
// A header is held as nlohmann::json, where msgpack bin and ext values are
// binary values. nlohmann's own text form for those, {"bytes": [128, 5, ...],
// "subtype": null}, is long and unlike every other byte string the tool
// writes, so headers are written with one binary form instead:
//   {"binary": "<lowercase hex>"}                 msgpack bin (Python bytes)
//   {"binary": "<lowercase hex>", "subtype": n}   msgpack ext of type n
// Everything else is written as it is. docs/value-json.md documents the form.
#pragma once

#include <nlohmann/json.hpp>

namespace serialcheck {

// The header with every binary value in the form above.
nlohmann::json header_to_text_json(const nlohmann::json& header);

// The inverse: every object that is exactly a binary form becomes a binary
// value again. Two forms are read: {"binary": "<hex>"[, "subtype": n]} and,
// so that files written by earlier versions still read, nlohmann's
// {"bytes": [0..255, ...], "subtype": null or n}. An object with any other
// members, or whose members do not have those types (a "binary" that is not
// hex), is an ordinary map and is kept as it is.
nlohmann::json header_from_text_json(const nlohmann::json& text);

}  // namespace serialcheck
