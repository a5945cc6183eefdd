// Live Python objects for the domain kinds that need Python code to make or
// read: torch tensors, and modules with the registry of generated
// types.ModuleType subclasses. The bridge (bridge.h) calls these; tests use
// them to check what a loader returned. Everything here needs the GIL.
//
// The registry is a module, kModuleTypesModule, put in sys.modules on first
// use. A class named there (a Global node `serialcheck_module_types.Name`)
// is defined on first use as a direct subclass of types.ModuleType, so
// generated values can name ModuleType subclasses that exist in every
// process that builds them, and pickle can find them by name.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "harness/python/interpreter.h"

namespace serialcheck::python {

inline constexpr std::string_view kModuleTypesModule = "serialcheck_module_types";

// The class kModuleTypesModule.<name>; `name` must be a Python identifier.
PyRef module_type(std::string_view name);

// sys.modules[name] when something is registered under `name`; otherwise
// `cls(name)` registered there when `cls` is not null, else the module
// imported by name (as cloudpickle's subimport does).
PyRef materialize_module(std::string_view name, PyObject* cls);

struct TensorData {
  std::string dtype;  // "float32"
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;
  std::int64_t offset = 0;
  bool requires_grad = false;
  std::string device;   // "cpu", "cuda:0"
  std::string storage;  // every byte of the storage
};

// A torch.Tensor (exact type) over a fresh storage holding `t.storage`,
// viewed with its dtype, shape, strides and offset (set_, as torch's own
// loader does), on its device, then requires_grad and grad (None or a
// tensor) set.
PyRef make_tensor(const TensorData& t, PyObject* grad);

// True when `object`'s type is exactly torch.Tensor (without importing torch).
bool is_exact_tensor(PyObject* object);

// What an exact torch.Tensor holds, with its grad (a new reference or None)
// in `grad`; false for tensors the model has no node for (sparse,
// quantized, meta, named, complex32...), which stay generic reduces.
bool read_tensor(PyObject* tensor, TensorData& out, PyRef& grad);

}  // namespace serialcheck::python
