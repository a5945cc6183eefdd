#define PY_SSIZE_T_CLEAN
// Python -> Value (bridge.h's from_python).
#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "harness/python/bridge.h"
#include "harness/python/domain_objects.h"
#include "harness/python/internal/convert.h"
#include "harness/subjects/subject.h"
#include "reference/pickle/extension.h"
#include "reference/types/ndarray.h"

namespace serialcheck::python {
namespace {

// What the bridge says when numpy's shape or strides is not a tuple.
constexpr std::string_view kNumpyShape = "numpy gave a shape or strides";

// An exact numpy.ndarray of a numeric dtype is an NDArray node whose payload
// is a copy of the bytes its elements span; nullptr when `o` is not an exact numpy.ndarray of a numeric dtype without
// metadata (those stay generic reduces).
Node* ndarray_from_python(PyObject* o, Graph& graph) {
  if (std::string_view(Py_TYPE(o)->tp_name) != "numpy.ndarray") return nullptr;
  PyRef numpy = PyRef::steal(PyImport_GetModule(make_str("numpy").get()));
  if (!numpy) {
    if (PyErr_Occurred()) throw_python_error();
    return nullptr;  // not numpy's ndarray: numpy is not even imported
  }
  if (reinterpret_cast<PyObject*>(Py_TYPE(o)) != get_attr(numpy.get(), "ndarray").get()) {
    return nullptr;
  }
  PyRef dtype = get_attr(o, "dtype");
  PyRef str = get_attr(dtype.get(), "str");
  PyRef metadata = get_attr(dtype.get(), "metadata");
  if (!PyUnicode_Check(str.get()) || metadata.get() != Py_None) return nullptr;
  auto parsed = types::parse_numeric_dtype(payload_of_str(str.get()));
  if (!parsed) return nullptr;
  Node* n = graph.ndarray();
  ArrayParts& a = *n->array();
  a.dtype = parsed->str();
  a.shape = int64s_of(get_attr(o, "shape").get(), kNumpyShape);
  a.strides = int64s_of(get_attr(o, "strides").get(), kNumpyShape);
  int writeable = PyObject_IsTrue(get_attr(get_attr(o, "flags").get(), "writeable").get());
  check_rc(writeable);
  a.writeable = writeable != 0;
  if (types::ndarray_size(a) == 0) return n;  // no elements, no bytes
  // The bytes from the lowest to one past the highest element.
  std::int64_t lo = 0, hi = parsed->itemsize;
  for (std::size_t k = 0; k < a.shape.size(); ++k) {
    std::int64_t span = (a.shape[k] - 1) * a.strides[k];
    (span < 0 ? lo : hi) += span;
  }
  PyRef interface = get_attr(o, "__array_interface__");
  PyObject* data = PyDict_GetItemString(interface.get(), "data");  // borrowed
  if (data == nullptr || !PyTuple_Check(data) || PyTuple_GET_SIZE(data) < 1) {
    bridge_error("numpy.ndarray.__array_interface__ has no data pointer");
  }
  auto* first = static_cast<const char*>(PyLong_AsVoidPtr(PyTuple_GET_ITEM(data, 0)));
  if (first == nullptr && PyErr_Occurred()) throw_python_error();
  n->set_owned(std::string(first + lo, static_cast<std::size_t>(hi - lo)));
  a.offset = -lo;
  return n;
}

// ---------------------------------------------------------------------------
// Python -> Value. Nodes are made as shells when first seen and filled from a
// work stack, so cycles need no special care.

class Describer {
 public:
  Describer(Graph& graph, const BridgeOptions& options) : graph_(graph), options_(options) {}

  Node* describe(PyObject* root) {
    Node* result = node_for(root);
    while (!work_.empty()) {
      Work w = std::move(work_.back());
      work_.pop_back();
      fill(w);
    }
    return result;
  }

 private:
  struct Work {
    PyObject* object;
    Node* node;
    PyRef reduced;  // Object: what reduce returned
  };

  Node* remember(PyObject* o, Node* n) {
    // Everything in seen_ stays alive until the end, so no id is reused.
    alive_.push_back(PyRef::borrow(o));
    seen_.emplace(o, n);
    return n;
  }

  Node* shell(PyObject* o, Kind kind, PyRef reduced = {}) {
    Node* n = kind == Kind::Object ? graph_.object(nullptr, nullptr) : graph_.make(kind);
    remember(o, n);
    work_.push_back(Work{o, n, std::move(reduced)});
    return n;
  }

  // `ask_persistent_id` is false for a persistent id itself, as in pickle.
  Node* node_for(PyObject* o, bool ask_persistent_id = true) {
    if (options_.persistent_id != nullptr && ask_persistent_id) {
      PyRef pid = check(PyObject_CallOneArg(options_.persistent_id, o));
      if (pid.get() != Py_None) {
        // Never memoized, as below; the object is kept alive so its id is not reused.
        Node* n = graph_.make(Kind::PersId);
        alive_.push_back(PyRef::borrow(o));
        work_.push_back(Work{o, n, std::move(pid)});
        return n;
      }
    }
    auto it = seen_.find(o);
    if (it != seen_.end()) {
      // A registered global is written as EXT at each reference, never
      // memoized, so each reference is a node of its own.
      if (std::int64_t code = pickle::extension_code(it->second); code != 0) {
        return pickle::extension_ref(graph_, code);
      }
      return it->second;
    }
    if (o == Py_None) return remember(o, graph_.none());
    if (PyBool_Check(o)) return remember(o, graph_.boolean(o == Py_True));
    if (PyLong_CheckExact(o)) return remember(o, describe_int(o));
    if (PyFloat_CheckExact(o)) return remember(o, graph_.floating(PyFloat_AS_DOUBLE(o)));
    if (PyUnicode_CheckExact(o)) return remember(o, graph_.str(payload_of_str(o)));
    if (PyBytes_CheckExact(o)) return remember(o, graph_.bytes(bytes_of(o)));
    if (PyByteArray_CheckExact(o)) {
      return remember(
          o, graph_.bytearray(std::string(PyByteArray_AS_STRING(o),
                                          static_cast<std::size_t>(PyByteArray_GET_SIZE(o)))));
    }
    if (PyList_CheckExact(o)) return shell(o, Kind::List);
    if (PyTuple_CheckExact(o)) return shell(o, Kind::Tuple);
    if (PyDict_CheckExact(o)) return shell(o, Kind::Dict);
    if (Py_IS_TYPE(o, &PySet_Type)) return shell(o, Kind::Set);
    if (PyFrozenSet_CheckExact(o)) return shell(o, Kind::FrozenSet);
    if (PyPickleBuffer_Check(o)) return remember(o, describe_pickle_buffer(o));
    if (options_.reducer_override != nullptr) {
      PyRef reduced = check(PyObject_CallOneArg(options_.reducer_override, o));
      if (reduced.get() != Py_NotImplemented) return describe_override(o, std::move(reduced));
    }
    // Loaders hand out-of-band buffers back as the objects they were given
    // (distributed gives memoryviews): the PickleBuffer they stand for.
    if (PyMemoryView_Check(o)) return remember(o, describe_view(PyMemoryView_GET_BUFFER(o)));
    if (PyFunction_Check(o)) return remember(o, describe_global(o, nullptr));
    if (PyType_Check(o)) {
      // pickle's save_type: the types of the three singletons reduce to
      // type(singleton); every other class is a global.
      if (o == reinterpret_cast<PyObject*>(Py_TYPE(Py_None)) ||
          o == reinterpret_cast<PyObject*>(Py_TYPE(Py_NotImplemented)) ||
          o == reinterpret_cast<PyObject*>(Py_TYPE(Py_Ellipsis))) {
        PyObject* instance = o == reinterpret_cast<PyObject*>(Py_TYPE(Py_None)) ? Py_None
                             : o == reinterpret_cast<PyObject*>(Py_TYPE(Py_NotImplemented))
                                 ? Py_NotImplemented
                                 : Py_Ellipsis;
        PyRef reduced = check(Py_BuildValue("(O(O))", &PyType_Type, instance));
        return shell(o, Kind::Object, std::move(reduced));
      }
      // An instance of a metaclass goes through the dispatch table first,
      // as in the C pickler (copyreg.pickle(metaclass, reducer)).
      if (!PyType_CheckExact(o)) {
        if (PyRef reduced = reduce_by_table(o)) return describe_override(o, std::move(reduced));
      }
      return remember(o, describe_global(o, nullptr));
    }
    if (Node* array = ndarray_from_python(o, graph_)) return remember(o, array);
    // A module (of any ModuleType subclass) is its import name; its class is
    // described when the node is filled.
    if (PyModule_Check(o)) {
      Node* m = graph_.module(module_name(o));
      // module.by-reference asks for the very object registered under the
      // name; a copy (a new module object of that name) is marked.
      m->flag = !is_registered_module(o, m->name());
      return domain_shell(o, m);
    }
    if (is_exact_tensor(o)) {
      // A tensor the model has no node for (sparse, quantized...) is a generic reduce.
      PyRef grad;
      if (Node* tensor = describe_tensor(o, grad)) return domain_shell(o, tensor, std::move(grad));
    }
    if (is_persistent(o)) {
      // Pickle never memoizes a persistent id: each reference to the object
      // is a persid of its own (only the pid may be shared), so the object
      // is not remembered.
      Node* n = graph_.make(Kind::PersId);
      work_.push_back(Work{o, n, get_attr(o, "pid")});
      return n;
    }
    PyRef reduced = reduce(o);
    if (PyUnicode_Check(reduced.get())) return remember(o, describe_global(o, reduced.get()));
    check_reduce_tuple(o, reduced.get());
    return shell(o, Kind::Object, newobj_ex_as_saved(std::move(reduced)));
  }

  // Below protocol 4 there is no NEWOBJ_EX: the C pickler (save_reduce)
  // saves a copyreg.__newobj_ex__ reduce as the call
  // functools.partial(cls.__new__, cls, *args, **kwargs)(). The value model's
  // __newobj_ex__ stands for that call with object.__new__ (what the
  // reference writes); a class with a __new__ of its own gets the partial
  // itself, built here as the pickler builds it, so its pickle names that
  // __new__. Protocols 0 and 1 never get here (copyreg._reduce_ex ignores
  // __getnewargs_ex__).
  PyRef newobj_ex_as_saved(PyRef reduced) {
    if (options_.protocol < 2 || options_.protocol >= 4) return reduced;
    if (!newobj_ex_) newobj_ex_ = get_attr(import_module("copyreg").get(), "__newobj_ex__");
    if (PyTuple_GET_ITEM(reduced.get(), 0) != newobj_ex_.get()) return reduced;
    PyObject* args = PyTuple_GET_ITEM(reduced.get(), 1);
    if (!PyTuple_Check(args) || PyTuple_GET_SIZE(args) != 3) return reduced;
    PyObject* cls = PyTuple_GET_ITEM(args, 0);
    PyObject* cls_args = PyTuple_GET_ITEM(args, 1);
    PyObject* kwargs = PyTuple_GET_ITEM(args, 2);
    // Malformed ones are left for the encoder to refuse, as the pickler does.
    if (!PyType_Check(cls) || !PyTuple_Check(cls_args) || !PyDict_Check(kwargs)) return reduced;
    PyRef cls_new = get_attr(cls, "__new__");
    if (!object_new_) {
      object_new_ = get_attr(reinterpret_cast<PyObject*>(&PyBaseObject_Type), "__new__");
    }
    if (cls_new.get() == object_new_.get()) return reduced;
    if (!partial_) partial_ = get_attr(import_module("functools").get(), "partial");
    Py_ssize_t n = PyTuple_GET_SIZE(cls_args);
    PyRef call_args = check(PyTuple_New(n + 2));
    PyTuple_SET_ITEM(call_args.get(), 0, cls_new.release());
    Py_INCREF(cls);
    PyTuple_SET_ITEM(call_args.get(), 1, cls);
    for (Py_ssize_t i = 0; i < n; ++i) {
      PyObject* item = PyTuple_GET_ITEM(cls_args, i);
      Py_INCREF(item);
      PyTuple_SET_ITEM(call_args.get(), i + 2, item);
    }
    PyRef callable = check(PyObject_Call(partial_.get(), call_args.get(), kwargs));
    Py_ssize_t size = PyTuple_GET_SIZE(reduced.get());
    PyRef saved = check(PyTuple_New(size));
    PyTuple_SET_ITEM(saved.get(), 0, callable.release());
    PyTuple_SET_ITEM(saved.get(), 1, check(PyTuple_New(0)).release());
    for (Py_ssize_t i = 2; i < size; ++i) {
      PyObject* item = PyTuple_GET_ITEM(reduced.get(), i);
      Py_INCREF(item);
      PyTuple_SET_ITEM(saved.get(), i, item);
    }
    return saved;
  }

  // An object of the fixtures module's Persistent class: what a pickler
  // with its persistent_id writes as a persistent id.
  bool is_persistent(PyObject* o) {
    if (!persistent_checked_) {
      persistent_checked_ = true;
      // Only when the fixtures module is already in use: nothing else makes one.
      PyObject* modules = PyImport_GetModuleDict();  // borrowed
      PyObject* fixtures =
          PyDict_GetItemString(modules, std::string(kFixturesModuleName).c_str());  // borrowed
      if (fixtures != nullptr) {
        PyObject* cls = PyObject_GetAttrString(fixtures, "Persistent");
        if (cls == nullptr) PyErr_Clear();
        persistent_class_ = PyRef::steal(cls);
      }
    }
    return persistent_class_ &&
           reinterpret_cast<PyObject*>(Py_TYPE(o)) == persistent_class_.get();
  }

  // What reducing `o` gave, when it is not a global's name, must be a
  // reduce tuple of two to six items, as pickle requires.
  void check_reduce_tuple(PyObject* o, PyObject* reduced) {
    if (!PyTuple_Check(reduced)) {
      bridge_error("reducing a " + type_name(o) + " object must give a string or a tuple, not " +
                   type_name(reduced));
    }
    Py_ssize_t size = PyTuple_GET_SIZE(reduced);
    if (size < 2 || size > 6) {
      bridge_error("the tuple reducing a " + type_name(o) + " object must have two to six items");
    }
  }

  // What reducer_override or a dispatch table returned for `o`: a global's
  // name or a reduce tuple.
  Node* describe_override(PyObject* o, PyRef reduced) {
    if (PyUnicode_Check(reduced.get())) return remember(o, describe_global(o, reduced.get()));
    check_reduce_tuple(o, reduced.get());
    return shell(o, Kind::Object, std::move(reduced));
  }

  // The dispatch table first (the pickler's, else copyreg's), then
  // __reduce_ex__(protocol), then __reduce__(): the order pickle looks in.
  PyRef reduce(PyObject* o) {
    if (PyRef reduced = reduce_by_table(o)) return reduced;
    return reduce_by_method(o);
  }

  // What the dispatch table's reducer for type(o) returns; empty when the
  // table has none.
  PyRef reduce_by_table(PyObject* o) {
    auto* type = reinterpret_cast<PyObject*>(Py_TYPE(o));
    if (options_.dispatch_table != nullptr) {
      PyObject* reducer = PyObject_GetItem(options_.dispatch_table, type);
      if (reducer != nullptr) {
        PyRef owned = PyRef::steal(reducer);
        return check(PyObject_CallOneArg(reducer, o));
      }
      if (!PyErr_ExceptionMatches(PyExc_KeyError)) throw_python_error();
      PyErr_Clear();
      return {};
    }
    if (!dispatch_table_)
      dispatch_table_ = get_attr(import_module("copyreg").get(), "dispatch_table");
    PyObject* reducer = PyDict_GetItemWithError(dispatch_table_.get(), type);  // borrowed
    if (reducer != nullptr) return check(PyObject_CallOneArg(reducer, o));
    if (PyErr_Occurred()) throw_python_error();
    return {};
  }

  PyRef reduce_by_method(PyObject* o) {
    PyObject* reduce_ex = PyObject_GetAttrString(o, "__reduce_ex__");
    if (reduce_ex != nullptr) {
      PyRef owned = PyRef::steal(reduce_ex);
      return check(PyObject_CallFunction(reduce_ex, "i", options_.protocol));
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw_python_error();
    PyErr_Clear();
    PyRef reduce_method = get_attr(o, "__reduce__");
    return check(PyObject_CallNoArgs(reduce_method.get()));
  }

  // A domain node whose children are filled from the work stack; `extra`
  // is what the fill needs (a tensor's grad).
  Node* domain_shell(PyObject* o, Node* n, PyRef extra = {}) {
    remember(o, n);
    work_.push_back(Work{o, n, std::move(extra)});
    return n;
  }

  // sys.modules[name] is `module` itself.
  static bool is_registered_module(PyObject* module, const std::string& name) {
    PyObject* modules = PyImport_GetModuleDict();  // borrowed
    PyRef key = PyRef::steal(PyUnicode_DecodeUTF8(name.data(), static_cast<Py_ssize_t>(name.size()),
                                                  "surrogatepass"));
    if (!key) {
      PyErr_Clear();
      return false;
    }
    PyObject* registered = PyDict_GetItemWithError(modules, key.get());  // borrowed
    if (registered == nullptr && PyErr_Occurred()) PyErr_Clear();
    return registered == module;
  }

  static std::string module_name(PyObject* module) {
    PyRef name = check(PyModule_GetNameObject(module));
    return payload_of_str(name.get());
  }

  Node* describe_tensor(PyObject* o, PyRef& grad) {
    ArrayParts parts;
    std::string storage;
    if (!read_tensor(o, parts, storage, grad)) return nullptr;
    Node* n = graph_.tensor();
    *n->array() = std::move(parts);
    n->set_owned(std::move(storage));
    return n;
  }

  Node* describe_int(PyObject* o) {
    int overflow = 0;
    long long v = PyLong_AsLongLongAndOverflow(o, &overflow);
    if (v == -1 && PyErr_Occurred()) throw_python_error();
    if (overflow == 0) return graph_.integer(v);
    std::size_t bits = _PyLong_NumBits(o);
    if (bits == static_cast<std::size_t>(-1) && PyErr_Occurred()) throw_python_error();
    std::string le(bits / 8 + 1, '\0');  // room for the sign bit
    check_rc(_PyLong_AsByteArray(reinterpret_cast<PyLongObject*>(o),
                                 reinterpret_cast<unsigned char*>(le.data()), le.size(),
                                 /*little_endian=*/1, /*is_signed=*/1));
    return graph_.integer_le(le);
  }

  Node* describe_pickle_buffer(PyObject* o) {
    const Py_buffer* view = PyPickleBuffer_GetBuffer(o);
    if (view == nullptr) throw_python_error();
    return describe_view(view);
  }

  Node* describe_view(const Py_buffer* view) {
    std::string data(static_cast<std::size_t>(view->len), '\0');
    // A contiguous buffer's bytes in memory order, as PickleBuffer.raw()
    // gives them (a Fortran-ordered one too).
    if (PyBuffer_IsContiguous(view, 'A')) {
      if (view->len > 0) data.assign(static_cast<const char*>(view->buf), data.size());
    } else {
      check_rc(PyBuffer_ToContiguous(data.data(), view, view->len, 'C'));
    }
    return graph_.pickle_buffer(std::move(data), view->readonly != 0);
  }

  // pickle's save_global: the name is `name` or the object's __qualname__
  // (__name__), the module is whichmodule()'s answer, and the pair must lead
  // back to this very object.
  Node* describe_global(PyObject* o, PyObject* name) {
    PyRef qualname;
    if (name != nullptr) {
      qualname = PyRef::borrow(name);
    } else {
      PyObject* q = PyObject_GetAttrString(o, "__qualname__");
      if (q == nullptr) {
        if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw_python_error();
        PyErr_Clear();
        q = PyObject_GetAttrString(o, "__name__");
        if (q == nullptr) throw_python_error();
      }
      qualname = PyRef::steal(q);
    }
    if (!whichmodule_) whichmodule_ = get_attr(import_module("pickle").get(), "whichmodule");
    PyRef module =
        check(PyObject_CallFunctionObjArgs(whichmodule_.get(), o, qualname.get(), nullptr));
    if (!PyUnicode_Check(module.get()) || !PyUnicode_Check(qualname.get())) {
      bridge_error("the module and name of a " + type_name(o) + " object are not strings");
    }
    std::string module_text = payload_of_str(module.get());
    std::string name_text = payload_of_str(qualname.get());
    PyRef found;
    try {
      found = walk_qualname(import_module(module_text), name_text);
    } catch (const SubjectError&) {
      bridge_error("Can't describe " + str_of(o) + ": it's not found as " + module_text + "." +
                   name_text);
    }
    if (found.get() != o) {
      bridge_error("Can't describe " + str_of(o) + ": it's not the same object as " + module_text +
                   "." + name_text);
    }
    if (options_.protocol >= 2) {
      if (std::int64_t code = registered_code(o, module.get(), qualname.get()); code != 0) {
        return pickle::extension_ref(graph_, code);
      }
    }
    return graph_.global(std::move(module_text), std::move(name_text));
  }

  // The code copyreg.add_extension registered (module, qualname) under, 0
  // when none: save_global writes such a global as EXT from protocol 2 on.
  std::int64_t registered_code(PyObject* o, PyObject* module, PyObject* qualname) {
    if (!extension_registry_) {
      extension_registry_ = get_attr(import_module("copyreg").get(), "_extension_registry");
    }
    PyRef key = check(PyTuple_Pack(2, module, qualname));
    PyObject* code = PyDict_GetItemWithError(extension_registry_.get(), key.get());  // borrowed
    if (code == nullptr) {
      if (PyErr_Occurred()) throw_python_error();
      return 0;
    }
    if (!PyLong_Check(code)) {
      bridge_error("Can't describe " + str_of(o) + ": extension code " + str_of(code) +
                   " isn't an integer");
    }
    int overflow = 0;
    long long value = PyLong_AsLongLongAndOverflow(code, &overflow);
    if (overflow != 0 || value < 1 || value > pickle::kMaxExtensionCode) {
      bridge_error("Can't describe " + str_of(o) + ": extension code " + str_of(code) +
                   " is out of range");
    }
    return value;
  }

  void fill(Work& w) {
    Node* n = w.node;
    switch (n->kind) {
      case Kind::List: {
        PyRef copy = check(PyList_GetSlice(w.object, 0, PyList_GET_SIZE(w.object)));
        add_items(n, copy.get());
        return;
      }
      case Kind::Tuple: add_items(n, w.object); return;
      case Kind::Set:
      case Kind::FrozenSet: {
        PyRef copy = check(PySequence_List(w.object));
        add_items(n, copy.get());
        return;
      }
      case Kind::Dict: {
        PyRef pairs = check(PyDict_Items(w.object));
        Py_ssize_t size = PyList_GET_SIZE(pairs.get());
        n->items.reserve(2 * static_cast<std::size_t>(size));
        for (Py_ssize_t i = 0; i < size; ++i) {
          PyObject* pair = PyList_GET_ITEM(pairs.get(), i);
          n->items.push_back(node_for(PyTuple_GET_ITEM(pair, 0)));
          n->items.push_back(node_for(PyTuple_GET_ITEM(pair, 1)));
        }
        return;
      }
      case Kind::Object: fill_object(n, w.reduced.get()); return;
      case Kind::Tensor:
        if (w.reduced && w.reduced.get() != Py_None) n->array()->grad = node_for(w.reduced.get());
        return;
      case Kind::PersId:
        n->items.push_back(node_for(w.reduced.get(), /*ask_persistent_id=*/false));
        return;
      case Kind::Module:
        if (!Py_IS_TYPE(w.object, &PyModule_Type)) {
          n->items.push_back(node_for(reinterpret_cast<PyObject*>(Py_TYPE(w.object))));
        }
        return;
      default: return;
    }
  }

  // `sequence` is a list or a tuple that stays alive while this runs.
  void add_items(Node* n, PyObject* sequence) {
    Py_ssize_t size = PySequence_Fast_GET_SIZE(sequence);
    PyObject** items = PySequence_Fast_ITEMS(sequence);
    n->items.reserve(static_cast<std::size_t>(size));
    for (Py_ssize_t i = 0; i < size; ++i) n->items.push_back(node_for(items[i]));
  }

  static PyObject* optional_item(PyObject* tuple, Py_ssize_t i) {
    if (PyTuple_GET_SIZE(tuple) <= i) return nullptr;
    PyObject* item = PyTuple_GET_ITEM(tuple, i);
    return item == Py_None ? nullptr : item;
  }

  // `reduced` is (callable, args[, state[, listitems[, dictitems[, state_setter]]]]).
  void fill_object(Node* n, PyObject* reduced) {
    alive_.push_back(PyRef::borrow(reduced));
    PyObject* callable = PyTuple_GET_ITEM(reduced, 0);
    PyObject* args = PyTuple_GET_ITEM(reduced, 1);
    if (!PyCallable_Check(callable)) {
      bridge_error("the first item of a reduce must be callable, not " + type_name(callable));
    }
    if (!PyTuple_Check(args)) {
      bridge_error("the second item of a reduce must be a tuple, not " + type_name(args));
    }
    ObjectParts& parts = *n->obj();
    parts.callable = node_for(callable);
    parts.args = node_for(args);
    if (PyObject* state = optional_item(reduced, 2)) parts.state = node_for(state);
    if (PyObject* listitems = optional_item(reduced, 3)) {
      PyRef items = drain(listitems);
      Py_ssize_t size = PyList_GET_SIZE(items.get());
      for (Py_ssize_t i = 0; i < size; ++i) {
        parts.listitems.push_back(node_for(PyList_GET_ITEM(items.get(), i)));
      }
    }
    if (PyObject* dictitems = optional_item(reduced, 4)) {
      PyRef items = drain(dictitems);
      Py_ssize_t size = PyList_GET_SIZE(items.get());
      for (Py_ssize_t i = 0; i < size; ++i) {
        PyObject* pair = PyList_GET_ITEM(items.get(), i);
        if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
          bridge_error("dictitems must yield (key, value) pairs");
        }
        parts.dictitems.emplace_back(node_for(PyTuple_GET_ITEM(pair, 0)),
                                     node_for(PyTuple_GET_ITEM(pair, 1)));
      }
    }
    // Pickle ignores a state_setter when there is no state (None).
    if (PyObject* setter = optional_item(reduced, 5); setter != nullptr && parts.state != nullptr) {
      parts.state_setter = node_for(setter);
    }
  }

  // An iterator's items as a list that stays alive to the end (they may be
  // temporaries whose ids would otherwise be reused).
  PyRef drain(PyObject* iterable) {
    PyRef items = check(PySequence_List(iterable));
    alive_.push_back(items);
    return items;
  }

  Graph& graph_;
  BridgeOptions options_;
  PyRef extension_registry_;
  std::unordered_map<PyObject*, Node*> seen_;
  std::vector<PyRef> alive_;
  std::vector<Work> work_;
  PyRef dispatch_table_;
  PyRef newobj_ex_;
  PyRef object_new_;
  PyRef partial_;
  PyRef whichmodule_;
  PyRef persistent_class_;
  bool persistent_checked_ = false;
};

}  // namespace

Node* from_python(PyObject* object, Graph& graph, const BridgeOptions& options) {
  if (object == nullptr) bridge_error("no object (null PyObject)");
  return Describer(graph, options).describe(object);
}

}  // namespace serialcheck::python
