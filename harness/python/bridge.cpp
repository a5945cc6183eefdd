#define PY_SSIZE_T_CLEAN
#include "harness/python/bridge.h"

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "harness/python/internal/convert.h"
#include "harness/subjects/subject.h"

// What both directions share (internal/convert.h) and resolve_global; the
// directions themselves are to_python.cpp and from_python.cpp.

namespace serialcheck::python {

[[noreturn]] void bridge_error(std::string message) {
  throw SubjectError("BridgeError", std::move(message));
}

void check_rc(int rc) {
  if (rc < 0) throw_python_error();
}

PyRef str_from_payload(std::string_view utf8) {
  return check(
      PyUnicode_DecodeUTF8(utf8.data(), static_cast<Py_ssize_t>(utf8.size()), "surrogatepass"));
}

std::string bytes_of(PyObject* bytes) {
  return std::string(PyBytes_AS_STRING(bytes), static_cast<std::size_t>(PyBytes_GET_SIZE(bytes)));
}

std::string payload_of_str(PyObject* str) {
  PyRef encoded = check(PyUnicode_AsEncodedString(str, "utf-8", "surrogatepass"));
  return bytes_of(encoded.get());
}

// The getattr walk of pickle's _getattribute: no "<locals>" step.
PyRef walk_qualname(PyRef object, std::string_view qualname) {
  std::size_t start = 0;
  while (true) {
    std::size_t dot = qualname.find('.', start);
    std::string_view part = qualname.substr(
        start, dot == std::string_view::npos ? std::string_view::npos : dot - start);
    if (part == "<locals>") {
      throw SubjectError("AttributeError", "Can't get local attribute '" + std::string(qualname) +
                                               "' on " + str_of(object.get()));
    }
    object = get_attr(object.get(), part);
    if (dot == std::string_view::npos) return object;
    start = dot + 1;
  }
}

std::vector<std::int64_t> int64s_of(PyObject* tuple, std::string_view what) {
  if (!PyTuple_Check(tuple)) bridge_error(std::string(what) + " that is not a tuple");
  std::vector<std::int64_t> out;
  for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tuple); ++i) {
    long long v = PyLong_AsLongLong(PyTuple_GET_ITEM(tuple, i));
    if (v == -1 && PyErr_Occurred()) throw_python_error();
    out.push_back(v);
  }
  return out;
}

PyRef int64_tuple(const std::vector<std::int64_t>& values) {
  PyRef t = check(PyTuple_New(static_cast<Py_ssize_t>(values.size())));
  for (std::size_t i = 0; i < values.size(); ++i) {
    PyTuple_SET_ITEM(t.get(), static_cast<Py_ssize_t>(i),
                     check(PyLong_FromLongLong(values[i])).release());
  }
  return t;
}

namespace {

// _compat_pickle's Python 2 -> 3 renames, as find_class applies them.
std::optional<std::pair<std::string, std::string>> compat_name(std::string_view module,
                                                               std::string_view qualname) {
  PyRef compat = import_module("_compat_pickle");
  PyRef key = check(Py_BuildValue("(s#s#)", module.data(), static_cast<Py_ssize_t>(module.size()),
                                  qualname.data(), static_cast<Py_ssize_t>(qualname.size())));
  PyRef names = get_attr(compat.get(), "NAME_MAPPING");
  PyObject* hit = PyDict_GetItemWithError(names.get(), key.get());  // borrowed
  if (hit == nullptr && PyErr_Occurred()) throw_python_error();
  if (hit != nullptr && PyTuple_Check(hit) && PyTuple_GET_SIZE(hit) == 2) {
    return std::make_pair(payload_of_str(PyTuple_GET_ITEM(hit, 0)),
                          payload_of_str(PyTuple_GET_ITEM(hit, 1)));
  }
  PyRef modules = get_attr(compat.get(), "IMPORT_MAPPING");
  PyRef module_key = make_str(module);
  hit = PyDict_GetItemWithError(modules.get(), module_key.get());
  if (hit == nullptr && PyErr_Occurred()) throw_python_error();
  if (hit != nullptr && PyUnicode_Check(hit)) {
    return std::make_pair(payload_of_str(hit), std::string(qualname));
  }
  return std::nullopt;
}

}  // namespace

PyRef resolve_global(std::string_view module, std::string_view qualname) {
  try {
    return walk_qualname(import_module(module), qualname);
  } catch (const SubjectError&) {
    auto renamed = compat_name(module, qualname);
    if (!renamed) throw;
    return walk_qualname(import_module(renamed->first), renamed->second);
  }
}

}  // namespace serialcheck::python
