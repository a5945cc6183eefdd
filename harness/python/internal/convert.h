// Internal to harness/python: the small conversions both directions of the
// bridge (to_python.cpp, from_python.cpp) and the domain objects share.
// Everything here needs the GIL. Failures throw SubjectError: a pending
// Python exception keeps its type name as the kind; what the bridge itself
// finds wrong has the kind "BridgeError".
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/python/interpreter.h"

namespace serialcheck::python {

// The fixtures module (harness/gen/fixtures.h), whose Persistent objects
// stand for persistent ids.
inline constexpr std::string_view kFixturesModuleName = "serialcheck_fixtures";

// Throws SubjectError("BridgeError", message).
[[noreturn]] void bridge_error(std::string message);

// Throws the pending Python exception when a C API call returned < 0.
void check_rc(int rc);

// A str from a value's payload (UTF-8, lone surrogates allowed, as pickle writes them).
PyRef str_from_payload(std::string_view utf8);
// A str's payload (UTF-8, surrogatepass): the inverse of str_from_payload.
std::string payload_of_str(PyObject* str);
// The bytes a bytes object holds.
std::string bytes_of(PyObject* bytes);

// The getattr walk of pickle's _getattribute from `object` along the dotted
// `qualname`; a "<locals>" step is an AttributeError.
PyRef walk_qualname(PyRef object, std::string_view qualname);

// A shape, strides or size tuple, both ways. int64s_of throws
// bridge_error("<what> that is not a tuple") when `tuple` is not one.
std::vector<std::int64_t> int64s_of(PyObject* tuple, std::string_view what);
PyRef int64_tuple(const std::vector<std::int64_t>& values);

}  // namespace serialcheck::python
