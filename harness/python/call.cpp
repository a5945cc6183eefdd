#define PY_SSIZE_T_CLEAN
#include "harness/python/call.h"

#include <Python.h>

#include "harness/subjects/subject.h"

namespace serialcheck::python {

BoundCall::BoundCall(PyRef callable, std::vector<PyRef> args,
                     std::vector<std::pair<std::string, PyRef>> kwargs)
    : callable_(std::move(callable)), values_(std::move(args)), positional_(values_.size()) {
  if (!kwargs.empty()) {
    kwnames_ = check(PyTuple_New(static_cast<Py_ssize_t>(kwargs.size())));
    for (std::size_t i = 0; i < kwargs.size(); ++i) {
      PyTuple_SET_ITEM(kwnames_.get(), static_cast<Py_ssize_t>(i),
                       make_str(kwargs[i].first).release());
      values_.push_back(std::move(kwargs[i].second));
    }
  }
  argv_.assign(values_.size() + 1, nullptr);
  for (std::size_t i = 0; i < values_.size(); ++i) argv_[i + 1] = values_[i].get();
}

PyRef BoundCall::operator()() {
  if (!callable_) throw SubjectError("TypeError", "calling an unbound BoundCall");
  return check(PyObject_Vectorcall(callable_.get(), argv_.data() + 1,
                                   positional_ | PY_VECTORCALL_ARGUMENTS_OFFSET, kwnames_.get()));
}

std::string_view bytes_data(PyObject* bytes) {
  if (bytes == nullptr || !PyBytes_Check(bytes)) {
    throw SubjectError("TypeError", "expected bytes, got " + (bytes == nullptr ? std::string("NULL")
                                                                               : type_name(bytes)));
  }
  return {PyBytes_AS_STRING(bytes), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes))};
}

PyRef make_bytes(std::string_view data) {
  return check(PyBytes_FromStringAndSize(data.data(), static_cast<Py_ssize_t>(data.size())));
}

std::size_t sequence_size(PyObject* sequence) {
  if (PyList_Check(sequence)) return static_cast<std::size_t>(PyList_GET_SIZE(sequence));
  if (PyTuple_Check(sequence)) return static_cast<std::size_t>(PyTuple_GET_SIZE(sequence));
  throw SubjectError("TypeError", "expected a list or tuple, got " + type_name(sequence));
}

PyRef sequence_item(PyObject* sequence, std::size_t index) {
  if (index >= sequence_size(sequence)) {
    throw SubjectError("IndexError", "index " + std::to_string(index) + " out of range");
  }
  auto i = static_cast<Py_ssize_t>(index);
  return PyRef::borrow(PyList_Check(sequence) ? PyList_GET_ITEM(sequence, i)
                                              : PyTuple_GET_ITEM(sequence, i));
}

PyRef new_list() {
  return check(PyList_New(0));
}

void clear_list(PyObject* list) {
  if (!PyList_Check(list))
    throw SubjectError("TypeError", "expected a list, got " + type_name(list));
  if (PyList_SetSlice(list, 0, PY_SSIZE_T_MAX, nullptr) != 0) throw_python_error();
}

}  // namespace serialcheck::python
