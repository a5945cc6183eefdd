// The bridge between the value model and live Python objects.
//
// to_python() materializes a value the way pickle's loader would: globals are
// imported, generic reduces are called (copyreg.__newobj__ / __newobj_ex__
// become cls.__new__; an INST or OBJ object, marked instantiate, is made as
// pickle's instantiate() makes it), state is applied like BUILD (or the
// state setter), list and dict items like APPENDS / SETITEMS. from_python() describes an object
// the way pickle's saver sees it: exact built-in types become their kinds,
// classes and functions become globals, everything else becomes the generic
// reduce that __reduce_ex__(protocol) (or copyreg.dispatch_table) returns.
// An exact numpy.ndarray of a numeric dtype and an NDArray node are each
// other's image, dtype, shape, strides and WRITEABLE flag kept: to_python
// copies the whole payload (so the offset holds), from_python copies the
// bytes from the lowest to the highest element. A pickle buffer or array read
// out of band is made read-only by to_python when the stream or the memory
// its loader was supplied says so (loaded_readonly), as a loader makes it;
// from_python describes what an object is, with nothing supplied.
//
// Identity is kept both ways: a node shared in the value is one Python object,
// and one Python object reached twice is one node; cycles are rebuilt the way
// pickle rebuilds them (mutable containers are made empty and filled later;
// tuples, frozensets and reduced objects are made once their parts exist).
// A cycle that passes only through immutable objects (a tuple containing
// itself) cannot exist in Python and is an error.
//
// Caveat: CPython caches some immutable objects (the empty str, bytes, tuple;
// one-character latin-1 strs; ints from -5 to 256; True, False, None). Two
// distinct nodes holding such a value become one Python object, and come back
// as one shared node. Identity only matters for non-atoms, so this shows up
// with strs, bytes and tuples.
//
// Neither direction recurses on the C++ stack, so values can be deep (what
// Python then does with a deep object, e.g. pickling it, is its business).
// Every function here needs the GIL (see interpreter.h) and throws
// SubjectError: Python exceptions keep their type name as the kind; problems
// the bridge itself finds use the kind "BridgeError".
#pragma once

#include "harness/python/interpreter.h"
#include "reference/value/value.h"

namespace serialcheck::python {

struct BridgeOptions {
  // The protocol passed to __reduce_ex__ by from_python (objects reduce
  // differently below protocol 2 and at 5).
  int protocol = 5;

  // A Pickler's and an Unpickler's hooks (borrowed; null: not used), called
  // where CPython's C pickler calls them. from_python: persistent_id(obj)
  // for every object but a persistent id itself (anything but None makes a
  // persistent id); reducer_override(obj) for objects that are not of an
  // exact built-in type (NotImplemented: reduce as usual); dispatch_table
  // replaces copyreg.dispatch_table (looked up with obj's type, a missing
  // key meaning none). to_python: persistent_load(pid) makes the object of
  // a persistent id (instead of the fixtures module's Persistent);
  // find_class(module, qualname) resolves globals (instead of
  // resolve_global).
  PyObject* persistent_id = nullptr;
  PyObject* reducer_override = nullptr;
  PyObject* dispatch_table = nullptr;
  PyObject* persistent_load = nullptr;
  PyObject* find_class = nullptr;
};

// Builds the Python object for `value`. A persistent id becomes
// serialcheck_fixtures.Persistent(pid) (harness/gen/fixtures.h), and
// from_python describes such an object as the persistent id again.
PyRef to_python(const Node* value, const BridgeOptions& options = {});

// Describes `object` as a value in `graph` and returns its root node.
Node* from_python(PyObject* object, Graph& graph, const BridgeOptions& options = {});

// Imports `module` and follows the dotted `qualname` with getattr, as pickle's
// find_class does (with _compat_pickle's renames as a fallback for Python 2
// names).
PyRef resolve_global(std::string_view module, std::string_view qualname);

}  // namespace serialcheck::python
