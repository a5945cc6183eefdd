#define PY_SSIZE_T_CLEAN
#include "harness/python/interpreter.h"

#include <Python.h>

#include <mutex>

#include "harness/subjects/subject.h"

#ifndef SERIALCHECK_PYTHON_EXECUTABLE
#define SERIALCHECK_PYTHON_EXECUTABLE "python3"
#endif

namespace serialcheck::python {
namespace {

struct Startup {
  bool ok = false;
  std::string reason;
};

std::string status_text(const PyStatus& status, const char* what) {
  std::string text = what;
  if (status.func != nullptr) text += std::string(" (") + status.func + ")";
  if (status.err_msg != nullptr) text += std::string(": ") + status.err_msg;
  return text;
}

Startup start() {
  Startup s;
  if (Py_IsInitialized()) {  // someone else embedded it first: use theirs
    s.ok = true;
    return s;
  }
  PyConfig config;
  PyConfig_InitPythonConfig(&config);
  config.parse_argv = 0;
  config.install_signal_handlers = 0;  // the host program keeps SIGINT
  config.use_environment = 0;          // see interpreter.h
  config.user_site_directory = 0;      // no per-user packages shadowing Debian's
  // The program name is what the path calculation starts from: naming
  // Debian's executable gives its prefix, stdlib and dist-packages.
  PyStatus status =
      PyConfig_SetBytesString(&config, &config.program_name, SERIALCHECK_PYTHON_EXECUTABLE);
  if (!PyStatus_Exception(status)) status = Py_InitializeFromConfig(&config);
  PyConfig_Clear(&config);
  if (PyStatus_Exception(status)) {
    s.reason = status_text(status, "cannot start the embedded Python interpreter");
    return s;
  }
  // Sanity check: the standard library must be importable.
  PyObject* pickle = PyImport_ImportModule("pickle");
  if (pickle == nullptr) {
    PyErr_Clear();
    s.reason = "the embedded Python interpreter cannot import its standard library";
  } else {
    Py_DECREF(pickle);
    s.ok = true;
  }
#ifdef SERIALCHECK_FIXTURES_DIR
  // The fixtures module every Python subject imports (harness/gen/fixtures.h).
  if (s.ok) {
    PyObject* path = PySys_GetObject("path");  // borrowed
    PyObject* dir = PyUnicode_FromString(SERIALCHECK_FIXTURES_DIR);
    if (path == nullptr || dir == nullptr || PyList_Append(path, dir) != 0) PyErr_Clear();
    Py_XDECREF(dir);
  }
#endif
  // Hand the GIL back: from here on every user takes it with Gil.
  PyEval_SaveThread();
  return s;
}

const Startup& startup() {
  static std::once_flag once;
  static Startup result;
  std::call_once(once, [] { result = start(); });
  return result;
}

}  // namespace

bool python_available(std::string* reason) {
  const Startup& s = startup();
  if (!s.ok && reason != nullptr) *reason = s.reason;
  return s.ok;
}

Gil::Gil() {
  const Startup& s = startup();
  if (!s.ok) throw SubjectError("PythonUnavailable", s.reason);
  state_ = static_cast<int>(PyGILState_Ensure());
}

Gil::~Gil() {
  PyGILState_Release(static_cast<PyGILState_STATE>(state_));
}

PyRef PyRef::borrow(PyObject* object) {
  Py_XINCREF(object);
  return PyRef(object);
}

PyRef::PyRef(const PyRef& other) : object_(other.object_) {
  Py_XINCREF(object_);
}

PyRef& PyRef::operator=(const PyRef& other) {
  if (this != &other) {
    Py_XINCREF(other.object_);
    Py_XDECREF(object_);
    object_ = other.object_;
  }
  return *this;
}

PyRef& PyRef::operator=(PyRef&& other) noexcept {
  if (this != &other) {
    Py_XDECREF(object_);
    object_ = other.object_;
    other.object_ = nullptr;
  }
  return *this;
}

PyRef::~PyRef() {
  Py_XDECREF(object_);
}

std::string str_of(PyObject* object) {
  PyObject* text = PyObject_Str(object);
  if (text != nullptr) {
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(text, &size);
    if (utf8 != nullptr) {
      std::string out(utf8, static_cast<std::size_t>(size));
      Py_DECREF(text);
      return out;
    }
    Py_DECREF(text);
  }
  PyErr_Clear();
  return "<unprintable " + type_name(object) + " object>";
}

std::string type_name(PyObject* object) {
  // tp_name may be dotted ("_pickle.PicklingError"); the last part is __name__.
  std::string_view full = Py_TYPE(object)->tp_name;
  std::size_t dot = full.rfind('.');
  return std::string(dot == std::string_view::npos ? full : full.substr(dot + 1));
}

namespace {
// The exception kept for KeepPythonError (type, value, traceback); plain
// pointers, so that no thread-exit destructor touches Python.
struct KeptError {
  int keepers = 0;
  PyObject* type = nullptr;
  PyObject* value = nullptr;
  PyObject* traceback = nullptr;
  void drop() {
    Py_CLEAR(type);
    Py_CLEAR(value);
    Py_CLEAR(traceback);
  }
};
thread_local KeptError kept_error;
}  // namespace

KeepPythonError::KeepPythonError() {
  ++kept_error.keepers;
}

KeepPythonError::~KeepPythonError() {
  if (--kept_error.keepers == 0) kept_error.drop();
}

bool KeepPythonError::restore(std::string_view kind) {
  if (kept_error.value == nullptr || type_name(kept_error.value) != kind) return false;
  PyErr_Restore(kept_error.type, kept_error.value, kept_error.traceback);  // steals them
  kept_error.type = kept_error.value = kept_error.traceback = nullptr;
  return true;
}

void throw_python_error(std::string_view context) {
  PyObject* type = nullptr;
  PyObject* exception = nullptr;
  PyObject* traceback = nullptr;
  PyErr_Fetch(&type, &exception, &traceback);
  if (type == nullptr) throw SubjectError("SystemError", std::string(context));
  PyErr_NormalizeException(&type, &exception, &traceback);
  PyRef owned_type = PyRef::steal(type);
  PyRef owned_value = PyRef::steal(exception);
  PyRef owned_traceback = PyRef::steal(traceback);
  if (kept_error.keepers > 0) {
    kept_error.drop();
    kept_error.type = PyRef(owned_type).release();
    kept_error.value = PyRef(owned_value).release();
    kept_error.traceback = PyRef(owned_traceback).release();
  }
  if (exception == nullptr) throw SubjectError(type_name(type), "");
  std::string kind = type_name(exception);
  std::string message = str_of(exception);
  throw SubjectError(std::move(kind), std::move(message));
}

PyRef check(PyObject* new_reference) {
  if (new_reference == nullptr) throw_python_error();
  return PyRef::steal(new_reference);
}

PyRef make_str(std::string_view utf8) {
  return check(PyUnicode_FromStringAndSize(utf8.data(), static_cast<Py_ssize_t>(utf8.size())));
}

PyRef import_module(std::string_view name) {
  PyRef text = make_str(name);
  return check(PyImport_Import(text.get()));
}

PyRef get_attr(PyObject* object, std::string_view name) {
  PyRef text = make_str(name);
  return check(PyObject_GetAttr(object, text.get()));
}

namespace {
PyObject* main_dict() {
  PyObject* main = PyImport_AddModule("__main__");  // borrowed
  if (main == nullptr) throw_python_error();
  return PyModule_GetDict(main);  // borrowed
}

PyRef run(std::string_view code, int start) {
  std::string text(code);  // PyRun_String wants a NUL-terminated string
  PyObject* globals = main_dict();
  return check(PyRun_String(text.c_str(), start, globals, globals));
}
}  // namespace

void exec(std::string_view code) {
  run(code, Py_file_input);
}

PyRef eval(std::string_view expression) {
  return run(expression, Py_eval_input);
}

void set_main(std::string_view name, PyObject* value) {
  PyRef key = make_str(name);
  if (PyDict_SetItem(main_dict(), key.get(), value) != 0) throw_python_error();
}

}  // namespace serialcheck::python
