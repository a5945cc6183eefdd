// The `distributed` subject: dask.distributed's serialize() / deserialize()
// with its default families ("dask" first, then "pickle"). Headers are
// Python dicts that distributed sends as msgpack; here they become JSON
// (bytes as JSON binary, tuples as arrays, as msgpack would turn them into
// lists anyway) and back.
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <string>
#include <utility>

#include "harness/python/bridge.h"
#include "harness/python/buffers.h"
#include "harness/python/call.h"
#include "harness/subjects/python_subjects.h"
#include "harness/subjects/phase_clock.h"

namespace serialcheck {
namespace {

using python::check;
using python::Gil;
using python::PyRef;

constexpr int kMaxHeaderDepth = 64;  // headers are shallow; this bounds recursion

[[noreturn]] void header_error(std::string message) {
  throw SubjectError("bad-header", std::move(message));
}

nlohmann::json header_to_json(PyObject* o, int depth) {
  if (depth > kMaxHeaderDepth) header_error("header nested too deeply");
  if (o == Py_None) return nullptr;
  if (PyBool_Check(o)) return o == Py_True;
  if (PyLong_Check(o)) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) python::throw_python_error();
    if (overflow == 0) return v;
    unsigned long long u = PyLong_AsUnsignedLongLong(o);
    if (PyErr_Occurred()) {
      PyErr_Clear();
      header_error("header integer out of the 64-bit range: " + python::str_of(o));
    }
    return u;
  }
  if (PyFloat_Check(o)) return PyFloat_AS_DOUBLE(o);
  if (PyUnicode_Check(o)) {
    Py_ssize_t size = 0;
    const char* utf8 = PyUnicode_AsUTF8AndSize(o, &size);
    if (utf8 == nullptr) python::throw_python_error();
    return std::string(utf8, static_cast<std::size_t>(size));
  }
  if (PyBytes_Check(o)) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(PyBytes_AS_STRING(o));
    return nlohmann::json::binary(std::vector<std::uint8_t>(p, p + PyBytes_GET_SIZE(o)));
  }
  if (PyList_Check(o) || PyTuple_Check(o)) {
    PyRef items = check(PySequence_List(o));
    nlohmann::json array = nlohmann::json::array();
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items.get()); ++i) {
      array.push_back(header_to_json(PyList_GET_ITEM(items.get(), i), depth + 1));
    }
    return array;
  }
  if (PyDict_Check(o)) {
    nlohmann::json object = nlohmann::json::object();
    PyRef pairs = check(PyDict_Items(o));
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(pairs.get()); ++i) {
      PyObject* pair = PyList_GET_ITEM(pairs.get(), i);
      PyObject* key = PyTuple_GET_ITEM(pair, 0);
      if (!PyUnicode_Check(key)) {
        header_error("header keys must be strings, not " + python::type_name(key));
      }
      object[header_to_json(key, depth + 1).get<std::string>()] =
          header_to_json(PyTuple_GET_ITEM(pair, 1), depth + 1);
    }
    return object;
  }
  header_error("a header cannot hold a " + python::type_name(o) + " object");
}

PyRef header_from_json(const nlohmann::json& j, int depth) {
  if (depth > kMaxHeaderDepth) header_error("header nested too deeply");
  using Type = nlohmann::json::value_t;
  switch (j.type()) {
    case Type::null: return PyRef::borrow(Py_None);
    case Type::boolean: return PyRef::borrow(j.get<bool>() ? Py_True : Py_False);
    case Type::number_integer: return check(PyLong_FromLongLong(j.get<long long>()));
    case Type::number_unsigned:
      return check(PyLong_FromUnsignedLongLong(j.get<unsigned long long>()));
    case Type::number_float: return check(PyFloat_FromDouble(j.get<double>()));
    case Type::string: return python::make_str(j.get_ref<const std::string&>());
    case Type::binary: {
      const auto& bin = j.get_binary();
      return check(PyBytes_FromStringAndSize(reinterpret_cast<const char*>(bin.data()),
                                             static_cast<Py_ssize_t>(bin.size())));
    }
    case Type::array: {
      PyRef list = check(PyList_New(0));
      for (const auto& item : j) {
        PyRef value = header_from_json(item, depth + 1);
        if (PyList_Append(list.get(), value.get()) != 0) python::throw_python_error();
      }
      // A tuple, as distributed's wire format reads arrays (msgpack with
      // use_list=False): a tuple dict key stored in a header stays hashable.
      return check(PyList_AsTuple(list.get()));
    }
    case Type::object: {
      PyRef dict = check(PyDict_New());
      for (const auto& [key, item] : j.items()) {
        PyRef value = header_from_json(item, depth + 1);
        PyRef name = python::make_str(key);
        if (PyDict_SetItem(dict.get(), name.get(), value.get()) != 0) {
          python::throw_python_error();
        }
      }
      return dict;
    }
    case Type::discarded: break;
  }
  header_error("a header cannot hold a discarded JSON value");
}

// distributed logs through Python logging ("INFO - Failed to serialize ..."
// when a family gives up), and the handler it installs writes to the worker's
// stderr, which is the user's terminal. Those lines belong to the case: this
// handler keeps them instead, and a failure carries them in its detail (the
// case report's explanation). Installed after distributed is imported, since
// importing it sets up its own handler.
void keep_logs() {
  static bool installed = false;
  if (installed) return;
  python::exec(R"(
import logging as _sc_logging
class _ScKeptLogs(_sc_logging.Handler):
    def __init__(self):
        super().__init__()
        self.lines = []
    def emit(self, record):
        self.lines.append(self.format(record))
_sc_kept_logs = _ScKeptLogs()
_sc_kept_logs.setFormatter(_sc_logging.Formatter("%(name)s - %(levelname)s - %(message)s"))
_sc_logger = _sc_logging.getLogger("distributed")
for _sc_handler in list(_sc_logger.handlers):
    _sc_logger.removeHandler(_sc_handler)
_sc_logger.addHandler(_sc_kept_logs)
_sc_logger.propagate = False
)");
  installed = true;
}

// The log lines since the last call, and forgets them.
std::string take_logs() {
  PyRef text = python::eval("'\\n'.join(_sc_kept_logs.lines)");
  python::exec("_sc_kept_logs.lines.clear()");
  return python::str_of(text.get());
}

// `e` with the log lines the failed call left added to its detail.
SubjectError with_logs(const SubjectError& e, const std::string& logs) {
  if (logs.empty()) return e;
  std::string message = e.what();
  if (message.rfind(e.kind() + ": ", 0) == 0) message.erase(0, e.kind().size() + 2);
  std::string detail = e.detail();
  if (!detail.empty() && detail.back() != '\n') detail += "\n";
  detail += "distributed logged:\n" + logs + "\n";
  return SubjectError(e.kind(), message, detail);
}

// wire.packed: serialize_bytes with one codec, and deserialize_bytes.
// distributed's maybe_compress decides on random samples of a frame
// (byte_sample calls random.randint): Python's random is seeded with a
// fixed number for the call and restored after it, so a case packs the
// same way each time it is run, as it must to be replayed and shrunk. The
// codec is set through dask's config, the way a user chooses it
// ("distributed.comm.compression"; False for none). Returns the bytes and
// the version of the codec's library.
void install_packing() {
  static bool installed = false;
  if (installed) return;
  python::exec(R"(
def _sc_packed_dumps(module, x, codec):
    import importlib, random, dask
    protocol = importlib.import_module(module)
    state = random.getstate()
    random.seed(20261129)
    try:
        with dask.config.set({"distributed.comm.compression": codec or False}):
            data = protocol.serialize_bytes(x, on_error="raise")
    finally:
        random.setstate(state)
    version = ""
    if codec == "lz4":
        import lz4
        version = lz4.library_version_string()
    elif codec == "zstd":
        import zstandard
        version = ".".join(map(str, zstandard.ZSTD_VERSION))
    return bytes(data), version

def _sc_packed_loads(module, data):
    import importlib
    return importlib.import_module(module).deserialize_bytes(data)
)");
  installed = true;
}

class DistributedSubject final : public PythonSubject {
 public:
  explicit DistributedSubject(std::string module)
      : PythonSubject({module}), module_(std::move(module)) {}

  std::string name() const override { return "distributed"; }

  Capabilities capabilities() const override {
    Capabilities caps;
    // distributed always pickles at the highest protocol with buffers out of band.
    caps.min_protocol = 5;
    caps.max_protocol = 5;
    caps.out_of_band = true;
    caps.limit_loader = false;
    caps.pickle_format = false;  // the "dask" family's frames are not pickles
    caps.cpython_bytes = false;
    caps.python_values = true;
    caps.python_version = embedded_python_version();
    caps.families = {"dask", "pickle"};
    return caps;
  }

  Message dumps_object(PyObject* object, const DumpOptions& /*options*/) override {
    require_available();
    Gil gil;
    PyRef serialize = python::get_attr(python::import_module(module_).get(), "serialize");
    keep_logs();
    take_logs();
    PyRef args = check(Py_BuildValue("(O)", object));
    // Failures raise, like every other subject, instead of becoming an
    // "error" family message.
    PyRef kwargs = check(Py_BuildValue("{s:s}", "on_error", "raise"));
    PyRef result;
    try {
      result = check(PyObject_Call(serialize.get(), args.get(), kwargs.get()));
    } catch (const SubjectError& e) {
      throw with_logs(e, take_logs());
    }
    if (!PyTuple_Check(result.get()) || PyTuple_GET_SIZE(result.get()) != 2) {
      header_error("serialize() did not return (header, frames)");
    }
    Message message;
    message.header = header_to_json(PyTuple_GET_ITEM(result.get(), 0), 0);
    PyRef frames = check(PySequence_List(PyTuple_GET_ITEM(result.get(), 1)));
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(frames.get()); ++i) {
      message.frames.push_back(python::frame_from_buffer(PyList_GET_ITEM(frames.get(), i)));
    }
    return message;
  }

  PyRef loads_object(const Message& message, const LoadOptions& /*options*/) override {
    require_available();
    Gil gil;
    PyRef header = header_from_json(message.header, 0);
    PyRef frames = check(PyList_New(0));
    for (const Frame& frame : message.frames) {
      // distributed's loaders copy a frame whose writability disagrees with
      // the header themselves, so each frame goes in as it is.
      PyRef exporter = python::frame_exporter(frame, frame.readonly);
      PyRef view = check(PyMemoryView_FromObject(exporter.get()));
      if (PyList_Append(frames.get(), view.get()) != 0) python::throw_python_error();
    }
    PyRef deserialize = python::get_attr(python::import_module(module_).get(), "deserialize");
    keep_logs();
    take_logs();
    try {
      return check(
          PyObject_CallFunctionObjArgs(deserialize.get(), header.get(), frames.get(), nullptr));
    } catch (const SubjectError& e) {
      throw with_logs(e, take_logs());
    }
  }

  PackedBytes dumps_packed(const Node* value, Compression codec) override {
    require_available();
    Gil gil;
    install_packing();
    PyRef object;
    {
      phase::Scope timed(phase::Phase::Bridge);
      object = python::to_python(value);
    }
    PyRef module = python::make_str(module_);
    PyRef name = codec == Compression::None ? PyRef::borrow(Py_None)
                                            : python::make_str(compression_name(codec));
    PyRef dumps = python::eval("_sc_packed_dumps");
    keep_logs();
    take_logs();
    PyRef result;
    try {
      result = check(PyObject_CallFunctionObjArgs(dumps.get(), module.get(), object.get(),
                                                  name.get(), nullptr));
    } catch (const SubjectError& e) {
      throw with_logs(e, take_logs());
    }
    PackedBytes out;
    out.bytes = std::string(python::bytes_data(python::sequence_item(result.get(), 0).get()));
    out.codec_version = python::str_of(python::sequence_item(result.get(), 1).get());
    return out;
  }

  Node* loads_packed(std::span<const std::uint8_t> bytes, Graph& graph) override {
    require_available();
    Gil gil;
    install_packing();
    PyRef module = python::make_str(module_);
    PyRef data = python::make_bytes(
        std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()));
    PyRef loads = python::eval("_sc_packed_loads");
    keep_logs();
    take_logs();
    PyRef object;
    try {
      object = check(PyObject_CallFunctionObjArgs(loads.get(), module.get(), data.get(), nullptr));
    } catch (const SubjectError& e) {
      throw with_logs(e, take_logs());
    }
    python::BridgeOptions bridge;
    bridge.protocol = 5;  // distributed pickles at its highest protocol
    {
      phase::Scope timed(phase::Phase::Bridge);
      graph.root = python::from_python(object.get(), graph, bridge);
    }
    return graph.root;
  }

 private:
  std::string module_;
};

}  // namespace

std::unique_ptr<PythonSubject> make_distributed_subject(std::string module) {
  return std::make_unique<DistributedSubject>(std::move(module));
}

}  // namespace serialcheck
