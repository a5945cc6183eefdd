// The payloads the benchmarks serialize. Each is built once as a Python
// object (so the Python subjects pickle a real object, made as the program
// that defines it makes it) and converted through the bridge into the
// reference's value, so every subject serializes the same value.
//
//   pyperf_*        pyperformance's bm_pickle payloads (docs/perf.md cites them)
//   nested_arrays*  a dict and list of (int, ndarray) tuples: dask's zero-copy case
//   inband_<size>   one bytearray of <size> bytes, written inside the pickle
//   oob_<size>      one PickleBuffer of <size> bytes, sent out of band (protocol 5)
//   device_<size>   one device buffer of <size> bytes on the simulated device
//                   ("sim:0"), built in C++: only the reference runs it, through
//                   its families (the "cuda" family), since no Python subject
//                   can hold simulated device memory
//   tensor_requires_grad  a torch tensor with requires_grad, no .grad
//   tensor_grad     the same with a .grad, which torch's pickling drops (so
//                   the pickle subjects are checked against the tensor
//                   without it)
#pragma once

#include <cstddef>
#include <memory>
#include <string>
#include <vector>

#include "harness/python/interpreter.h"
#include "reference/value/value.h"

namespace serialcheck::bench {

// What a workload is, before anything is built.
struct WorkloadSpec {
  std::string name;          // the middle part of a benchmark name
  std::string group;         // "pyperf", "nested", "inband", "oob", "tensor", "device"
  std::string python;        // a Python expression that builds the object ("" for device)
  bool out_of_band = false;  // pickle buffers go out of band (protocol 5)
  std::size_t size = 0;      // inband/oob: the buffer's size in bytes
  bool quick = false;        // part of `--quick`
  // When the pickle subjects (not the reference, not distributed) cannot
  // carry the whole value: a Python expression over `_serialcheck_bench_obj`
  // for what their loads give back.
  std::string pickled_python;
  // The reference's bytes must equal the C pickler's. Not for tensors:
  // torch's pickling embeds torch.save bytes whose storage key is the
  // storage's address, so no two processes write the same bytes.
  bool same_bytes = true;
};

// Every workload, in the order they are benchmarked. Full runs use buffer
// sizes 1 KiB ... 256 MiB; quick runs a subset (spec.quick).
const std::vector<WorkloadSpec>& workload_specs();

// "1KiB", "16MiB"...
std::string size_name(std::size_t bytes);

// The buffer sizes of the inband/oob workloads (and of memcpy).
std::vector<std::size_t> buffer_sizes(bool quick);

// A workload built: the Python object and the reference's value of it.
struct Workload {
  const WorkloadSpec* spec = nullptr;
  python::PyRef object;  // guarded by the GIL; empty for device workloads
  Graph graph;           // owns `value`
  const Node* value = nullptr;
  // What the pickle subjects load back (spec.pickled_python), or `value`.
  Graph pickled_graph;
  const Node* pickled_value = nullptr;
  std::size_t items = 0;  // nodes in `value`: the objects a serializer visits
  std::size_t bytes = 0;  // the reference's output: pickle plus out-of-band frames

  Workload() = default;
  Workload(const Workload&) = delete;
  Workload& operator=(const Workload&) = delete;
  ~Workload();  // drops `object` with the GIL held
};

// Builds `spec` (takes the GIL). Throws SubjectError when Python cannot build
// it (a module is missing...), device::DeviceError when the device cannot.
std::unique_ptr<Workload> build_workload(const WorkloadSpec& spec);

}  // namespace serialcheck::bench
