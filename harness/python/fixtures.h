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
// GIL; throws SubjectError when Python cannot build or reduce an object.
Node* resolve_fixture_requests(const Node* root, Graph& graph, int protocol);

// Installs the resolver above as the generator's (once per process).
void install_fixture_resolver();

}  // namespace serialcheck::python
