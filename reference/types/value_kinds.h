// The domain kinds' hooks for equality and the canonical JSON form
// (reference/value/domain_kinds.h): ndarray and tensor equality, and the
// checks an ndarray, tensor or module read from JSON must pass.
#pragma once

namespace serialcheck::types {

// Registers the hooks of every domain kind defined here. Idempotent. It runs
// during static initialization of any program that links the pickle codec
// (ndarray.cpp calls it); a program that compares or reads domain values
// without the codec calls it before it does.
void register_value_kinds();

}  // namespace serialcheck::types
