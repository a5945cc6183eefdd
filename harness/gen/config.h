// What the value generators may produce, and how big. One struct, a few
// named presets; a test picks a preset and adjusts single fields.
#pragma once

namespace serialcheck::gen {

// Whatever the switches, a value never holds two nodes that pickle (and
// CPython) treat as one object: one node per global name, and one per ''
// and one-character latin-1 str and per b'' and one-byte bytes, since the
// encoder memoizes these by value. So even without allow_sharing such nodes
// can be referenced from several places.
struct GenConfig {
  // Containers nest at most this deep below the root (0: atoms only).
  int max_depth = 4;
  // Items per container at RapidCheck's largest size; smaller sizes scale it down.
  int max_items = 6;

  // A position may reuse a node built earlier (two references, one object).
  bool allow_sharing = true;
  // A list, dict or object may contain itself or an ancestor, through the
  // edges Python can close after creation (list items, dict values, an
  // object's state, listitems and dictitems).
  bool allow_cycles = true;
  // A cycle may also come back to a tuple through a mutable container inside
  // it (the pickler then pops the tuple's items: POP / POP_MARK).
  bool allow_tuple_cycles = true;
  // PickleBuffer nodes (protocol 5 only; lower protocols must refuse them).
  bool allow_buffers = true;
  // Persistent ids (the pickler's persistent_id hook).
  bool allow_persid = true;
  // Generic reduce objects whose callables are mostly invented names.
  bool allow_objects = true;
  // Python objects of the fixtures module (harness/gen/fixtures.h): request
  // nodes that only a resolver with an embedded interpreter turns into the
  // object's real reduce at the case's protocol. Off in every preset.
  bool allow_fixtures = false;
  // Objects whose state is applied by a state_setter (reduce's 6th item).
  bool allow_state_setter = true;
  // Globals only from a list of names that exist in CPython 3.11 and pickle
  // under their own name; otherwise invented identifiers are mixed in.
  bool real_globals_only = false;
  // Rarely, a bytes payload longer than a pickle frame (64 KiB) or a
  // container of just over 1000 items (the APPENDS/SETITEMS batch size).
  bool allow_large = true;
  // Now and then a root list of values at the pickle format's length and
  // width switches (strs, bytes and bytearrays of 255 and 256 bytes, tuples
  // of 0 to 4 items, ints at each opcode's end, b'' and an empty bytearray),
  // beside generic values: every switch in every gate cell
  // (gen_boundaries_test.cpp, docs/conformance.md "Boundaries").
  bool draw_boundaries = true;
  // The protocol the value will be pickled at, when the caller knows it
  // (the gate's cases); -1: any. Large values whose switches exist only at
  // some protocols (payloads around the 64 KiB frame target, from 4 on; a
  // bytearray's, at 5) are drawn only at those, which keeps cases of the
  // other protocols cheap.
  int target_protocol = -1;
  // Domain leaves: numpy arrays, torch tensors (with requires_grad and
  // grads), modules by reference (ModuleType subclasses included).
  bool allow_ndarrays = true;
  bool allow_tensors = true;
  bool allow_modules = true;
  // A tensor may have a grad. pickle drops a tensor's .grad (torch's reduce
  // keeps requires_grad only), so values that Python pickles keep it off.
  bool allow_tensor_grads = true;
  // Buffers on the simulated device "sim:0". Off by default: a device buffer
  // has no pickle form (it travels in a message's device frames), so only
  // the family properties turn it on.
  bool allow_device_buffers = false;
  // Every generated value must round-trip at every protocol >= this one.
  // At 0: NaN is the canonical quiet NaN (protocol 0 writes floats as text)
  // and persistent ids are printable ASCII strings of two or more
  // characters (PERSID is an unmemoized text line).
  int min_protocol = 0;
};

// Every kind, sharing and cycles, moderate size: the codec properties.
GenConfig default_config();

// Values a Python object graph can hold exactly, so that the Python subjects
// and the reference can be compared on them: no persistent ids, no generic
// objects with invented callables, real globals only. No domain leaves
// either; a property turns arrays and tensors (without grads) on where
// every subject of its cell takes them (CasePlan::ndarrays, tensors).
// Python keeps one empty tuple, but pickle never memoizes it; the generator
// never shares an empty tuple node, in any preset.
GenConfig python_safe_config();

// Small values (depth 2, 3 items; no large values, no boundary lists):
// quick checks and readable counterexamples.
GenConfig small_config();

}  // namespace serialcheck::gen
