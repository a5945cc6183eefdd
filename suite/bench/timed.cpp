#include "suite/bench/timed.h"

#include "suite/bench/external_timed.h"

#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdio>
#include <utility>

#include "harness/python/bridge.h"
#include "harness/python/buffers.h"
#include "harness/python/call.h"
#include "harness/subjects/subject.h"
#include "reference/device/device.h"
#include "reference/frames/family.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/value/equal.h"

namespace serialcheck::bench {
namespace {

std::vector<std::string_view> views_of(const std::vector<Frame>& frames) {
  std::vector<std::string_view> out;
  for (const Frame& f : frames) out.push_back(f.view());
  return out;
}

using python::BoundCall;
using python::PyRef;

[[noreturn]] void fail_equal(const Difference& why) {
  throw CheckFailed("loads(dumps(x)) differs from x at " + why.path + ": " + why.reason);
}

// ---- the reference ------------------------------------------------------------

class ReferenceTimed final : public TimedSubject {
 public:
  std::string name() const override { return "reference"; }
  bool needs_gil() const override { return false; }
  bool pickle_format() const override { return true; }
  bool writes_cpython_bytes() const override { return true; }

  void prepare(Workload& workload) override {
    value_ = workload.value;
    encode_.protocol = 5;
    if (workload.spec->out_of_band) encode_.buffer_callback = [](const Node&) { return false; };
    try {
      output_ = pickle::encode(value_, encode_);
    } catch (const pickle::PickleError& e) {
      throw CheckFailed("dumps failed: " + std::string(e.what()));
    }
    views_.clear();
    for (const Node* buffer : output_.buffers) {
      auto payload = buffer->payload();
      views_.push_back(
          {reinterpret_cast<const std::uint8_t*>(payload.data()), payload.size(), buffer->flag});
    }
    decode_.buffers = views_;
    Graph graph;
    const Node* root = nullptr;
    try {
      root = pickle::decode(output_.bytes, graph, decode_).root;
    } catch (const pickle::PickleError& e) {
      throw CheckFailed("loads failed: " + std::string(e.what()));
    }
    Difference why;
    if (!equal(value_, root, &why)) fail_equal(why);
  }

  void dumps() override {
    pickle::EncodeResult result = pickle::encode(value_, encode_);
    benchmark::DoNotOptimize(result.bytes.data());
  }

  void loads() override {
    Graph graph;
    pickle::DecodeResult result = pickle::decode(output_.bytes, graph, decode_);
    benchmark::DoNotOptimize(result.root);
  }

  std::vector<std::string_view> frames() const override {
    std::vector<std::string_view> out{output_.bytes};
    for (const Node* buffer : output_.buffers) out.push_back(buffer->payload());
    return out;
  }

 private:
  const Node* value_ = nullptr;
  pickle::EncodeOptions encode_;
  pickle::DecodeOptions decode_;
  pickle::EncodeResult output_;
  std::vector<pickle::BufferView> views_;
};

// ---- the reference from Python objects, through the bridge ---------------------
//
// What a Python program calling the reference would see: dumps describes the
// Python object as a value (python::from_python), encodes it and returns a
// bytes object (and, out of band, a Python object for each buffer, made by
// python::to_python); loads decodes a bytes object and builds the Python
// object (python::to_python). The C pickler starts from the same object.

class ReferencePyTimed final : public TimedSubject {
 public:
  ~ReferencePyTimed() override {
    python::Gil gil;
    object_ = output_ = PyRef();
    buffers_.clear();
    frames_.clear();
  }

  std::string name() const override { return "reference-py"; }
  bool needs_gil() const override { return true; }
  bool pickle_format() const override { return true; }
  bool writes_cpython_bytes() const override { return true; }

  void prepare(Workload& workload) override {
    python::Gil gil;
    object_ = workload.object;
    bridge_.protocol = 5;
    encode_.protocol = 5;
    if (workload.spec->out_of_band) encode_.buffer_callback = [](const Node&) { return false; };
    try {
      buffers_ = dump(output_);
    } catch (const pickle::PickleError& e) {
      throw CheckFailed("dumps failed: " + std::string(e.what()));
    }
    frames_.clear();
    frames_.push_back(python::frame_from_buffer(output_.get()));
    for (const PyRef& buffer : buffers_) frames_.push_back(python::frame_from_buffer(buffer.get()));
    views_.clear();
    for (std::size_t i = 1; i < frames_.size(); ++i) {
      auto view = frames_[i].view();
      views_.push_back({reinterpret_cast<const std::uint8_t*>(view.data()), view.size(),
                        frames_[i].readonly});
    }
    decode_.buffers = views_;
    PyRef loaded;
    try {
      loaded = load();
    } catch (const pickle::PickleError& e) {
      throw CheckFailed("loads failed: " + std::string(e.what()));
    }
    // As for the Python subjects: CPython may share or unshare equal
    // immutable objects, which no serializer controls.
    Graph graph;
    const Node* root = python::from_python(loaded.get(), graph, bridge_);
    EqualOptions options;
    options.immutable_sharing = false;
    Difference why;
    if (!equal(workload.value, root, options, &why)) fail_equal(why);
    // One untimed call of each, while the first output is still held: a
    // dumps holds three copies of a large buffer at once (the graph's, the
    // encoder's, the bytes object's), and the heap must already have room
    // for them, or the first timed call (the only one, for 256 MiB) would
    // time the page faults of growing it.
    dumps();
    loads();
  }

  void dumps() override {
    PyRef bytes;
    std::vector<PyRef> buffers = dump(bytes);
    benchmark::DoNotOptimize(bytes.get());
    benchmark::DoNotOptimize(buffers.data());
  }

  void loads() override {
    PyRef result = load();
    benchmark::DoNotOptimize(result.get());
  }

  std::vector<std::string_view> frames() const override { return views_of(frames_); }

 private:
  // The pickle into `bytes`; returns the out-of-band buffers.
  std::vector<PyRef> dump(PyRef& bytes) {
    Graph graph;
    const Node* root = python::from_python(object_.get(), graph, bridge_);
    pickle::EncodeResult result = pickle::encode(root, encode_);
    bytes = python::make_bytes(result.bytes);
    std::vector<PyRef> buffers;
    buffers.reserve(result.buffers.size());
    for (const Node* buffer : result.buffers) buffers.push_back(python::to_python(buffer, bridge_));
    return buffers;
  }

  PyRef load() {
    Graph graph;
    pickle::DecodeResult result = pickle::decode(python::bytes_data(output_.get()), graph, decode_);
    return python::to_python(result.root, bridge_);
  }

  PyRef object_;
  python::BridgeOptions bridge_;
  pickle::EncodeOptions encode_;
  pickle::DecodeOptions decode_;
  PyRef output_;                        // the checked dumps output that loads reads
  std::vector<PyRef> buffers_;          // its out-of-band buffers
  std::vector<Frame> frames_;           // views of both, for the byte comparison
  std::vector<pickle::BufferView> views_;
};

// ---- the reference's families, for device buffers ---------------------------------

class ReferenceFamiliesTimed final : public TimedSubject {
 public:
  std::string name() const override { return "reference"; }
  bool needs_gil() const override { return false; }
  bool pickle_format() const override { return false; }

  void prepare(Workload& workload) override {
    value_ = workload.value;
    serialize_.serializers = {"cuda", "dask", "pickle"};
    serialize_.on_error = families::OnError::Raise;
    device::Device& dev = workload.value->device()->device();
    const device::CopyCounters before = dev.counters();
    Graph graph;
    const Node* root = nullptr;
    try {
      output_ = families::serialize(value_, serialize_);
      root = families::deserialize(output_, graph, deserialize_);
    } catch (const std::exception& e) {
      throw CheckFailed("serialize/deserialize failed: " + std::string(e.what()));
    }
    const device::CopyCounters after = dev.counters();
    if (after.copies() != before.copies() || after.allocations != before.allocations) {
      throw CheckFailed("device memory was copied or allocated: before " + to_string(before) +
                        ", after " + to_string(after));
    }
    Difference why;
    if (!equal(value_, root, &why)) fail_equal(why);
  }

  void dumps() override {
    Message message = families::serialize(value_, serialize_);
    benchmark::DoNotOptimize(message.frames.data());
  }

  void loads() override {
    Graph graph;
    Node* root = families::deserialize(output_, graph, deserialize_);
    benchmark::DoNotOptimize(root);
  }

  std::vector<std::string_view> frames() const override { return {}; }

 private:
  const Node* value_ = nullptr;
  families::SerializeOptions serialize_;
  families::DeserializeOptions deserialize_;
  Message output_;
};

// ---- the Python subjects ---------------------------------------------------------

enum class Flavor { C, Pure, Cloud, Distributed };

class PythonTimed final : public TimedSubject {
 public:
  PythonTimed(std::string name, Flavor flavor) : name_(std::move(name)), flavor_(flavor) {}

  ~PythonTimed() override {
    python::Gil gil;
    dumps_ = BoundCall();
    loads_ = BoundCall();
    callback_list_ = output_ = PyRef();
    frames_.clear();
  }

  std::string name() const override { return name_; }
  bool needs_gil() const override { return true; }
  bool pickle_format() const override { return flavor_ != Flavor::Distributed; }

  void prepare(Workload& workload) override {
    python::Gil gil;
    out_of_band_ = workload.spec->out_of_band;
    if (flavor_ == Flavor::Distributed) {
      prepare_distributed(workload);
    } else {
      prepare_pickle(workload);
    }
    // The check: what loads gives back describes as the workload's value.
    // CPython may share or unshare equal immutable objects (interned and
    // cached strs...), which no serializer controls.
    PyRef loaded = loads_();
    Graph graph;
    python::BridgeOptions bridge;
    bridge.protocol = 5;
    const Node* root = python::from_python(loaded.get(), graph, bridge);
    EqualOptions options;
    options.immutable_sharing = false;
    const Node* expected = flavor_ == Flavor::Distributed ? workload.value : workload.pickled_value;
    Difference why;
    if (!equal(expected, root, options, &why)) fail_equal(why);
  }

  void dumps() override {
    PyRef result = dumps_();
    benchmark::DoNotOptimize(result.get());
    if (callback_list_) python::clear_list(callback_list_.get());
  }

  void loads() override {
    PyRef result = loads_();
    benchmark::DoNotOptimize(result.get());
  }

  std::vector<std::string_view> frames() const override { return views_of(frames_); }

 private:
  void prepare_pickle(Workload& workload) {
    const char* dumps_module = flavor_ == Flavor::C      ? "_pickle"
                               : flavor_ == Flavor::Pure ? "pickle"
                                                         : "cloudpickle";
    const char* dumps_name = flavor_ == Flavor::Pure ? "_dumps" : "dumps";
    // cloudpickle's output is read by the C unpickler, as it is in use.
    const char* loads_module = flavor_ == Flavor::Pure ? "pickle" : "_pickle";
    const char* loads_name = flavor_ == Flavor::Pure ? "_loads" : "loads";

    PyRef dumps_fn = python::get_attr(python::import_module(dumps_module).get(), dumps_name);
    PyRef loads_fn = python::get_attr(python::import_module(loads_module).get(), loads_name);
    PyRef protocol = python::eval("5");
    std::vector<std::pair<std::string, PyRef>> dump_kwargs;
    if (out_of_band_) {
      callback_list_ = python::new_list();
      dump_kwargs.emplace_back("buffer_callback", python::get_attr(callback_list_.get(), "append"));
    }
    dumps_ = BoundCall(dumps_fn, {workload.object, protocol}, std::move(dump_kwargs));
    output_ = dumps_();

    frames_.clear();
    frames_.push_back(python::frame_from_buffer(output_.get()));
    std::vector<std::pair<std::string, PyRef>> load_kwargs;
    if (out_of_band_) {
      PyRef buffers = python::new_list();  // what loads reads: these very buffers
      std::size_t n = python::sequence_size(callback_list_.get());
      for (std::size_t i = 0; i < n; ++i) {
        PyRef buffer = python::sequence_item(callback_list_.get(), i);
        frames_.push_back(python::frame_from_buffer(buffer.get()));
        BoundCall(python::get_attr(buffers.get(), "append"), {buffer})();
      }
      python::clear_list(callback_list_.get());
      load_kwargs.emplace_back("buffers", buffers);
    }
    loads_ = BoundCall(loads_fn, {output_}, std::move(load_kwargs));
  }

  void prepare_distributed(Workload& workload) {
    PyRef module = python::import_module("distributed.protocol");
    PyRef serialize = python::get_attr(module.get(), "serialize");
    PyRef deserialize = python::get_attr(module.get(), "deserialize");
    // Failures raise instead of becoming an "error" family message.
    dumps_ = BoundCall(serialize, {workload.object}, {{"on_error", python::make_str("raise")}});
    output_ = dumps_();
    PyRef header = python::sequence_item(output_.get(), 0);
    PyRef frames = python::sequence_item(output_.get(), 1);
    frames_.clear();
    std::size_t n = python::sequence_size(frames.get());
    for (std::size_t i = 0; i < n; ++i) {
      frames_.push_back(python::frame_from_buffer(python::sequence_item(frames.get(), i).get()));
    }
    loads_ = BoundCall(deserialize, {header, frames});
  }

  std::string name_;
  Flavor flavor_;
  bool out_of_band_ = false;
  BoundCall dumps_;
  BoundCall loads_;
  PyRef callback_list_;  // buffer_callback's list (out of band only)
  PyRef output_;         // the checked dumps output that loads reads
  std::vector<Frame> frames_;
};

}  // namespace

const std::vector<std::string>& subject_names() {
  static const std::vector<std::string> names = {"reference",  "reference-py", "cpython",
                                                 "cpython-py", "cloudpickle",  "distributed"};
  return names;
}

std::unique_ptr<TimedSubject> make_timed_subject(const std::string& name,
                                                 const WorkloadSpec& spec) {
  if (spec.group == "device") {
    if (name == "reference") return std::make_unique<ReferenceFamiliesTimed>();
    return nullptr;
  }
  if (name == "reference") return std::make_unique<ReferenceTimed>();
  if (name == "reference-py") return std::make_unique<ReferencePyTimed>();
  if (name == "cpython") return std::make_unique<PythonTimed>(name, Flavor::C);
  if (name == "cpython-py") return std::make_unique<PythonTimed>(name, Flavor::Pure);
  if (name == "cloudpickle") return std::make_unique<PythonTimed>(name, Flavor::Cloud);
  if (name == "distributed") return std::make_unique<PythonTimed>(name, Flavor::Distributed);
  return make_external_timed(name, spec);
}

void check_cpython_bytes(const TimedSubject& subject, const TimedSubject& cpython) {
  std::string diff = first_difference(subject.frames(), cpython.frames());
  if (!diff.empty()) {
    throw CheckFailed("bytes differ from the C pickler's for the same object: " + diff);
  }
}

std::string first_difference(const std::vector<std::string_view>& a,
                             const std::vector<std::string_view>& b) {
  for (std::size_t f = 0; f < std::min(a.size(), b.size()); ++f) {
    std::string_view x = a[f], y = b[f];
    std::size_t n = std::min(x.size(), y.size());
    auto at = std::mismatch(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(n), y.begin());
    auto i = static_cast<std::size_t>(at.first - x.begin());
    if (i < n) {
      char text[96];
      std::snprintf(text, sizeof text, "frame %zu byte %zu: 0x%02x != 0x%02x", f, i,
                    static_cast<unsigned char>(x[i]), static_cast<unsigned char>(y[i]));
      return text;
    }
    if (x.size() != y.size()) {
      return "frame " + std::to_string(f) + ": " + std::to_string(x.size()) +
             " bytes != " + std::to_string(y.size()) + " bytes";
    }
  }
  if (a.size() != b.size()) {
    return std::to_string(a.size()) + " frames != " + std::to_string(b.size());
  }
  return "";
}

}  // namespace serialcheck::bench
