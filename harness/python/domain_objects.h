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

#include <string>
#include <string_view>

#include "harness/python/interpreter.h"
#include "reference/value/value.h"

namespace serialcheck::python {

inline constexpr std::string_view kModuleTypesModule = "serialcheck_module_types";

// The class kModuleTypesModule.<name>; `name` must be a Python identifier.
PyRef module_type(std::string_view name);

// sys.modules[name] when something is registered under `name`; otherwise
// `cls(name)` registered there when `cls` is not null, else the module
// imported by name (as cloudpickle's subimport does).
PyRef materialize_module(std::string_view name, PyObject* cls);

// A torch.Tensor (exact type) over a fresh storage holding `storage` (every
// byte of it), viewed with `a`'s dtype, shape, strides and offset (set_, as
// torch's own loader does), on `a.device`, then requires_grad and grad (null
// for none) set. `a.grad` is not read: the caller makes the grad.
PyRef make_tensor(const ArrayParts& a, std::string_view storage, PyObject* grad);

// True when `object`'s type is exactly torch.Tensor (without importing torch).
bool is_exact_tensor(PyObject* object);

// What an exact torch.Tensor holds: its dtype, shape, strides, offset,
// requires_grad and device in `out` (the rest left alone), every byte of its
// storage in `storage`, its grad (a new reference or None) in `grad`; false for tensors the model has no node for (sparse,
// quantized, meta, named, complex32...), which stay generic reduces.
bool read_tensor(PyObject* tensor, ArrayParts& out, std::string& storage, PyRef& grad);

}  // namespace serialcheck::python
