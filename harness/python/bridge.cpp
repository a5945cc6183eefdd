#define PY_SSIZE_T_CLEAN
#include "harness/python/bridge.h"

#include <Python.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "harness/python/domain_objects.h"
#include "harness/subjects/subject.h"
#include "reference/pickle/extension.h"
#include "reference/types/ndarray.h"
#include "reference/types/tensor.h"

namespace serialcheck::python {
namespace {

// The fixtures module (harness/gen/fixtures.h), whose Persistent objects
// stand for persistent ids.
constexpr std::string_view kFixturesModuleName = "serialcheck_fixtures";

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

// ---------------------------------------------------------------------------
// numpy arrays, both ways: an NDArray node is a numpy.ndarray with its exact
// dtype, shape, strides, offset (into a copy of the payload) and WRITEABLE
// flag; an exact numpy.ndarray of a numeric dtype is an NDArray node whose
// payload is a copy of the bytes its elements span.

std::vector<std::int64_t> int64s_of(PyObject* tuple) {
  if (!PyTuple_Check(tuple)) bridge_error("numpy gave a shape or strides that is not a tuple");
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

PyRef ndarray_to_python(const Node* n) {
  if (!n->array) bridge_error("an ndarray node has no array parts");
  const ArrayParts& a = *n->array;
  if (std::string problem = types::ndarray_problem(a, n->payload().size()); !problem.empty()) {
    bridge_error("ndarray: " + problem);
  }
  PyRef numpy = import_module("numpy");
  // numpy.dtype(str) is numpy's singleton for '<' and '|' dtypes and a new
  // object for '>' ones: what the encoder assumes of distinct arrays.
  PyRef dtype = check(PyObject_CallMethod(numpy.get(), "dtype", "s", a.dtype.c_str()));
  auto p = n->payload();
  PyRef base = check(PyByteArray_FromStringAndSize(p.data(), static_cast<Py_ssize_t>(p.size())));
  PyRef shape = int64_tuple(a.shape);
  PyRef strides = int64_tuple(a.strides);
  PyRef args = check(Py_BuildValue("(OO)", shape.get(), dtype.get()));
  PyRef kwargs = check(Py_BuildValue("{sOsLsO}", "buffer", base.get(), "offset",
                                     static_cast<long long>(a.offset), "strides", strides.get()));
  PyRef ndarray = get_attr(numpy.get(), "ndarray");
  PyRef array = check(PyObject_Call(ndarray.get(), args.get(), kwargs.get()));
  if (loaded_readonly(*n)) {  // pickled read-only, or read from read-only memory
    PyRef flags = get_attr(array.get(), "flags");
    check_rc(PyObject_SetAttrString(flags.get(), "writeable", Py_False));
  }
  return array;
}

// nullptr when `o` is not an exact numpy.ndarray of a numeric dtype without
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
  ArrayParts& a = *n->array;
  a.dtype = parsed->str();
  a.shape = int64s_of(get_attr(o, "shape").get());
  a.strides = int64s_of(get_attr(o, "strides").get());
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
// Value -> Python. A depth-first walk in the order pickle saves a value, so
// objects are made in the order pickle's loader makes them.

class Builder {
 public:
  explicit Builder(const BridgeOptions& options) : options_(options) {}

  PyRef build(const Node* root) {
    visit(root);
    while (!stack_.empty()) {
      Task& top = stack_.back();
      const Node* next = child(top, top.next);
      if (next != nullptr) {
        ++top.next;
        if (made(next) == nullptr) visit(next);  // may grow stack_: `top` is stale now
        continue;
      }
      Task done = stack_.back();
      pop();
      finish(done);
    }
    PyObject* result = made(root);
    return PyRef::borrow(result);
  }

 private:
  // Make: a tuple or frozenset waits for its items. Create: an object waits
  // for its callable and args. The other steps run on an object that exists.
  enum class Step : std::uint8_t { Make, Fill, Create, ListItems, DictItems, State };
  static constexpr std::size_t kNone = static_cast<std::size_t>(-1);

  struct Task {
    const Node* node;
    Step step;
    std::size_t next = 0;
    std::size_t fills = 0;           // Fill-like tasks at or below this one
    std::size_t prev_entry = kNone;  // Make/Create: the previous entry of this node
  };

  static bool fills_like(Step s) { return s != Step::Make && s != Step::Create; }

  PyObject* made(const Node* n) const {
    auto it = made_.find(n);
    return it == made_.end() ? nullptr : it->second.get();
  }

  void push(const Node* n, Step step) {
    Task t{n, step};
    t.fills = (stack_.empty() ? 0 : stack_.back().fills) + (fills_like(step) ? 1 : 0);
    if (!fills_like(step)) {
      auto [it, inserted] = entry_.try_emplace(n, stack_.size());
      if (!inserted) {
        t.prev_entry = it->second;
        it->second = stack_.size();
      }
    }
    stack_.push_back(t);
  }

  void pop() {
    const Task& t = stack_.back();
    if (!fills_like(t.step)) {
      if (t.prev_entry == kNone) {
        entry_.erase(t.node);
      } else {
        entry_[t.node] = t.prev_entry;
      }
    }
    stack_.pop_back();
  }

  void keep(const Node* n, PyRef object) { made_.emplace(n, std::move(object)); }

  // Starts making `n` (which is not made yet).
  void visit(const Node* n) {
    switch (n->kind) {
      case Kind::None: keep(n, PyRef::borrow(Py_None)); return;
      case Kind::Bool: keep(n, PyRef::borrow(n->flag ? Py_True : Py_False)); return;
      case Kind::Int: keep(n, make_int(n)); return;
      case Kind::Float: keep(n, check(PyFloat_FromDouble(n->f))); return;
      case Kind::Str: keep(n, str_from_payload(n->payload())); return;
      case Kind::Bytes: {
        auto p = n->payload();
        keep(n, check(PyBytes_FromStringAndSize(p.data(), static_cast<Py_ssize_t>(p.size()))));
        return;
      }
      case Kind::ByteArray: {
        auto p = n->payload();
        keep(n, check(PyByteArray_FromStringAndSize(p.data(), static_cast<Py_ssize_t>(p.size()))));
        return;
      }
      case Kind::Global:
        // The registry of generated ModuleType subclasses defines them on demand.
        if (n->payload() == kModuleTypesModule) {
          keep(n, module_type(n->name));
        } else if (options_.find_class != nullptr) {
          PyRef module = str_from_payload(n->payload());
          PyRef name = str_from_payload(n->name);
          keep(n, check(PyObject_CallFunctionObjArgs(options_.find_class, module.get(), name.get(),
                                                     nullptr)));
        } else {
          keep(n, resolve_global(n->payload(), n->name));
        }
        return;
      case Kind::PickleBuffer: keep(n, make_pickle_buffer(n)); return;
      case Kind::NDArray: keep(n, ndarray_to_python(n)); return;
      case Kind::Tensor:  // made once its grad is
      case Kind::Module:  // made once its class is
        enter(n);
        return;
      case Kind::DeviceBuffer:
        bridge_error(
            "a device-buffer has no Python object: the Python subjects have no devices "
            "(send it with the cuda family)");
      case Kind::PersId:  // made once its pid is
        if (n->items.size() != 1) bridge_error("a persistent id node needs one pid");
        enter(n);
        return;
      case Kind::List:
        keep(n, check(PyList_New(0)));
        push(n, Step::Fill);
        return;
      case Kind::Dict:
        keep(n, check(PyDict_New()));
        push(n, Step::Fill);
        return;
      case Kind::Set:
        keep(n, check(PySet_New(nullptr)));
        push(n, Step::Fill);
        return;
      case Kind::Object:
        if (n->obj == nullptr) bridge_error("an object node has no reduce parts");
        if (std::int64_t code = pickle::extension_code(n); code != 0) {
          keep(n, registered_object(code));
          return;
        }
        enter(n);
        return;
      case Kind::Tuple:
      case Kind::FrozenSet: enter(n); return;
    }
    bridge_error("unknown value kind " + std::to_string(static_cast<int>(n->kind)));
  }

  // Making an immutable (or a reduced object) that may already be in the
  // making further down the stack: that is allowed, as in pickle, only when a
  // mutable object made since then breaks the cycle.
  void enter(const Node* n) {
    auto it = entry_.find(n);
    if (it != entry_.end() && stack_.back().fills == stack_[it->second].fills) {
      bridge_error(std::string("a ") + std::string(kind_name(n->kind)) +
                   " contains itself through immutable objects only; Python cannot build that");
    }
    push(n, n->kind == Kind::Object ? Step::Create : Step::Make);
  }

  static const Node* pair_item(const std::vector<std::pair<Node*, Node*>>& pairs, std::size_t i) {
    return i % 2 == 0 ? pairs[i / 2].first : pairs[i / 2].second;
  }

  // The i-th part `t` waits for, or null when it has them all.
  const Node* child(const Task& t, std::size_t i) const {
    const Node* n = t.node;
    switch (t.step) {
      case Step::Make:
        if (n->kind == Kind::Tensor) return i == 0 && n->array ? n->array->grad : nullptr;
        return i < n->items.size() ? n->items[i] : nullptr;
      case Step::Fill: return i < n->items.size() ? n->items[i] : nullptr;
      case Step::Create: {
        const Node* parts[] = {n->obj->callable, n->obj->args};
        while (i < 2 && parts[i] == nullptr) ++i;  // reported missing in finish()
        return i < 2 ? parts[i] : nullptr;
      }
      case Step::ListItems: return i < n->obj->listitems.size() ? n->obj->listitems[i] : nullptr;
      case Step::DictItems:
        return i < 2 * n->obj->dictitems.size() ? pair_item(n->obj->dictitems, i) : nullptr;
      case Step::State: {
        // The state first, then the setter (the order pickle saves them in).
        const Node* parts[] = {n->obj->state, n->obj->state_setter};
        while (i < 2 && parts[i] == nullptr) ++i;
        return i < 2 ? parts[i] : nullptr;
      }
    }
    return nullptr;
  }

  PyObject* part(const Node* n) const {
    PyObject* o = made(n);
    if (o == nullptr) bridge_error("internal: a part was not made before its container");
    return o;
  }

  void finish(const Task& t) {
    const Node* n = t.node;
    switch (t.step) {
      case Step::Fill: fill(n); return;
      case Step::Make:
        if (made(n) != nullptr) return;  // a nested entry made it already
        if (n->kind == Kind::Tensor) {
          keep(n, make_torch_tensor(n));
        } else if (n->kind == Kind::PersId && options_.persistent_load != nullptr) {
          keep(n, check(PyObject_CallOneArg(options_.persistent_load, part(n->items[0]))));
        } else if (n->kind == Kind::PersId) {
          // What the fixtures module's persistent_load gives for the pid.
          PyRef persistent = get_attr(import_module(kFixturesModuleName).get(), "Persistent");
          keep(n, check(PyObject_CallOneArg(persistent.get(), part(n->items[0]))));
        } else if (n->kind == Kind::Module) {
          keep(n, materialize_module(n->name, n->items.empty() ? nullptr : part(n->items[0])));
        } else {
          make_immutable(n);
        }
        return;
      case Step::Create:
        if (made(n) != nullptr) return;
        keep(n, create_object(n));
        push(n, Step::ListItems);
        return;
      case Step::ListItems:
        apply_listitems(n);
        push(n, Step::DictItems);
        return;
      case Step::DictItems:
        apply_dictitems(n);
        push(n, Step::State);
        return;
      case Step::State: apply_state(n); return;
    }
  }

  void fill(const Node* n) {
    PyObject* target = made(n);
    if (n->kind == Kind::List) {
      for (const Node* item : n->items) check_rc(PyList_Append(target, part(item)));
    } else if (n->kind == Kind::Set) {
      for (const Node* item : n->items) check_rc(PySet_Add(target, part(item)));
    } else {
      if (n->items.size() % 2 != 0) bridge_error("a dict node has an odd number of items");
      for (std::size_t i = 0; i < n->items.size(); i += 2) {
        check_rc(PyDict_SetItem(target, part(n->items[i]), part(n->items[i + 1])));
      }
    }
  }

  void make_immutable(const Node* n) {
    PyRef tuple = check(PyTuple_New(static_cast<Py_ssize_t>(n->items.size())));
    for (std::size_t i = 0; i < n->items.size(); ++i) {
      PyObject* item = part(n->items[i]);
      Py_INCREF(item);
      PyTuple_SET_ITEM(tuple.get(), static_cast<Py_ssize_t>(i), item);
    }
    if (n->kind == Kind::Tuple) {
      keep(n, std::move(tuple));
    } else {
      keep(n, check(PyFrozenSet_New(tuple.get())));
    }
  }

  // A torch.Tensor over a copy of the node's storage; its grad is made already.
  PyRef make_torch_tensor(const Node* n) {
    if (auto problem = types::tensor_problem(*n)) bridge_error("tensor: " + *problem);
    const ArrayParts& a = *n->array;
    TensorData t;
    t.dtype = a.dtype;
    t.shape = a.shape;
    t.strides = a.strides;
    t.offset = a.offset;
    t.requires_grad = a.requires_grad;
    t.device = a.device;
    t.storage = std::string(n->payload());
    return make_tensor(t, a.grad == nullptr ? nullptr : part(a.grad));
  }

  static PyRef make_int(const Node* n) {
    if (!n->big) return check(PyLong_FromLongLong(n->small));
    auto p = n->payload();
    return check(_PyLong_FromByteArray(reinterpret_cast<const unsigned char*>(p.data()), p.size(),
                                       /*little_endian=*/1, /*is_signed=*/1));
  }

  static PyRef make_pickle_buffer(const Node* n) {
    auto p = n->payload();
    auto size = static_cast<Py_ssize_t>(p.size());
    // What a loader hands back: read-only when the stream or the memory it
    // was supplied says so (see Supplied).
    PyRef base = loaded_readonly(*n) ? check(PyBytes_FromStringAndSize(p.data(), size))
                                     : check(PyByteArray_FromStringAndSize(p.data(), size));
    return check(PyPickleBuffer_FromObject(base.get()));
  }

  // What pickle's Unpickler.get_extension loads for an EXT `code`: the
  // object in copyreg._extension_cache, else the global that
  // copyreg._inverted_registry names, found as find_class finds it, and then
  // cached. An unregistered code raises ValueError, as CPython does.
  PyRef registered_object(std::int64_t code) {
    PyRef copyreg = import_module("copyreg");
    PyRef cache = get_attr(copyreg.get(), "_extension_cache");
    PyRef key = check(PyLong_FromLongLong(code));
    if (PyObject* cached = PyDict_GetItemWithError(cache.get(), key.get())) {
      return PyRef::borrow(cached);
    }
    if (PyErr_Occurred()) throw_python_error();
    PyRef inverted = get_attr(copyreg.get(), "_inverted_registry");
    PyObject* pair = PyDict_GetItemWithError(inverted.get(), key.get());  // borrowed
    if (pair == nullptr) {
      if (PyErr_Occurred()) throw_python_error();
      PyErr_Format(PyExc_ValueError, "unregistered extension code %lld",
                   static_cast<long long>(code));
      throw_python_error();
    }
    // Held: the import below may run code that changes the registry.
    PyRef held = PyRef::borrow(pair);
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 ||
        !PyUnicode_Check(PyTuple_GET_ITEM(pair, 0)) || !PyUnicode_Check(PyTuple_GET_ITEM(pair, 1))) {
      bridge_error("extension code " + std::to_string(code) +
                   " is registered as something other than a (module, name) pair of strs");
    }
    PyObject* module = PyTuple_GET_ITEM(pair, 0);
    PyObject* name = PyTuple_GET_ITEM(pair, 1);
    PyRef object = options_.find_class != nullptr
                       ? check(PyObject_CallFunctionObjArgs(options_.find_class, module, name,
                                                            nullptr))
                       : resolve_global(payload_of_str(module), payload_of_str(name));
    check_rc(PyDict_SetItem(cache.get(), key.get(), object.get()));
    return object;
  }

  PyObject* copyreg_function(bool ex) {
    PyRef& slot = ex ? newobj_ex_ : newobj_;
    if (!slot) slot = get_attr(import_module("copyreg").get(), ex ? "__newobj_ex__" : "__newobj__");
    return slot.get();
  }

  // callable(*args), with copyreg's NEWOBJ forms called as pickle's loader
  // does: cls.__new__(cls, *args[, **kwargs]); an INST or OBJ object
  // (Node::flag) as pickle's instantiate() does.
  PyRef create_object(const Node* n) {
    if (n->obj->callable == nullptr) bridge_error("an object node has no callable");
    PyObject* callable = part(n->obj->callable);
    PyRef args =
        n->obj->args == nullptr ? check(PyTuple_New(0)) : PyRef::borrow(part(n->obj->args));
    if (!PyTuple_Check(args.get())) {
      bridge_error("the args of an object must be a tuple, not " + type_name(args.get()));
    }
    Py_ssize_t nargs = PyTuple_GET_SIZE(args.get());
    if (callable == copyreg_function(false)) {
      if (nargs < 1) bridge_error("copyreg.__newobj__ needs a class as its first argument");
      PyObject* cls = PyTuple_GET_ITEM(args.get(), 0);
      if (!PyType_Check(cls)) bridge_error("NEWOBJ class argument isn't a type: " + str_of(cls));
      PyRef new_method = get_attr(cls, "__new__");
      return check(PyObject_Call(new_method.get(), args.get(), nullptr));
    }
    if (callable == copyreg_function(true)) {
      if (nargs != 3) bridge_error("copyreg.__newobj_ex__ takes (cls, args, kwargs)");
      PyObject* cls = PyTuple_GET_ITEM(args.get(), 0);
      PyObject* cls_args = PyTuple_GET_ITEM(args.get(), 1);
      PyObject* kwargs = PyTuple_GET_ITEM(args.get(), 2);
      if (!PyType_Check(cls)) bridge_error("NEWOBJ_EX class argument isn't a type: " + str_of(cls));
      if (!PyTuple_Check(cls_args)) bridge_error("NEWOBJ_EX args argument isn't a tuple");
      if (!PyDict_Check(kwargs)) bridge_error("NEWOBJ_EX kwargs argument isn't a dict");
      PyRef full = check(PyTuple_New(PyTuple_GET_SIZE(cls_args) + 1));
      Py_INCREF(cls);
      PyTuple_SET_ITEM(full.get(), 0, cls);
      for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(cls_args); ++i) {
        PyObject* item = PyTuple_GET_ITEM(cls_args, i);
        Py_INCREF(item);
        PyTuple_SET_ITEM(full.get(), i + 1, item);
      }
      PyRef new_method = get_attr(cls, "__new__");
      return check(PyObject_Call(new_method.get(), full.get(), kwargs));
    }
    if (n->flag && nargs == 0 && PyType_Check(callable)) return instantiate(callable);
    return check(PyObject_Call(callable, args.get(), nullptr));
  }

  // INST or OBJ with no args, as the C unpickler's instantiate() makes it:
  // a class without __getinitargs__ by cls.__new__(cls), without __init__;
  // one with it by cls().
  PyRef instantiate(PyObject* cls) {
    PyObject* initargs = PyObject_GetAttrString(cls, "__getinitargs__");
    if (initargs != nullptr) {
      Py_DECREF(initargs);
      return check(PyObject_CallNoArgs(cls));
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw_python_error();
    PyErr_Clear();
    PyRef new_method = get_attr(cls, "__new__");
    return check(PyObject_CallOneArg(new_method.get(), cls));
  }

  // APPENDS: extend() when the object has it, append() one by one otherwise.
  void apply_listitems(const Node* n) {
    const auto& items = n->obj->listitems;
    if (items.empty()) return;
    PyObject* target = made(n);
    PyObject* extend = PyObject_GetAttrString(target, "extend");
    if (extend != nullptr) {
      PyRef owned_extend = PyRef::steal(extend);
      PyRef list = check(PyList_New(0));
      for (const Node* item : items) check_rc(PyList_Append(list.get(), part(item)));
      check(PyObject_CallOneArg(extend, list.get()));
      return;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw_python_error();
    PyErr_Clear();
    PyRef append = get_attr(target, "append");
    for (const Node* item : items) check(PyObject_CallOneArg(append.get(), part(item)));
  }

  void apply_dictitems(const Node* n) {
    PyObject* target = made(n);
    for (const auto& [key, value] : n->obj->dictitems) {
      check_rc(PyObject_SetItem(target, part(key), part(value)));
    }
  }

  // BUILD as pickle's load_build does it, or state_setter(obj, state).
  void apply_state(const Node* n) {
    if (n->obj->state == nullptr) return;
    PyObject* inst = made(n);
    PyObject* state = part(n->obj->state);
    if (n->obj->state_setter != nullptr) {
      check(PyObject_CallFunctionObjArgs(part(n->obj->state_setter), inst, state, nullptr));
      return;
    }
    PyObject* setstate = PyObject_GetAttrString(inst, "__setstate__");
    if (setstate != nullptr) {
      PyRef owned = PyRef::steal(setstate);
      check(PyObject_CallOneArg(setstate, state));
      return;
    }
    if (!PyErr_ExceptionMatches(PyExc_AttributeError)) throw_python_error();
    PyErr_Clear();
    PyObject* slotstate = nullptr;
    if (PyTuple_Check(state) && PyTuple_GET_SIZE(state) == 2) {
      slotstate = PyTuple_GET_ITEM(state, 1);
      state = PyTuple_GET_ITEM(state, 0);
    }
    int truth = PyObject_IsTrue(state);
    check_rc(truth);
    if (truth) {
      PyRef inst_dict = get_attr(inst, "__dict__");
      PyRef items = check(PyMapping_Items(state));
      for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items.get()); ++i) {
        PyObject* pair = PyList_GET_ITEM(items.get(), i);
        PyRef key = PyRef::borrow(PyTuple_GET_ITEM(pair, 0));
        if (PyUnicode_CheckExact(key.get())) {
          PyObject* interned = key.release();
          PyUnicode_InternInPlace(&interned);
          key = PyRef::steal(interned);
        }
        check_rc(PyObject_SetItem(inst_dict.get(), key.get(), PyTuple_GET_ITEM(pair, 1)));
      }
    }
    if (slotstate != nullptr) {
      truth = PyObject_IsTrue(slotstate);
      check_rc(truth);
      if (!truth) return;
      PyRef items = check(PyMapping_Items(slotstate));
      for (Py_ssize_t i = 0; i < PyList_GET_SIZE(items.get()); ++i) {
        PyObject* pair = PyList_GET_ITEM(items.get(), i);
        check_rc(PyObject_SetAttr(inst, PyTuple_GET_ITEM(pair, 0), PyTuple_GET_ITEM(pair, 1)));
      }
    }
  }

  std::unordered_map<const Node*, PyRef> made_;
  std::unordered_map<const Node*, std::size_t> entry_;  // latest Make/Create task of a node
  std::vector<Task> stack_;
  PyRef newobj_;
  PyRef newobj_ex_;
  BridgeOptions options_;
};

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
      m->flag = !is_registered_module(o, m->name);
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
    TensorData t;
    if (!read_tensor(o, t, grad)) return nullptr;
    Node* n = graph_.tensor();
    ArrayParts& a = *n->array;
    a.dtype = std::move(t.dtype);
    a.shape = std::move(t.shape);
    a.strides = std::move(t.strides);
    a.offset = t.offset;
    a.requires_grad = t.requires_grad;
    a.device = std::move(t.device);
    n->set_owned(std::move(t.storage));
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
        if (w.reduced && w.reduced.get() != Py_None) n->array->grad = node_for(w.reduced.get());
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
    ObjectParts& parts = *n->obj;
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

PyRef resolve_global(std::string_view module, std::string_view qualname) {
  try {
    return walk_qualname(import_module(module), qualname);
  } catch (const SubjectError&) {
    auto renamed = compat_name(module, qualname);
    if (!renamed) throw;
    return walk_qualname(import_module(renamed->first), renamed->second);
  }
}

PyRef to_python(const Node* value, const BridgeOptions& options) {
  if (value == nullptr) bridge_error("no value (null node)");
  return Builder(options).build(value);
}

Node* from_python(PyObject* object, Graph& graph, const BridgeOptions& options) {
  if (object == nullptr) bridge_error("no object (null PyObject)");
  return Describer(graph, options).describe(object);
}

}  // namespace serialcheck::python
