#define PY_SSIZE_T_CLEAN
#include "harness/subjects/python_subjects.h"

#include <Python.h>

#include <algorithm>
#include <utility>

#include "harness/props/value_tools.h"
#include "harness/python/bridge.h"
#include "harness/python/buffers.h"
#include "harness/python/byvalue.h"
#include "harness/python/stdlib.h"
#include "harness/subjects/phase_clock.h"

namespace serialcheck {

std::string embedded_python_version() {
  return std::to_string(PY_MAJOR_VERSION) + "." + std::to_string(PY_MINOR_VERSION) + "." +
         std::to_string(PY_MICRO_VERSION);
}

using python::check;
using python::Gil;
using python::PyRef;

// ---- PythonSubject ----------------------------------------------------------

std::optional<std::string> PythonSubject::unavailable_reason() const {
  std::string why;
  if (!python::python_available(&why)) {
    return "the embedded Python interpreter is unavailable: " + why;
  }
  // The GIL guards checked_ and reason_ (a once_flag could deadlock: the
  // imports below let other threads, which may be waiting here, run Python).
  Gil gil;
  if (!checked_) {
    std::optional<std::string> reason;
    for (const std::string& module : modules_) {
      try {
        python::import_module(module);
      } catch (const SubjectError& e) {
        reason = "cannot import " + module + ": " + e.what();
        break;
      }
    }
    reason_ = std::move(reason);
    checked_ = true;
  }
  return reason_;
}

void PythonSubject::install_by_value() {
  python::install_by_value_runner();
}

void PythonSubject::install_stdlib() {
  python::install_stdlib_runner();
}

void PythonSubject::require_available() const {
  if (auto reason = unavailable_reason()) throw SubjectError("unavailable", *reason);
}

int PythonSubject::describe_protocol(const Message& message) const {
  const auto& header = message.header;
  if (header.is_object() && header.contains("protocol") && header["protocol"].is_number_integer()) {
    int p = header["protocol"].get<int>();
    if (p >= 0 && p <= 5) return p;
  }
  return 5;
}

namespace {

bool holds_persistent_ids(const Node* root) {
  const auto nodes = reachable(root);
  return std::any_of(nodes.begin(), nodes.end(),
                     [](const Node* n) { return n->kind == Kind::PersId; });
}

// A subclass of `cls` from the fixtures module (with_persistent_ids or
// with_persistent_load).
PyRef persistent_subclass(const char* maker, PyObject* cls) {
  PyRef make = python::get_attr(python::import_module("serialcheck_fixtures").get(), maker);
  return check(PyObject_CallOneArg(make.get(), cls));
}

}  // namespace

Message PythonSubject::dumps(const Node* value, const DumpOptions& options) {
  require_available();
  Gil gil;
  PyRef object;
  {
    phase::Scope timed(phase::Phase::Bridge);
    object = python::to_python(value);
  }
  persistent_ids_ = holds_persistent_ids(value);
  struct Reset {
    bool& flag;
    ~Reset() { flag = false; }
  } reset{persistent_ids_};
  return dumps_object(object.get(), options);
}

Node* PythonSubject::loads(const Message& message, Graph& graph, const LoadOptions& options) {
  require_available();
  Gil gil;
  PyRef object = loads_object(message, options);
  python::BridgeOptions bridge;
  bridge.protocol = describe_protocol(message);
  {
    phase::Scope timed(phase::Phase::Bridge);
    graph.root = python::from_python(object.get(), graph, bridge);
  }
  return graph.root;
}

namespace {

// ---- the pickle subjects ----------------------------------------------------

enum class Flavor { C, Pure, Cloud };

class PickleSubject final : public PythonSubject {
 public:
  PickleSubject(std::string name, Flavor flavor, std::string module)
      : PythonSubject(modules_for(flavor, module)),
        name_(std::move(name)),
        flavor_(flavor),
        module_(std::move(module)) {}

  std::string name() const override { return name_; }

  Capabilities capabilities() const override {
    Capabilities caps;
    caps.min_protocol = 0;
    caps.max_protocol = 5;
    caps.out_of_band = true;
    caps.limit_loader = false;  // Python's loaders read every protocol they know
    caps.pickle_format = true;
    caps.cpython_bytes = flavor_ == Flavor::C;
    caps.c_pickler = flavor_ != Flavor::Pure;
    caps.python_values = true;
    caps.python_version = embedded_python_version();
    caps.families = {"pickle"};
    // pickle's dumps and loads take fix_imports and encoding; cloudpickle's
    // CloudPickler takes no fix_imports.
    caps.python2_choices = flavor_ != Flavor::Cloud;
    if (flavor_ == Flavor::Cloud) caps.by_value_pickler = module_;
    caps.stdlib_recipes = true;
    return caps;
  }

  // cross.stdlib: serialcheck_stdlib's values, dumped and loaded with this
  // subject's own pickler in the embedded interpreter.
  std::string dumps_recipe(const std::string& recipe, int protocol) override {
    require_available();
    return python::dumps_recipe(recipe_pickler(), recipe, protocol);
  }

  RecipeLoad loads_recipe(const std::string& recipe, std::string_view pickle) override {
    require_available();
    return python::loads_recipe(recipe_pickler(), recipe, pickle);
  }

  Message dumps_object(PyObject* object, const DumpOptions& options) override {
    require_available();
    Gil gil;
    // Buffers go out of band only when asked and possible (protocol 5).
    bool out_of_band = options.out_of_band && options.protocol >= 5;
    PyRef buffers = check(PyList_New(0));
    PyRef callback =
        out_of_band ? python::get_attr(buffers.get(), "append") : PyRef::borrow(Py_None);
    PyRef kwargs = check(Py_BuildValue("{s:i,s:O}", "protocol", options.protocol, "buffer_callback",
                                       callback.get()));
    if (flavor_ != Flavor::Cloud && !options.fix_imports) {
      if (PyDict_SetItemString(kwargs.get(), "fix_imports", Py_False) != 0) {
        python::throw_python_error();
      }
    }
    PyRef data;
    if (flavor_ == Flavor::Pure || persistent_ids_) {
      PyRef file = check(PyObject_CallNoArgs(python::get_attr(io().get(), "BytesIO").get()));
      const char* name = flavor_ == Flavor::Pure    ? "_Pickler"
                         : flavor_ == Flavor::Cloud ? "CloudPickler"
                                                    : "Pickler";
      PyRef pickler_class = python::get_attr(main_module().get(), name);
      if (persistent_ids_) {
        pickler_class = persistent_subclass("with_persistent_ids", pickler_class.get());
      }
      PyRef args = check(Py_BuildValue("(O)", file.get()));
      PyRef pickler = check(PyObject_Call(pickler_class.get(), args.get(), kwargs.get()));
      check(PyObject_CallMethod(pickler.get(), "dump", "(O)", object));
      data = check(PyObject_CallMethod(file.get(), "getvalue", nullptr));
    } else {
      PyRef dumps = python::get_attr(main_module().get(), "dumps");
      PyRef args = check(Py_BuildValue("(O)", object));
      data = check(PyObject_Call(dumps.get(), args.get(), kwargs.get()));
    }

    Message message;
    message.frames.push_back(python::frame_from_buffer(data.get()));
    nlohmann::json writeable = nlohmann::json::array();
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(buffers.get()); ++i) {
      Frame frame = python::frame_from_buffer(PyList_GET_ITEM(buffers.get(), i));
      writeable.push_back(!frame.readonly);
      message.frames.push_back(std::move(frame));
    }
    message.header = {{"serializer", "pickle"},
                      {"protocol", options.protocol},
                      {"writeable", std::move(writeable)}};
    return message;
  }

  PyRef loads_object(const Message& message, const LoadOptions& options) override {
    require_available();
    if (message.frames.empty()) throw SubjectError("bad-message", "no pickle frame");
    const auto& header = message.header;
    if (header.is_object() && header.contains("serializer") && header["serializer"] != "pickle") {
      throw SubjectError("bad-message",
                         "serializer " + header["serializer"].dump() + " is not pickle");
    }
    const nlohmann::json* writeable = nullptr;
    if (header.is_object() && header.contains("writeable") && header["writeable"].is_array()) {
      writeable = &header["writeable"];
    }
    Gil gil;
    PyRef data = python::frame_exporter(message.frames[0], /*readonly=*/true);
    PyRef buffers = PyRef::borrow(Py_None);
    if (message.frames.size() > 1) {
      buffers = check(PyList_New(0));
      for (std::size_t i = 1; i < message.frames.size(); ++i) {
        const Frame& frame = message.frames[i];
        bool readonly = frame.readonly;
        // The header travels with the frames and says what the buffer was.
        if (writeable != nullptr && i - 1 < writeable->size() && (*writeable)[i - 1].is_boolean()) {
          readonly = !(*writeable)[i - 1].get<bool>();
        }
        PyRef buffer = buffer_for(frame, readonly);
        if (PyList_Append(buffers.get(), buffer.get()) != 0) python::throw_python_error();
      }
    }
    PyRef kwargs = check(Py_BuildValue("{s:O}", "buffers", buffers.get()));
    // What Python 2 wrote: how its str loads, and whether its module names
    // are mapped (cross.py2); the loader's defaults otherwise.
    if (!options.encoding.empty()) {
      PyRef encoding = check(PyUnicode_FromString(options.encoding.c_str()));
      if (PyDict_SetItemString(kwargs.get(), "encoding", encoding.get()) != 0) {
        python::throw_python_error();
      }
    }
    if (!options.fix_imports && PyDict_SetItemString(kwargs.get(), "fix_imports", Py_False) != 0) {
      python::throw_python_error();
    }
    if (options.inert_globals) return inert_load(data.get(), kwargs.get());
    if (flavor_ == Flavor::Pure) {
      PyRef file =
          check(PyObject_CallOneArg(python::get_attr(io().get(), "BytesIO").get(), data.get()));
      PyRef unpickler_class = persistent_subclass(
          "with_persistent_load", python::get_attr(main_module().get(), "_Unpickler").get());
      PyRef args = check(Py_BuildValue("(O)", file.get()));
      PyRef unpickler = check(PyObject_Call(unpickler_class.get(), args.get(), kwargs.get()));
      return check(PyObject_CallMethod(unpickler.get(), "load", nullptr));
    }
    // cloudpickle's output is loaded by the plain C unpickler, as it is in use.
    PyRef c_module = flavor_ == Flavor::Cloud ? python::import_module("_pickle") : main_module();
    PyRef loads = python::get_attr(c_module.get(), "loads");
    PyRef args = check(Py_BuildValue("(O)", data.get()));
    PyObject* loaded = PyObject_Call(loads.get(), args.get(), kwargs.get());
    if (loaded != nullptr || !persistent_id_error()) return check(loaded);
    // A stream with persistent ids: again, with the fixtures module's
    // persistent_load (loads() alone has none).
    PyErr_Clear();
    PyRef file =
        check(PyObject_CallOneArg(python::get_attr(io().get(), "BytesIO").get(), data.get()));
    PyRef unpickler_class = persistent_subclass(
        "with_persistent_load", python::get_attr(c_module.get(), "Unpickler").get());
    PyRef file_args = check(Py_BuildValue("(O)", file.get()));
    PyRef unpickler = check(PyObject_Call(unpickler_class.get(), file_args.get(), kwargs.get()));
    return check(PyObject_CallMethod(unpickler.get(), "load", nullptr));
  }

 private:
  static std::vector<std::string> modules_for(Flavor flavor, const std::string& module) {
    if (flavor == Flavor::Pure) return {module, "io"};
    if (flavor == Flavor::Cloud) return {module, "_pickle"};
    return {module};
  }

  PyRef main_module() const { return python::import_module(module_); }

  // The subject's unpickler with every global an inert stand-in
  // (LoadOptions::inert_globals): nothing is imported or called.
  PyRef inert_load(PyObject* data, PyObject* kwargs) const {
    PyRef base = flavor_ == Flavor::Pure
                     ? python::get_attr(main_module().get(), "_Unpickler")
                     : python::get_attr(python::import_module("_pickle").get(), "Unpickler");
    PyRef unpickler_class = persistent_subclass("inert_unpickler", base.get());
    // Read as loads() reads bytes, not in a BytesIO's chunks.
    PyRef whole =
        python::get_attr(python::import_module("serialcheck_fixtures").get(), "WholeStream");
    PyRef file = check(PyObject_CallOneArg(whole.get(), data));
    PyRef args = check(Py_BuildValue("(O)", file.get()));
    PyRef unpickler = check(PyObject_Call(unpickler_class.get(), args.get(), kwargs));
    return check(PyObject_CallMethod(unpickler.get(), "load", nullptr));
  }

  const char* recipe_pickler() const {
    return flavor_ == Flavor::C ? "c" : flavor_ == Flavor::Pure ? "py" : "cloudpickle";
  }

  // The pending exception is the C unpickler's "no persistent_load" error.
  static bool persistent_id_error() {
    if (!PyErr_Occurred()) return false;
    PyObject *type, *value, *traceback;
    PyErr_Fetch(&type, &value, &traceback);
    PyErr_NormalizeException(&type, &value, &traceback);
    bool match = false;
    if (value != nullptr) {
      std::string text = python::str_of(value);
      match = text.find("persistent id instruction") != std::string::npos &&
              text.find("no persistent_load") != std::string::npos;
    }
    PyErr_Restore(type, value, traceback);
    return match;
  }
  static PyRef io() { return python::import_module("io"); }

  // A PickleBuffer over the frame's memory; a copy when the buffer must be
  // writable and the frame is not.
  static PyRef buffer_for(const Frame& frame, bool readonly) {
    PyRef base;
    if (!readonly && frame.readonly) {
      base = check(PyByteArray_FromStringAndSize(reinterpret_cast<const char*>(frame.data),
                                                 static_cast<Py_ssize_t>(frame.size)));
    } else {
      base = python::frame_exporter(frame, readonly);
    }
    return check(PyPickleBuffer_FromObject(base.get()));
  }

  std::string name_;
  Flavor flavor_;
  std::string module_;
};

}  // namespace

std::unique_ptr<PythonSubject> make_cpython_subject(std::string module) {
  return std::make_unique<PickleSubject>("cpython", Flavor::C, std::move(module));
}

std::unique_ptr<PythonSubject> make_cpython_py_subject(std::string module) {
  return std::make_unique<PickleSubject>("cpython-py", Flavor::Pure, std::move(module));
}

std::unique_ptr<PythonSubject> make_cloudpickle_subject(std::string module) {
  return std::make_unique<PickleSubject>("cloudpickle", Flavor::Cloud, std::move(module));
}

std::vector<std::unique_ptr<Subject>> make_python_subjects() {
  std::vector<std::unique_ptr<Subject>> subjects;
  subjects.push_back(make_cpython_subject());
  subjects.push_back(make_cpython_py_subject());
  subjects.push_back(make_cloudpickle_subject());
  subjects.push_back(make_distributed_subject());
  return subjects;
}

std::vector<SubjectFactory> python_subject_factories() {
  std::vector<SubjectFactory> factories;
  for (const auto& subject : make_python_subjects()) {
    std::string name = subject->name();
    factories.push_back({name, [name]() -> std::unique_ptr<Subject> {
                           for (auto& s : make_python_subjects()) {
                             if (s->name() == name) return std::move(s);
                           }
                           return nullptr;
                         }});
  }
  return factories;
}

}  // namespace serialcheck
