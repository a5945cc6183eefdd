// Frames and Python buffers, both ways, without copying.
//
// A frame made from a Python buffer points into the Python object's memory
// and keeps the object (its Py_buffer export) alive through Frame::owner; the
// owner's deleter takes the GIL, so frames can be dropped on any thread.
// A Python object made from a frame exports the frame's memory through the
// buffer protocol and keeps a copy of the frame (hence its owner) alive; a
// borrowed frame's memory must outlive every Python object that uses it.
// All functions need the GIL.
#pragma once

#include "harness/python/interpreter.h"
#include "reference/frames/message.h"

namespace serialcheck::python {

// A frame over the memory `exporter` exposes (bytes, bytearray, memoryview,
// PickleBuffer, numpy array...). `readonly` follows the export. A buffer that
// is not contiguous is copied into an owned frame in C order.
Frame frame_from_buffer(PyObject* exporter);

// An object exporting `frame`'s memory; writable only when `readonly` is false
// and the frame itself is writable.
PyRef frame_exporter(const Frame& frame, bool readonly);

// The address of the first byte `exporter` exposes (for zero-copy checks).
const void* buffer_address(PyObject* exporter);

}  // namespace serialcheck::python
