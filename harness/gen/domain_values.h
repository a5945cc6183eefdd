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

// Frames distributed compresses: distributed's maybe_compress leaves a
// frame below this many bytes as it is (min_size).
inline constexpr std::size_t kCompressionMinSize = 10'000;

// Arrays nested as by nestedArraysValue(), each either as small as there
// (below kCompressionMinSize) or of kCompressionMinSize to 40,000 bytes, and
// filled with random bytes (no codec shrinks them), runs of repeated bytes
// (every codec does), half of each, or a sixth of runs before random bytes
// (close to the 90 % ratio above which packing sends a frame as is): so
// that packing with compression (wire.packed) meets frames it leaves alone
// for their size, frames it leaves alone for their ratio, and frames it
// compresses.
rc::Gen<GeneratedValue> packedArraysValue();

// A list of one to four modules, some repeated (by name: one node each).
// `allow_subclass`: generated names registered as ModuleType subclasses too.
rc::Gen<GeneratedValue> modulesValue(bool allow_subclass = true);

// Device buffers on "sim:0": one alone, or one to three inside a list,
// tuple or dict next to atoms.
rc::Gen<GeneratedValue> deviceBuffersValue();

}  // namespace serialcheck::gen
