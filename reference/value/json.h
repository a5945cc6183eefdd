// The canonical JSON form of a value (docs/value-json.md): lossless,
// human-readable, one form per value. A node referenced more than once is
// written once with an "id" and referred to by {"ref": id} afterwards, so the
// text stays linear in the graph's size. Neither direction recurses.
#pragma once

#include <string>
#include <string_view>
#include <utility>

#include "reference/common/error.h"
#include "reference/value/value.h"

namespace serialcheck {

// A serialcheck::Error (reference/common/error.h) of kind "json-form" whose
// location is a JSON pointer. what(): "<where>: <message>", "(document)"
// standing for an empty pointer.
class JsonFormError : public Error {
 public:
  // `where` is a JSON pointer to the offending element, e.g. "/list/3".
  JsonFormError(std::string where, std::string message)
      : Error("json-form", std::move(message), Location{.key = std::move(where)},
              ErrorStyle::KeyFirst) {}
  const std::string& where() const { return location().key; }
};

// Compact unless `pretty`; pretty output indents by two spaces.
std::string to_json(const Node* root, bool pretty = false);

// Parses canonical JSON into `graph`, returns the root (also sets graph.root).
Node* from_json(std::string_view text, Graph& graph);

}  // namespace serialcheck
