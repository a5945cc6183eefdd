// The known reduce forms of builtin types. Below protocol 3 (bytes), below
// protocol 4 (set, frozenset) and below protocol 5 (bytearray) CPython spells
// these types as calls, e.g. `_codecs.encode('ab', 'latin1')` for b'ab'. The
// decoder consults this table when a REDUCE completes and turns a call of
// exactly such a shape back into the builtin kind, so that a value decodes to
// the same model whatever protocol carried it. Anything that does not match
// exactly stays a generic Object node.
#pragma once

#include <span>
#include <string_view>

#include "reference/value/value.h"

namespace serialcheck::types {

struct ReduceForm {
  std::string_view module;  // the callable, as a Global after fix_imports
  std::string_view name;
  std::string_view shape;  // the argument shapes it accepts, for docs and reports
  // The builtin node for callable(*args), or nullptr when `args` (a Tuple)
  // does not have an accepted shape.
  Node* (*convert)(Graph& graph, const Node& args);
};

// Every known builtin form.
std::span<const ReduceForm> builtin_reduce_forms();

// The builtin node that callable(*args) stands for, made in `graph`, or
// nullptr when it is no known form. `args` need not be a Tuple (then it is
// no known form). The result never shares nodes with `args` except items of
// set/frozenset, which are the list's items.
Node* convert_builtin_reduce(Graph& graph, const Node* callable, const Node* args);

}  // namespace serialcheck::types
