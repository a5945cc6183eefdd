#define PY_SSIZE_T_CLEAN
#include "harness/python/stdlib.h"

#include <Python.h>

#include <mutex>
#include <utility>

#include "harness/python/interpreter.h"
#include "harness/subjects/stdlib_runner.h"

namespace serialcheck::python {
namespace {

constexpr const char* kModule = "serialcheck_stdlib";

// The module's Inexpressible as the kind properties discard by.
[[noreturn]] void rethrow(const SubjectError& e) {
  if (e.kind() == "Inexpressible") throw SubjectError("inexpressible", e.message(), e.detail());
  throw e;
}

// (dumps, loads) of the named pickler.
std::pair<PyRef, PyRef> functions(const std::string& pickler) {
  if (pickler == "c") {
    PyRef m = import_module("_pickle");
    return {get_attr(m.get(), "dumps"), get_attr(m.get(), "loads")};
  }
  if (pickler == "py") {
    PyRef m = import_module("pickle");
    return {get_attr(m.get(), "_dumps"), get_attr(m.get(), "_loads")};
  }
  if (pickler == "cloudpickle") {
    return {get_attr(import_module("cloudpickle").get(), "dumps"),
            get_attr(import_module("_pickle").get(), "loads")};
  }
  throw SubjectError("harness",
                     "no pickler \"" + pickler + "\" for stdlib recipes (c, py, cloudpickle)");
}

std::string text_of(PyObject* item) {
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(item, &size);
  if (utf8 == nullptr) throw_python_error("a description is not a str");
  return std::string(utf8, static_cast<std::size_t>(size));
}

}  // namespace

std::string dumps_recipe(const std::string& pickler, const std::string& recipe, int protocol) {
  Gil gil;
  try {
    PyRef dumps = functions(pickler).first;
    PyRef fn = get_attr(import_module(kModule).get(), "dumps_recipe");
    PyRef name = make_str(recipe);
    PyRef data = check(PyObject_CallFunction(fn.get(), "OiO", name.get(), protocol, dumps.get()));
    char* bytes = nullptr;
    Py_ssize_t size = 0;
    if (PyBytes_AsStringAndSize(data.get(), &bytes, &size) != 0) {
      throw_python_error("the pickler returned no bytes");
    }
    return std::string(bytes, static_cast<std::size_t>(size));
  } catch (const SubjectError& e) {
    rethrow(e);
  }
}

RecipeLoad loads_recipe(const std::string& pickler, const std::string& recipe,
                        std::string_view pickle) {
  Gil gil;
  try {
    PyRef loads = functions(pickler).second;
    PyRef fn = get_attr(import_module(kModule).get(), "load_compare");
    PyRef name = make_str(recipe);
    PyRef data =
        check(PyBytes_FromStringAndSize(pickle.data(), static_cast<Py_ssize_t>(pickle.size())));
    PyRef answer =
        check(PyObject_CallFunctionObjArgs(fn.get(), name.get(), data.get(), loads.get(), nullptr));
    if (!PyTuple_Check(answer.get()) || PyTuple_GET_SIZE(answer.get()) != 3) {
      throw SubjectError("harness", "serialcheck_stdlib.load_compare answered no 3-tuple");
    }
    RecipeLoad out;
    out.equal = PyObject_IsTrue(PyTuple_GET_ITEM(answer.get(), 0)) == 1;
    out.loaded = text_of(PyTuple_GET_ITEM(answer.get(), 1));
    out.expected = text_of(PyTuple_GET_ITEM(answer.get(), 2));
    return out;
  } catch (const SubjectError& e) {
    rethrow(e);
  }
}

void install_stdlib_runner() {
  static std::once_flag once;
  std::call_once(once, [] { set_stdlib_runner({dumps_recipe, loads_recipe}); });
}

}  // namespace serialcheck::python
