// A failure's fingerprint: what the known-failures file and the corpus hold a
// failure by. It must tell apart failures whose causes differ and stay the
// same for one cause whatever the seed, so it is made of parts that depend
// on the cause, never on the drawn value's details (docs/conformance.md,
// "fingerprint"):
//
//   <base>[/<category>[/<shape>]]
//
// base      what failed and where: "exception:TypeError@dumps", "mismatch:kind@loads"
// category  the kind of value that fails (value_category(), difference_category_of())
// shape     for exceptions, the error message with its varying parts taken out
#pragma once

#include <string>
#include <string_view>

#include "harness/props/case.h"
#include "reference/value/value.h"

namespace serialcheck {

// The family of a tensor dtype name ("float32" -> "float", "bfloat16" ->
// "bfloat16", "complex128" -> "complex", "int8"/"uint8" -> "int", "bool").
std::string dtype_family(std::string_view torch_dtype);

// The category of a value whose handling raised: the first tensor (with its
// dtype family), ndarray, module or device buffer found breadth first, else
// the root's kind, with list/tuple/dict/set/frozenset as "collection" (which
// container a failure sits in is the drawn value's detail, not its cause).
std::string value_category(const Node* root);

// The category of a "values differ" message ("values differ at PATH: REASON"):
// "A->B" for a kind difference, with the kinds as they are ("any->object"
// when B is a generic object, a call the loader kept as a call), else the kind the reason starts with
// (containers as "collection"); empty when the reason names no kind.
std::string difference_category_of(std::string_view message);

// The message with its varying parts taken out, as a lower-case slug of at
// most 48 characters: quoted text becomes q, <...> reprs a, hex numbers x,
// other numbers n; the "<stage> raised <kind>: " prefix is dropped. A
// message that starts "maximum recursion depth exceeded" is that alone: the
// rest says where the limit was hit, which depends on the value's depth.
std::string message_shape(std::string_view message);

// The full fingerprint of a failed outcome of case `c`: the outcome's base
// fingerprint with the category and shape parts added where they apply.
// Python's default reduction fails by protocol with two texts for one cause
// (the object's type has no reduction): "cannot pickle 'T' object" at
// protocol 2 and later, and at 0 and 1 an argument error from the built-in
// base copyreg calls with the object ("module() argument 'name' must be str,
// not T", T a class the value holds); a TypeError at a dumps stage of the
// second kind gets the first one's shape, "cannot-pickle-q-object".
// Idempotent: an already refined fingerprint is returned unchanged.
std::string refine_fingerprint(const Outcome& o, const TestCase& c);

// The fingerprint without its category part: what shrinking holds fixed, so
// that a smaller case may sit in another container than the first one drawn.
std::string fingerprint_cause(std::string_view fingerprint);

}  // namespace serialcheck
