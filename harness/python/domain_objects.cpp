#define PY_SSIZE_T_CLEAN
#include "harness/python/domain_objects.h"

#include <Python.h>

#include <string>

#include "harness/python/internal/convert.h"
#include "harness/subjects/subject.h"

namespace serialcheck::python {
namespace {

// The Python half, compiled once into the module _serialcheck_domain.
// torch is imported only when a tensor is made or read.
constexpr const char* kSource = R"PY(
import importlib
import sys
import types

REGISTRY = 'serialcheck_module_types'
DTYPES = ('float64', 'float32', 'float16', 'bfloat16', 'complex128', 'complex64',
          'int64', 'int32', 'int16', 'int8', 'uint8', 'bool')


def registry():
    module = sys.modules.get(REGISTRY)
    if module is None:
        module = types.ModuleType(
            REGISTRY, 'types.ModuleType subclasses named by generated values.')
        sys.modules[REGISTRY] = module
    return module


def module_type(name):
    if not name.isidentifier():
        raise ValueError(f'{REGISTRY}.{name}: a module type name must be an identifier')
    module = registry()
    cls = module.__dict__.get(name)
    if cls is None:
        cls = type(name, (types.ModuleType,), {'__module__': REGISTRY, '__qualname__': name})
        setattr(module, name, cls)
    return cls


def materialize_module(name, cls):
    module = sys.modules.get(name)
    if module is None:
        if cls is None:
            importlib.import_module(name)
            module = sys.modules[name]
        else:
            module = cls(name)
            sys.modules[name] = module
    return module


def make_tensor(data, dtype, shape, strides, offset, requires_grad, device, grad):
    import torch
    if data:
        raw = torch.frombuffer(bytearray(data), dtype=torch.uint8).clone()
    else:
        raw = torch.empty(0, dtype=torch.uint8)
    if device != 'cpu':
        raw = raw.to(device)
    t = torch.empty(0, dtype=getattr(torch, dtype), device=raw.device)
    t.set_(raw.storage().untyped(), offset, shape, strides)
    t.requires_grad_(requires_grad)
    if grad is not None:
        t.grad = grad
    return t


def read_tensor(t):
    import torch
    if (t.layout is not torch.strided or t.is_quantized or t.device.type not in ('cpu', 'cuda')
            or any(n is not None for n in t.names)):
        return None
    dtype = str(t.dtype).rpartition('.')[2]
    if dtype not in DTYPES:
        return None
    storage = t.detach().storage().untyped()
    raw = torch.empty(0, dtype=torch.uint8, device=storage.device).set_(storage)
    data = raw.cpu().numpy().tobytes()
    grad = t.grad if t.is_leaf else None
    return (data, dtype, tuple(t.shape), tuple(t.stride()), t.storage_offset(),
            t.requires_grad, str(t.device), grad)
)PY";

PyObject* helpers() {
  static PyObject* module = nullptr;  // kept for the life of the process
  if (module == nullptr) {
    PyRef code = check(Py_CompileString(kSource, "<serialcheck domain objects>", Py_file_input));
    module = check(PyImport_ExecCodeModule("_serialcheck_domain", code.get())).release();
  }
  return module;
}

PyRef call(const char* function, PyObject* args) {
  PyRef f = get_attr(helpers(), function);
  return check(PyObject_CallObject(f.get(), args));
}

// What the bridge says when read_tensor's shape or strides is not a tuple.
constexpr std::string_view kTensorShape = "reading a torch.Tensor gave a shape or strides";

std::string text_of(PyObject* str) {
  Py_ssize_t size = 0;
  const char* utf8 = PyUnicode_AsUTF8AndSize(str, &size);
  if (utf8 == nullptr) throw_python_error();
  return std::string(utf8, static_cast<std::size_t>(size));
}

}  // namespace

PyRef module_type(std::string_view name) {
  PyRef n = make_str(name);
  PyRef args = check(PyTuple_Pack(1, n.get()));
  return call("module_type", args.get());
}

PyRef materialize_module(std::string_view name, PyObject* cls) {
  PyRef n = make_str(name);
  PyRef args = check(PyTuple_Pack(2, n.get(), cls == nullptr ? Py_None : cls));
  return call("materialize_module", args.get());
}

PyRef make_tensor(const ArrayParts& t, std::string_view storage, PyObject* grad) {
  PyRef data =
      check(PyBytes_FromStringAndSize(storage.data(), static_cast<Py_ssize_t>(storage.size())));
  PyRef dtype = make_str(t.dtype);
  PyRef shape = int64_tuple(t.shape);
  PyRef strides = int64_tuple(t.strides);
  PyRef offset = check(PyLong_FromLongLong(t.offset));
  PyRef device = make_str(t.device);
  PyRef args = check(PyTuple_Pack(8, data.get(), dtype.get(), shape.get(), strides.get(),
                                  offset.get(), t.requires_grad ? Py_True : Py_False, device.get(),
                                  grad == nullptr ? Py_None : grad));
  return call("make_tensor", args.get());
}

bool is_exact_tensor(PyObject* object) {
  if (std::string_view(Py_TYPE(object)->tp_name) != "Tensor") return false;
  PyRef name = make_str("torch");
  PyRef torch = PyRef::steal(PyImport_GetModule(name.get()));
  if (!torch) {
    if (PyErr_Occurred()) throw_python_error();
    return false;  // torch is not even imported
  }
  PyRef tensor_type = get_attr(torch.get(), "Tensor");
  return reinterpret_cast<PyObject*>(Py_TYPE(object)) == tensor_type.get();
}

bool read_tensor(PyObject* tensor, ArrayParts& out, std::string& storage, PyRef& grad) {
  PyRef args = check(PyTuple_Pack(1, tensor));
  PyRef r = call("read_tensor", args.get());
  if (r.get() == Py_None) return false;
  if (!PyTuple_Check(r.get()) || PyTuple_GET_SIZE(r.get()) != 8) {
    throw SubjectError("BridgeError", "reading a torch.Tensor gave no 8-tuple");
  }
  PyObject* data = PyTuple_GET_ITEM(r.get(), 0);
  storage.assign(PyBytes_AS_STRING(data), static_cast<std::size_t>(PyBytes_GET_SIZE(data)));
  out.dtype = text_of(PyTuple_GET_ITEM(r.get(), 1));
  out.shape = int64s_of(PyTuple_GET_ITEM(r.get(), 2), kTensorShape);
  out.strides = int64s_of(PyTuple_GET_ITEM(r.get(), 3), kTensorShape);
  out.offset = PyLong_AsLongLong(PyTuple_GET_ITEM(r.get(), 4));
  if (out.offset == -1 && PyErr_Occurred()) throw_python_error();
  out.requires_grad = PyTuple_GET_ITEM(r.get(), 5) == Py_True;
  out.device = text_of(PyTuple_GET_ITEM(r.get(), 6));
  grad = PyRef::borrow(PyTuple_GET_ITEM(r.get(), 7));
  return true;
}

}  // namespace serialcheck::python
