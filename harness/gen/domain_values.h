// Values for the domain properties of the gate (docs/conformance.md,
// "Domain properties"): big arrays alone or nested at random depths and
// positions in lists, tuples and dict values; lists of modules (standard
// library and generated ModuleType subclasses); device buffers alone and
// in collections. Each is a plain spec RapidCheck shrinks, built into a
// fresh graph.
#pragma once

#include <rapidcheck.h>

#include <cstddef>
#include <cstdint>

#include "harness/gen/value.h"

namespace serialcheck::gen {

// Arrays (and buffers) of at least this many bytes must travel as their own
// frame (zerocopy.oob, zerocopy.nested).
inline constexpr std::size_t kZeroCopyThreshold = 1024;

// A C-contiguous numeric ndarray of kZeroCopyThreshold to 16 KiB; a
// one in eight 1-d of exactly kZeroCopyThreshold bytes.
rc::Gen<GeneratedValue> bigArrayValue();

// One to four big arrays inside lists, tuples and dict values nested up to
// three deep, next to small atoms, at any position; an array may appear
// twice. `python_safe`: dict keys are strs (always the case here).
rc::Gen<GeneratedValue> nestedArraysValue();

// A list of one to four modules, some repeated (by name: one node each).
// `allow_subclass`: generated names registered as ModuleType subclasses too.
rc::Gen<GeneratedValue> modulesValue(bool allow_subclass = true);

// Device buffers on "sim:0": one alone, or one to three inside a list,
// tuple or dict next to atoms.
rc::Gen<GeneratedValue> deviceBuffersValue();

}  // namespace serialcheck::gen
