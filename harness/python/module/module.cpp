// serialcheck_reference: the reference pickle codec as a Python extension
// module, so that tests written for pickle (CPython's pickletester) can be
// run against it. docs/python-module.md is its user guide.
//
// dumps describes the object as a value (harness/python/bridge.h) and writes
// it with the reference encoder; loads decodes with the reference decoder and
// builds the Python object from the value, which imports globals and calls
// reduce callables exactly as pickle's loader does: it is not for untrusted
// data. The Pickler and Unpickler classes (Python code below, run when the
// module is imported) hold the options and hooks and call _dumps / _loads.
//
// Errors: an exception raised by Python code the bridge called (a
// __reduce_ex__, persistent_id, find_class...) propagates unchanged; an
// object the bridge cannot describe is a PicklingError; a reference decoder
// error becomes the exception CPython's C unpickler raises for the same
// input (map_decode_error, and the table in docs/python-module.md).
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <string_view>
#include <vector>

#include "harness/python/bridge.h"
#include "harness/subjects/subject.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/pickle/opcodes.h"

namespace {

using serialcheck::Graph;
using serialcheck::Node;
using serialcheck::SubjectError;
using serialcheck::pickle::ErrorKind;
using serialcheck::pickle::Op;
using serialcheck::pickle::PickleError;
using serialcheck::python::KeepPythonError;

// pickle.PicklingError / pickle.UnpicklingError (the classes, borrowed from
// the pickle module, which stays imported).
PyObject* pickle_exception(const char* name) {
  PyObject* pickle = PyImport_ImportModule("pickle");
  if (pickle == nullptr) return nullptr;
  PyObject* cls = PyObject_GetAttrString(pickle, name);
  Py_DECREF(pickle);
  if (cls != nullptr) Py_DECREF(cls);  // pickle's module dict keeps it alive
  return cls;
}

PyObject* raise(PyObject* type, const std::string& message) {
  if (type != nullptr) PyErr_SetString(type, message.c_str());
  return nullptr;
}

// A SubjectError from the bridge: the Python exception it came from when
// there was one, else a PicklingError / UnpicklingError with its message.
PyObject* raise_subject_error(KeepPythonError& keep, const SubjectError& e, bool dumping) {
  if (keep.restore(e.kind())) return nullptr;
  std::string message = e.what();
  if (e.kind() == "BridgeError") message = message.substr(std::string_view("BridgeError: ").size());
  return raise(pickle_exception(dumping ? "PicklingError" : "UnpicklingError"), message);
}

bool is_one_of(std::uint8_t code, std::initializer_list<Op> ops) {
  for (Op op : ops) {
    if (code == static_cast<std::uint8_t>(op)) return true;
  }
  return false;
}

// Decodes the first `count` lines of `text` as UTF-8, as the C unpickler
// decodes GLOBAL's module and name; false with the UnicodeDecodeError set
// when one is not UTF-8.
bool utf8_lines(std::string_view text, int count) {
  for (int i = 0; i < count && !text.empty(); ++i) {
    std::size_t end = text.find('\n');
    std::string_view line = text.substr(0, end);
    PyObject* decoded =
        PyUnicode_DecodeUTF8(line.data(), static_cast<Py_ssize_t>(line.size()), "strict");
    if (decoded == nullptr) return false;
    Py_DECREF(decoded);
    if (end == std::string_view::npos) break;
    text.remove_prefix(end + 1);
  }
  return true;
}

// The exception CPython 3.11's C unpickler raises where the reference decoder
// failed with `e` on `data`. The error kind says most of it; a bad value
// depends on the opcode (the byte at the error's offset), as in _pickle.c.
PyObject* map_decode_error(const PickleError& e, std::string_view data) {
  const std::string& detail = e.detail();
  switch (e.kind()) {
    case ErrorKind::UnsupportedProtocol: {
      const auto* p = dynamic_cast<const serialcheck::pickle::UnsupportedProtocolError*>(&e);
      return raise(PyExc_ValueError,
                   "unsupported pickle protocol: " + std::to_string(p ? p->found() : -1));
    }
    case ErrorKind::Truncated:
      // The C unpickler says "Ran out of input" when the data ends where an
      // opcode should start, and "pickle data was truncated" inside one.
      if (e.offset() >= data.size()) return raise(PyExc_EOFError, "Ran out of input");
      return raise(pickle_exception("UnpicklingError"), "pickle data was truncated");
    case ErrorKind::BadValue: {
      std::uint8_t code =
          e.offset() < data.size() ? static_cast<std::uint8_t>(data[e.offset()]) : 0;
      if (is_one_of(code, {Op::FLOAT}) && detail.find("out of range") != std::string::npos) {
        return raise(PyExc_OverflowError, detail);
      }
      if (is_one_of(code, {Op::INT, Op::LONG, Op::FLOAT, Op::GET, Op::PUT})) {
        return raise(PyExc_ValueError, detail);
      }
      if (is_one_of(code, {Op::STRING}) && detail.find("quoted") != std::string::npos) {
        return raise(pickle_exception("UnpicklingError"), detail);
      }
      if (is_one_of(code, {Op::STRING}) && detail.find("escape") != std::string::npos) {
        return raise(PyExc_ValueError, detail);
      }
      if (is_one_of(code, {Op::GLOBAL}) && !utf8_lines(data.substr(e.offset() + 1), 2)) {
        return nullptr;  // the UnicodeDecodeError of the line that is not UTF-8
      }
      if (is_one_of(code, {Op::UNICODE, Op::BINUNICODE, Op::SHORT_BINUNICODE, Op::BINUNICODE8,
                           Op::STRING, Op::BINSTRING, Op::SHORT_BINSTRING}) &&
          detail.find("negative") == std::string::npos) {
        // Only the message is known, not the bytes: a UnicodeDecodeError of
        // the opcode's argument position.
        bool ascii = is_one_of(code, {Op::STRING, Op::BINSTRING, Op::SHORT_BINSTRING});
        PyObject* exc = PyUnicodeDecodeError_Create(
            ascii ? "ascii" : "utf-8", data.data(), static_cast<Py_ssize_t>(data.size()),
            static_cast<Py_ssize_t>(e.offset()), static_cast<Py_ssize_t>(e.offset() + 1),
            detail.c_str());
        if (exc != nullptr) {
          PyErr_SetObject(reinterpret_cast<PyObject*>(Py_TYPE(exc)), exc);
          Py_DECREF(exc);
        }
        return nullptr;
      }
      // Items or state given to something that cannot take them: the C
      // unpickler looks up append/extend/add/__setstate__ (AttributeError)
      // or assigns an item (TypeError).
      if (is_one_of(code, {Op::APPEND, Op::APPENDS, Op::ADDITEMS, Op::BUILD})) {
        return raise(PyExc_AttributeError, detail);
      }
      if (is_one_of(code, {Op::SETITEM, Op::SETITEMS}) && detail.rfind("odd", 0) != 0) {
        return raise(PyExc_TypeError, detail);
      }
      // REDUCE's arguments must be a tuple; READONLY_BUFFER makes a
      // memoryview of what must be a buffer.
      if (is_one_of(code, {Op::REDUCE, Op::READONLY_BUFFER})) {
        return raise(PyExc_TypeError, detail);
      }
      return raise(pickle_exception("UnpicklingError"), detail);
    }
    case ErrorKind::LimitExceeded:
      // CPython's own limit on the digits of an int read from text.
      if (e.offset() < data.size() &&
          is_one_of(static_cast<std::uint8_t>(data[e.offset()]), {Op::INT, Op::LONG}) &&
          detail.find("digits") != std::string::npos) {
        return raise(PyExc_ValueError, detail);
      }
      break;
    case ErrorKind::UnknownOpcode:
    case ErrorKind::StackUnderflow:
    case ErrorKind::MissingMark:
    case ErrorKind::MissingMemo:
    case ErrorKind::MissingBuffer:
    case ErrorKind::TrailingData:
    case ErrorKind::Unpicklable:
    case ErrorKind::ForbiddenGlobal:
    case ErrorKind::ForbiddenPersistentId: break;
  }
  return raise(pickle_exception("UnpicklingError"), detail);
}

PyObject* none_as_null(PyObject* o) {
  return o == Py_None ? nullptr : o;
}

// _dumps(obj, protocol, fix_imports, buffer_callback, persistent_id,
//        reducer_override, dispatch_table) -> bytes
PyObject* reference_dumps(PyObject* /*module*/, PyObject* args) {
  PyObject* obj = nullptr;
  int protocol = 4;
  int fix_imports = 1;
  PyObject* buffer_callback = nullptr;
  PyObject* persistent_id = nullptr;
  PyObject* reducer_override = nullptr;
  PyObject* dispatch_table = nullptr;
  if (!PyArg_ParseTuple(args, "OipOOOO:_dumps", &obj, &protocol, &fix_imports, &buffer_callback,
                        &persistent_id, &reducer_override, &dispatch_table)) {
    return nullptr;
  }
  KeepPythonError keep;
  try {
    serialcheck::python::BridgeOptions bridge;
    bridge.protocol = protocol;
    bridge.persistent_id = none_as_null(persistent_id);
    bridge.reducer_override = none_as_null(reducer_override);
    bridge.dispatch_table = none_as_null(dispatch_table);
    Graph graph;
    Node* root = serialcheck::python::from_python(obj, graph, bridge);
    serialcheck::pickle::EncodeOptions options;
    options.protocol = protocol;
    options.fix_imports = fix_imports != 0;
    if (none_as_null(buffer_callback) != nullptr) {
      // The callback gets a PickleBuffer of the buffer's bytes; a true
      // result keeps the buffer in band, as with pickle.
      options.buffer_callback = [buffer_callback](const Node& buffer) {
        auto p = buffer.payload();
        auto size = static_cast<Py_ssize_t>(p.size());
        auto base =
            serialcheck::python::check(buffer.flag ? PyBytes_FromStringAndSize(p.data(), size)
                                                   : PyByteArray_FromStringAndSize(p.data(), size));
        auto view = serialcheck::python::check(PyPickleBuffer_FromObject(base.get()));
        auto result = serialcheck::python::check(PyObject_CallOneArg(buffer_callback, view.get()));
        int truth = PyObject_IsTrue(result.get());
        if (truth < 0) serialcheck::python::throw_python_error();
        return truth != 0;
      };
    }
    serialcheck::pickle::EncodeResult result = serialcheck::pickle::encode(root, options);
    return PyBytes_FromStringAndSize(result.bytes.data(),
                                     static_cast<Py_ssize_t>(result.bytes.size()));
  } catch (const SubjectError& e) {
    return raise_subject_error(keep, e, /*dumping=*/true);
  } catch (const PickleError& e) {
    return raise(pickle_exception("PicklingError"), e.detail());
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  } catch (const std::exception& e) {
    return raise(pickle_exception("PicklingError"), e.what());
  }
}

// _loads(data, fix_imports, buffers, persistent_load, find_class)
//   -> (obj, bytes consumed)
// `buffers` is None or a list of objects with the buffer interface.
PyObject* reference_loads(PyObject* /*module*/, PyObject* args) {
  Py_buffer data{};
  int fix_imports = 1;
  PyObject* buffers = nullptr;
  PyObject* persistent_load = nullptr;
  PyObject* find_class = nullptr;
  if (!PyArg_ParseTuple(args, "y*pOOO:_loads", &data, &fix_imports, &buffers, &persistent_load,
                        &find_class)) {
    return nullptr;
  }
  std::string_view bytes(static_cast<const char*>(data.buf), static_cast<std::size_t>(data.len));
  std::vector<Py_buffer> views;
  struct Release {
    Py_buffer& data;
    std::vector<Py_buffer>& views;
    ~Release() {
      for (Py_buffer& v : views) PyBuffer_Release(&v);
      PyBuffer_Release(&data);
    }
  } release{data, views};
  std::vector<serialcheck::pickle::BufferView> buffer_views;
  if (buffers != Py_None) {
    if (!PyList_Check(buffers)) return raise(PyExc_TypeError, "_loads: buffers must be a list");
    views.reserve(static_cast<std::size_t>(PyList_GET_SIZE(buffers)));
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(buffers); ++i) {
      Py_buffer view{};
      if (PyObject_GetBuffer(PyList_GET_ITEM(buffers, i), &view, PyBUF_SIMPLE) != 0) return nullptr;
      views.push_back(view);
      buffer_views.push_back({static_cast<const std::uint8_t*>(view.buf),
                              static_cast<std::size_t>(view.len), view.readonly != 0});
    }
  }
  KeepPythonError keep;
  try {
    serialcheck::pickle::DecodeOptions options;
    options.fix_imports = fix_imports != 0;
    options.buffers = buffer_views;
    Graph graph;
    serialcheck::pickle::DecodeResult decoded;
    try {
      decoded = serialcheck::pickle::decode(bytes, graph, options);
    } catch (const PickleError& e) {
      if (e.kind() == ErrorKind::MissingBuffer && buffers == Py_None) {
        return raise(pickle_exception("UnpicklingError"),
                     "pickle stream refers to out-of-band data but no *buffers* argument was "
                     "given");
      }
      return map_decode_error(e, bytes);
    }
    serialcheck::python::BridgeOptions bridge;
    bridge.persistent_load = none_as_null(persistent_load);
    bridge.find_class = none_as_null(find_class);
    serialcheck::python::PyRef object = serialcheck::python::to_python(decoded.root, bridge);
    return Py_BuildValue("(On)", object.get(), static_cast<Py_ssize_t>(decoded.consumed));
  } catch (const SubjectError& e) {
    return raise_subject_error(keep, e, /*dumping=*/false);
  } catch (const std::bad_alloc&) {
    return PyErr_NoMemory();
  } catch (const std::exception& e) {
    return raise(pickle_exception("UnpicklingError"), e.what());
  }
}

// The Python side: the pickle module's API over _dumps and _loads.
constexpr const char* kPythonPart = R"PY(
import io as _io
import sys as _sys
from pickle import PickleError, PicklingError, UnpicklingError, PickleBuffer

HIGHEST_PROTOCOL = 5
DEFAULT_PROTOCOL = 4


def _protocol(protocol):
    if protocol is None:
        return DEFAULT_PROTOCOL
    if protocol < 0:
        return HIGHEST_PROTOCOL
    if protocol > HIGHEST_PROTOCOL:
        raise ValueError("pickle protocol must be <= %d" % HIGHEST_PROTOCOL)
    return protocol


class Pickler:
    """pickle.Pickler over the reference encoder.

    Hooks, looked up on the instance at each dump(): persistent_id(obj),
    reducer_override(obj), dispatch_table. Each dump() writes one complete
    pickle with one write() call; the memo does not carry over between
    dumps (clear_memo() has nothing to clear).
    """

    def __init__(self, file, protocol=None, *, fix_imports=True, buffer_callback=None):
        self.protocol = _protocol(protocol)
        if buffer_callback is not None and self.protocol < 5:
            raise ValueError("buffer_callback needs protocol >= 5")
        try:
            self._file_write = file.write
        except AttributeError:
            raise TypeError("file must have a 'write' attribute") from None
        self.fix_imports = fix_imports
        self._buffer_callback = buffer_callback
        self.bin = self.protocol >= 1
        self.fast = 0

    def dump(self, obj):
        try:
            write = self._file_write
        except AttributeError:
            raise PicklingError("Pickler.__init__() was not called by %s.__init__()"
                                % (type(self).__name__,)) from None
        data = _dumps(obj, self.protocol, bool(self.fix_imports), self._buffer_callback,
                      getattr(self, "persistent_id", None),
                      getattr(self, "reducer_override", None),
                      getattr(self, "dispatch_table", None))
        write(data)

    def clear_memo(self):
        pass


def _no_persistent_load(pid):
    raise UnpicklingError("A load persistent id instruction was encountered,\n"
                          "but no persistent_load function was specified.")


class Unpickler:
    """pickle.Unpickler over the reference decoder.

    It builds the objects the pickle describes: globals are imported and
    reduce callables are called, as with pickle. Never load untrusted data.
    Hooks: persistent_load(pid) and find_class(module, name). encoding and
    errors accept only their defaults ("ASCII", "strict"): Python 2 str
    values load as str when ASCII and fail otherwise.
    """

    def __init__(self, file, *, fix_imports=True, encoding="ASCII", errors="strict",
                 buffers=None):
        if encoding != "ASCII" or errors != "strict":
            raise ValueError("serialcheck_reference reads Python 2 strings only as ASCII "
                             "str (encoding='ASCII', errors='strict')")
        try:
            self._file_read = file.read
        except AttributeError:
            raise TypeError("file must have 'read' and 'readline' attributes") from None
        self._file = file
        self.fix_imports = fix_imports
        self._buffers = None if buffers is None else list(buffers)
        self._rest = b""

    def load(self):
        try:
            read = self._file_read
        except AttributeError:
            raise UnpicklingError("Unpickler.__init__() was not called by %s.__init__()"
                                  % (type(self).__name__,)) from None
        data = self._rest + read()
        self._rest = b""
        find_class = None
        if type(self).find_class is not Unpickler.find_class or "find_class" in vars(self):
            find_class = self.find_class
        persistent_load = getattr(self, "persistent_load", _no_persistent_load)
        obj, used = _loads(data, bool(self.fix_imports), self._buffers, persistent_load,
                           find_class)
        # What follows the pickle goes back to the file when it can seek,
        # else it is kept for the next load().
        rest = data[used:]
        if rest:
            seekable = getattr(self._file, "seekable", None)
            if seekable is not None and seekable():
                self._file.seek(-len(rest), _io.SEEK_CUR)
            else:
                self._rest = rest
        return obj

    def find_class(self, module, name):
        _sys.audit("pickle.find_class", module, name)
        __import__(module, level=0)
        obj = _sys.modules[module]
        for part in name.split("."):
            if part == "<locals>":
                raise AttributeError("Can't get local attribute %r on %r" % (name, obj))
            obj = getattr(obj, part)
        return obj


def dump(obj, file, protocol=None, *, fix_imports=True, buffer_callback=None):
    Pickler(file, protocol, fix_imports=fix_imports, buffer_callback=buffer_callback).dump(obj)


def dumps(obj, protocol=None, *, fix_imports=True, buffer_callback=None):
    protocol = _protocol(protocol)
    if buffer_callback is not None and protocol < 5:
        raise ValueError("buffer_callback needs protocol >= 5")
    return _dumps(obj, protocol, bool(fix_imports), buffer_callback, None, None, None)


def load(file, *, fix_imports=True, encoding="ASCII", errors="strict", buffers=None):
    return Unpickler(file, fix_imports=fix_imports, encoding=encoding, errors=errors,
                     buffers=buffers).load()


def loads(data, /, *, fix_imports=True, encoding="ASCII", errors="strict", buffers=None):
    if isinstance(data, str):
        raise TypeError("Can't load pickle from unicode string")
    if encoding != "ASCII" or errors != "strict":
        raise ValueError("serialcheck_reference reads Python 2 strings only as ASCII "
                         "str (encoding='ASCII', errors='strict')")
    return _loads(data, bool(fix_imports), None if buffers is None else list(buffers),
                  _no_persistent_load, None)[0]
)PY";

PyMethodDef kMethods[] = {
    {"_dumps", reference_dumps, METH_VARARGS,
     "_dumps(obj, protocol, fix_imports, buffer_callback, persistent_id, reducer_override, "
     "dispatch_table) -> bytes: the reference encoder's pickle of obj."},
    {"_loads", reference_loads, METH_VARARGS,
     "_loads(data, fix_imports, buffers, persistent_load, find_class) -> (obj, consumed): the "
     "object the reference decoder reads from data, built as pickle builds it."},
    {nullptr, nullptr, 0, nullptr},
};

PyModuleDef kModule = {
    PyModuleDef_HEAD_INIT,
    "serialcheck_reference",
    "The serialcheck reference pickle codec with the pickle module's API (dumps, loads, dump, "
    "load, Pickler, Unpickler). Loading builds real objects and calls reduce callables, as "
    "pickle does: never load untrusted data with it.",
    -1,
    kMethods,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
};

}  // namespace

PyMODINIT_FUNC PyInit_serialcheck_reference() {
  PyObject* module = PyModule_Create(&kModule);
  if (module == nullptr) return nullptr;
  PyObject* globals = PyModule_GetDict(module);  // borrowed
  if (PyDict_SetItemString(globals, "__builtins__", PyEval_GetBuiltins()) != 0) {
    Py_DECREF(module);
    return nullptr;
  }
  PyObject* ran = PyRun_String(kPythonPart, Py_file_input, globals, globals);
  if (ran == nullptr) {
    Py_DECREF(module);
    return nullptr;
  }
  Py_DECREF(ran);
  return module;
}
