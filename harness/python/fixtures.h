// Objects of the Python fixtures module (harness/testees/python/
// serialcheck_fixtures.py) for the generator: the resolver that turns a
// generated value's fixture requests (harness/gen/fixtures.h) into the real
// objects' reduce at a protocol.
#pragma once

#include "reference/value/value.h"

namespace serialcheck::python {

// Builds the Python object of `root` (requests become the objects
// serialcheck_fixtures.make returns) and describes it in `graph` as the
// pickler sees it at `protocol`. Empty tuples and persistent ids come back
// unshared, as the generator makes them (pickle memoizes neither). Takes the
// GIL; throws SubjectError when Python cannot build or reduce an object, or
// when the objects built again from the description reduce to another value
// (its sharing cannot be rebuilt from it; set order is not compared).
Node* resolve_fixture_requests(const Node* root, Graph& graph, int protocol);

// Whether the objects built from `value` (a description of Python objects,
// as resolve_fixture_requests gives) are described at `protocol` as `value`
// again; false when Python cannot build or reduce them. Takes the GIL.
bool rebuilds_to_itself(const Node* value, int protocol);

// Installs the resolver above, and rebuilds_to_itself as its checker, as the
// generator's (once per process).
void install_fixture_resolver();

}  // namespace serialcheck::python
