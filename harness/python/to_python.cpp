#define PY_SSIZE_T_CLEAN
// Value -> Python (bridge.h's to_python).
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
#include "reference/types/tensor.h"

namespace serialcheck::python {
namespace {

// An NDArray node is a numpy.ndarray with its exact dtype, shape, strides,
// offset (into a copy of the payload) and WRITEABLE flag.
PyRef ndarray_to_python(const Node* n) {
  if (!n->array()) bridge_error("an ndarray node has no array parts");
  const ArrayParts& a = *n->array();
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
          keep(n, module_type(n->name()));
        } else if (options_.find_class != nullptr) {
          PyRef module = str_from_payload(n->payload());
          PyRef name = str_from_payload(n->name());
          keep(n, check(PyObject_CallFunctionObjArgs(options_.find_class, module.get(), name.get(),
                                                     nullptr)));
        } else {
          keep(n, resolve_global(n->payload(), n->name()));
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
        if (n->obj() == nullptr) bridge_error("an object node has no reduce parts");
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
        if (n->kind == Kind::Tensor) return i == 0 && n->array() ? n->array()->grad : nullptr;
        return i < n->items.size() ? n->items[i] : nullptr;
      case Step::Fill: return i < n->items.size() ? n->items[i] : nullptr;
      case Step::Create: {
        const Node* parts[] = {n->obj()->callable, n->obj()->args};
        while (i < 2 && parts[i] == nullptr) ++i;  // reported missing in finish()
        return i < 2 ? parts[i] : nullptr;
      }
      case Step::ListItems: return i < n->obj()->listitems.size() ? n->obj()->listitems[i] : nullptr;
      case Step::DictItems:
        return i < 2 * n->obj()->dictitems.size() ? pair_item(n->obj()->dictitems, i) : nullptr;
      case Step::State: {
        // The state first, then the setter (the order pickle saves them in).
        const Node* parts[] = {n->obj()->state, n->obj()->state_setter};
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
          keep(n, materialize_module(n->name(), n->items.empty() ? nullptr : part(n->items[0])));
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
    const ArrayParts& a = *n->array();
    return make_tensor(a, n->payload(), a.grad == nullptr ? nullptr : part(a.grad));
  }

  static PyRef make_int(const Node* n) {
    if (!n->big) return check(PyLong_FromLongLong(n->small()));
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
    if (n->obj()->callable == nullptr) bridge_error("an object node has no callable");
    PyObject* callable = part(n->obj()->callable);
    PyRef args =
        n->obj()->args == nullptr ? check(PyTuple_New(0)) : PyRef::borrow(part(n->obj()->args));
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
    const auto& items = n->obj()->listitems;
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
    for (const auto& [key, value] : n->obj()->dictitems) {
      check_rc(PyObject_SetItem(target, part(key), part(value)));
    }
  }

  // BUILD as pickle's load_build does it, or state_setter(obj, state).
  void apply_state(const Node* n) {
    if (n->obj()->state == nullptr) return;
    PyObject* inst = made(n);
    PyObject* state = part(n->obj()->state);
    if (n->obj()->state_setter != nullptr) {
      check(PyObject_CallFunctionObjArgs(part(n->obj()->state_setter), inst, state, nullptr));
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

}  // namespace

PyRef to_python(const Node* value, const BridgeOptions& options) {
  if (value == nullptr) bridge_error("no value (null node)");
  return Builder(options).build(value);
}

}  // namespace serialcheck::python
