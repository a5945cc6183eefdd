// The embedded CPython interpreter: one per process, started on first use.
//
// It is Debian's interpreter (the one the build was configured with), so the
// packages the Python subjects need (numpy, torch, cloudpickle, distributed)
// are on sys.path. PYTHON* environment variables are ignored on purpose: they
// usually belong to some other Python on PATH and would point this one at the
// wrong standard library.
//
// Threads: after start-up the GIL is released; any thread that touches a
// PyObject holds a `Gil` for the duration. The interpreter is never
// finalized (extension modules such as torch do not survive re-initialization,
// and finalizing at exit races their threads).
//
// This header does not include Python.h, so code outside harness/python and
// the Python subjects can hold and pass PyObject pointers without it.
#pragma once

#include <string>
#include <string_view>

typedef struct _object PyObject;  // the same declaration Python.h makes

namespace serialcheck::python {

// Starts the interpreter if needed. False, with `reason` set, when it cannot
// start (the library is missing its standard library, ...). Thread-safe.
bool python_available(std::string* reason = nullptr);

// Holds the GIL for its lifetime (PyGILState_Ensure/Release); nests. Starts
// the interpreter if needed and throws SubjectError("PythonUnavailable", ...)
// when it cannot.
class Gil {
 public:
  Gil();
  ~Gil();
  Gil(const Gil&) = delete;
  Gil& operator=(const Gil&) = delete;

 private:
  int state_;  // PyGILState_STATE
};

// Owns one strong reference. Copying, assigning and destroying a non-empty
// PyRef touch the reference count, so they need the GIL.
class PyRef {
 public:
  PyRef() = default;
  // Takes over a new reference (may be null).
  static PyRef steal(PyObject* object) { return PyRef(object); }
  // Adds a reference to a borrowed one.
  static PyRef borrow(PyObject* object);

  PyRef(const PyRef& other);
  PyRef& operator=(const PyRef& other);
  PyRef(PyRef&& other) noexcept : object_(other.object_) { other.object_ = nullptr; }
  PyRef& operator=(PyRef&& other) noexcept;
  ~PyRef();

  PyObject* get() const { return object_; }
  // Gives up ownership: the caller now owns the reference.
  PyObject* release() {
    PyObject* o = object_;
    object_ = nullptr;
    return o;
  }
  explicit operator bool() const { return object_ != nullptr; }

 private:
  explicit PyRef(PyObject* object) : object_(object) {}
  PyObject* object_ = nullptr;
};

// Turns the pending Python exception into SubjectError(kind = the exception
// type's name, message = str(exception)) and clears it. With no exception
// pending, throws SubjectError("SystemError", context).
[[noreturn]] void throw_python_error(std::string_view context = "no Python exception was set");

// A caller that goes back to Python after a SubjectError (the extension
// module, harness/python/module) must raise the original exception, not its
// type name and message. While a KeepPythonError lives on this thread,
// throw_python_error also keeps the exception it converts (the latest one);
// restore(kind) makes it the pending Python exception again when it is the
// one a SubjectError of that kind came from. Needs the GIL.
class KeepPythonError {
 public:
  KeepPythonError();
  ~KeepPythonError();
  KeepPythonError(const KeepPythonError&) = delete;
  KeepPythonError& operator=(const KeepPythonError&) = delete;
  // False when the kept exception is not of type `kind` (or there is none).
  bool restore(std::string_view kind);
};

// Throws the pending exception when `object` is null; otherwise owns it.
PyRef check(PyObject* new_reference);

// The small toolkit the subjects and tests use. All need the GIL.
PyRef make_str(std::string_view utf8);  // strict UTF-8
PyRef import_module(std::string_view name);
PyRef get_attr(PyObject* object, std::string_view name);
// Runs statements / evaluates an expression in the namespace of __main__.
void exec(std::string_view code);
PyRef eval(std::string_view expression);
// Binds `name` in __main__ to `value`.
void set_main(std::string_view name, PyObject* value);
// str(object), or "<unprintable ...>" when str() itself fails.
std::string str_of(PyObject* object);
// type(object).__name__.
std::string type_name(PyObject* object);

}  // namespace serialcheck::python
