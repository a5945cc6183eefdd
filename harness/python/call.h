// Calling Python from a benchmark's timed loop. A callable and its arguments
// are bound once, outside the loop; each call is then one vectorcall, so what
// the loop times is the callee (pickle.dumps, ...), not the building of
// argument tuples, keyword dicts or attribute look-ups around it.
// Everything here needs the GIL (see interpreter.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/python/interpreter.h"

namespace serialcheck::python {

class BoundCall {
 public:
  BoundCall() = default;
  BoundCall(PyRef callable, std::vector<PyRef> args,
            std::vector<std::pair<std::string, PyRef>> kwargs = {});

  // callable(*args, **kwargs). Throws SubjectError when it raises.
  PyRef operator()();

  explicit operator bool() const { return static_cast<bool>(callable_); }

 private:
  PyRef callable_;
  std::vector<PyRef> values_;  // the positional arguments, then the keyword values
  PyRef kwnames_;              // a tuple of the keyword names; empty when none
  std::size_t positional_ = 0;
  // One free slot in front, so callees may use PY_VECTORCALL_ARGUMENTS_OFFSET.
  std::vector<PyObject*> argv_;
};

// The contents of a bytes object (no copy). Throws SubjectError("TypeError")
// for anything else.
std::string_view bytes_data(PyObject* bytes);

// A new bytes object holding a copy of `data`.
PyRef make_bytes(std::string_view data);

// len() and [i] of a list or tuple. Throw SubjectError("TypeError") for
// anything else, or ("IndexError") past the end.
std::size_t sequence_size(PyObject* sequence);
PyRef sequence_item(PyObject* sequence, std::size_t index);

PyRef new_list();
// del list[:]
void clear_list(PyObject* list);

}  // namespace serialcheck::python
