#include "suite/bench/workloads.h"

#include <cstdint>
#include <utility>

#include "harness/python/bridge.h"
#include "reference/device/device.h"

namespace serialcheck::bench {
namespace {

// Python definitions run once in __main__. The pyperformance payloads are
// built the way pyperformance's bm_pickle/run_benchmark.py builds them: the
// same literals in the same key order (insertion order decides the bytes),
// DICT_GROUP from random.Random(5) with the same calls in the same order, so
// the strings it holds are the same; LIST and MICRO_DICT as in its
// pickle_list and pickle_dict benchmarks.
constexpr const char* kPrelude = R"PY(
def _serialcheck_bench_pyperf():
    import datetime
    import random
    import sys

    DICT = {
        'ads_flags': 0,
        'age': 18,
        'birthday': datetime.date(1980, 5, 7),
        'bulletin_count': 0,
        'comment_count': 0,
        'country': 'BR',
        'encrypted_id': 'G9urXXAJwjE',
        'favorite_count': 9,
        'first_name': '',
        'flags': 412317970704,
        'friend_count': 0,
        'gender': 'm',
        'gender_for_display': 'Male',
        'id': 302935349,
        'is_custom_profile_icon': 0,
        'last_name': '',
        'locale_preference': 'pt_BR',
        'member': 0,
        'tags': ['a', 'b', 'c', 'd', 'e', 'f', 'g'],
        'profile_foo_id': 827119638,
        'secure_encrypted_id': 'Z_xxx2dYx3t4YAdnmfgyKw',
        'session_number': 2,
        'signup_id': '201-19225-223',
        'status': 'A',
        'theme': 1,
        'time_created': 1225237014,
        'time_updated': 1233134493,
        'unread_message_count': 0,
        'user_group': '0',
        'username': 'collinwinter',
        'play_count': 9,
        'view_count': 7,
        'zip': ''}

    TUPLE = (
        [265867233, 265868503, 265252341, 265243910, 265879514,
         266219766, 266021701, 265843726, 265592821, 265246784,
         265853180, 45526486, 265463699, 265848143, 265863062,
         265392591, 265877490, 265823665, 265828884, 265753032], 60)

    # Every key is a str, so every value becomes str(random float * maxsize).
    def mutated(original, rng):
        copy = dict(original)
        for key in copy:
            value = rng.random() * sys.maxsize
            if isinstance(key, (int, bytes, str)):
                copy[key] = type(key)(value)
        return copy

    rng = random.Random(5)
    DICT_GROUP = [mutated(DICT, rng) for _ in range(3)]
    LIST = [[list(range(10)), list(range(10))] for _ in range(10)]
    MICRO_DICT = dict((key, dict.fromkeys(range(10))) for key in range(100))
    return {'DICT': DICT, 'TUPLE': TUPLE, 'DICT_GROUP': DICT_GROUP, 'LIST': LIST,
            'MICRO_DICT': MICRO_DICT}

_serialcheck_bench = _serialcheck_bench_pyperf()

def _serialcheck_bench_nested(out_of_band):
    # dask's zero-copy case: arrays inside tuples inside a list, some first
    # in their tuple and some not, plus a dict of metadata around them.
    import numpy as np
    rows = 4096
    columns = [(i, np.arange(rows, dtype=np.float64) * (i + 1)) for i in range(8)]
    columns += [(np.arange(rows, dtype=np.int64) + i, 'c%d' % i) for i in range(8)]
    return {'meta': {'name': 'batch', 'rows': rows, 'tags': ['x', 'y']},
            'columns': columns, 'index': np.arange(rows, dtype=np.int64)}

def _serialcheck_bench_buffer(size, out_of_band):
    import pickle
    # Written through, so no page of it is the kernel's shared zero page.
    data = bytearray(bytes(range(256))) * (size // 256)
    return pickle.PickleBuffer(data) if out_of_band else data

def _serialcheck_bench_tensor(with_grad):
    import torch
    generator = torch.Generator().manual_seed(5)
    t = torch.randn(256, 256, generator=generator).requires_grad_(True)
    if with_grad:
        t.grad = torch.randn(256, 256, generator=generator)
    return t

def _serialcheck_bench_without_grad(t):
    return t.detach().clone().requires_grad_(t.requires_grad)

def _serialcheck_bench_output_size(obj, out_of_band):
    import pickle
    buffers = []
    data = pickle.dumps(obj, protocol=5, buffer_callback=buffers.append if out_of_band else None)
    return len(data) + sum(b.raw().nbytes for b in buffers)
)PY";

std::vector<WorkloadSpec> make_specs() {
  std::vector<WorkloadSpec> specs;
  auto add = [&](std::string name, std::string group, std::string python, bool oob,
                 std::size_t size, bool quick) {
    specs.push_back(
        {std::move(name), std::move(group), std::move(python), oob, size, quick, "", true});
  };
  add("pyperf_dict", "pyperf", "_serialcheck_bench['DICT']", false, 0, true);
  add("pyperf_tuple", "pyperf", "_serialcheck_bench['TUPLE']", false, 0, true);
  add("pyperf_dict_group", "pyperf", "_serialcheck_bench['DICT_GROUP']", false, 0, true);
  add("pyperf_list", "pyperf", "_serialcheck_bench['LIST']", false, 0, true);
  add("pyperf_micro_dict", "pyperf", "_serialcheck_bench['MICRO_DICT']", false, 0, true);
  add("nested_arrays", "nested", "_serialcheck_bench_nested(False)", false, 0, true);
  add("nested_arrays_oob", "nested", "_serialcheck_bench_nested(True)", true, 0, true);
  add("tensor_requires_grad", "tensor", "_serialcheck_bench_tensor(False)", false, 0, true);
  specs.back().same_bytes = false;
  add("tensor_grad", "tensor", "_serialcheck_bench_tensor(True)", false, 0, true);
  specs.back().same_bytes = false;
  specs.back().pickled_python = "_serialcheck_bench_without_grad(_serialcheck_bench_obj)";
  for (std::size_t size : buffer_sizes(false)) {
    bool quick = false;
    for (std::size_t q : buffer_sizes(true)) quick = quick || q == size;
    add("device_" + size_name(size), "device", "", false, size, quick);
    specs.back().same_bytes = false;  // no C pickler output to compare with
  }
  for (bool oob : {false, true}) {
    for (std::size_t size : buffer_sizes(false)) {
      std::string expr = "_serialcheck_bench_buffer(" + std::to_string(size) + ", " +
                         (oob ? "True" : "False") + ")";
      bool quick = false;
      for (std::size_t q : buffer_sizes(true)) quick = quick || q == size;
      add((oob ? "oob_" : "inband_") + size_name(size), oob ? "oob" : "inband", expr, oob, size,
          quick);
    }
  }
  return specs;
}

}  // namespace

std::vector<std::size_t> buffer_sizes(bool quick) {
  constexpr std::size_t KiB = 1024, MiB = 1024 * KiB;
  if (quick) return {1 * KiB, 256 * KiB, 4 * MiB};  // a subset of the full list
  return {1 * KiB, 16 * KiB, 256 * KiB, 4 * MiB, 64 * MiB, 256 * MiB};
}

std::string size_name(std::size_t bytes) {
  constexpr std::size_t KiB = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB;
  if (bytes >= GiB && bytes % GiB == 0) return std::to_string(bytes / GiB) + "GiB";
  if (bytes >= MiB && bytes % MiB == 0) return std::to_string(bytes / MiB) + "MiB";
  if (bytes >= KiB && bytes % KiB == 0) return std::to_string(bytes / KiB) + "KiB";
  return std::to_string(bytes) + "B";
}

const std::vector<WorkloadSpec>& workload_specs() {
  static const std::vector<WorkloadSpec> specs = make_specs();
  return specs;
}

Workload::~Workload() {
  if (object) {
    python::Gil gil;
    object = python::PyRef();
  }
}

namespace {

std::unique_ptr<Workload> build_device_workload(const WorkloadSpec& spec) {
  auto w = std::make_unique<Workload>();
  w->spec = &spec;
  std::vector<std::uint8_t> pattern(spec.size);
  for (std::size_t i = 0; i < pattern.size(); ++i)
    pattern[i] = static_cast<std::uint8_t>(i * 131 + 7);
  w->value = w->graph.device_buffer(device::open_device("sim:0")->upload(pattern));
  w->graph.root = const_cast<Node*>(w->value);
  w->pickled_value = w->value;
  w->items = 1;
  w->bytes = spec.size;
  return w;
}

}  // namespace

std::unique_ptr<Workload> build_workload(const WorkloadSpec& spec) {
  if (spec.group == "device") return build_device_workload(spec);
  python::Gil gil;
  static bool prelude_done = false;  // guarded by the GIL
  if (!prelude_done) {
    python::exec(kPrelude);
    prelude_done = true;
  }
  auto w = std::make_unique<Workload>();
  w->spec = &spec;
  w->object = python::eval(spec.python);
  python::BridgeOptions options;
  options.protocol = 5;
  w->value = python::from_python(w->object.get(), w->graph, options);
  w->graph.root = const_cast<Node*>(w->value);
  w->items = w->graph.size();
  w->pickled_value = w->value;
  python::set_main("_serialcheck_bench_obj", w->object.get());
  if (!spec.pickled_python.empty()) {
    python::PyRef pickled = python::eval(spec.pickled_python);
    w->pickled_value = python::from_python(pickled.get(), w->pickled_graph, options);
  }
  python::PyRef size =
      python::eval(std::string("_serialcheck_bench_output_size(_serialcheck_bench_obj, ") +
                   (spec.out_of_band ? "True" : "False") + ")");
  python::exec("del _serialcheck_bench_obj");
  w->bytes = static_cast<std::size_t>(std::stoull(python::str_of(size.get())));
  return w;
}

}  // namespace serialcheck::bench
