#include "suite/bench/external_timed.h"

#include <algorithm>
#include <chrono>
#include <map>

#include "harness/props/value_tools.h"
#include "reference/pickle/encoder.h"

namespace serialcheck::bench {
namespace {

std::vector<TesteeConfig>& configs() {
  static std::vector<TesteeConfig> c;
  return c;
}

// One process per testee for the whole run: starting PyPy for every
// workload would cost more than the benchmarks.
ExternalSubject& testee(const TesteeConfig& config) {
  static std::map<std::string, std::unique_ptr<ExternalSubject>> made;
  auto& slot = made[config.name];
  if (!slot) slot = std::make_unique<ExternalSubject>(config);
  return *slot;
}

constexpr double kTargetSeconds = 0.05;

class ExternalTimed final : public TimedSubject {
 public:
  explicit ExternalTimed(const TesteeConfig& config) : config_(config) {}
  std::string name() const override { return config_.name; }
  bool needs_gil() const override { return false; }
  bool pickle_format() const override { return true; }
  bool self_timed() const override { return true; }

  void prepare(Workload& workload) override {
    ExternalSubject& s = testee(config_);
    if (auto why = s.unavailable_reason()) throw SubjectError("unavailable", *why);
    const Capabilities caps = s.capabilities();
    value_ = workload.pickled_value != nullptr ? workload.pickled_value : workload.value;
    dump_options_.protocol = std::min(5, caps.can_dump ? caps.max_protocol : caps.read_max());
    dump_options_.out_of_band = workload.spec->out_of_band && caps.out_of_band;
    can_dump_ = caps.can_dump;
    if (can_dump_) {
      try {
        message_ = s.dumps(value_, dump_options_);
      } catch (const SubjectError& e) {
        if (e.kind() != kUnsupported || !caps.can_load) throw;
        can_dump_ = false;  // it still loads what others write
        dumps_refused_ = e.what();
      }
    }
    if (!can_dump_) {
      // A reader loads what the reference writes, which is the C pickler's bytes.
      pickle::EncodeOptions eo;
      eo.protocol = dump_options_.protocol;
      message_.header = {{"serializer", "pickle"}, {"protocol", eo.protocol}};
      message_.frames.push_back(Frame::owned(pickle::encode(value_, eo).bytes, true));
    }
    can_load_ = caps.can_load;
    if (can_load_) {
      Graph graph;
      const Node* back = s.loads(message_, graph, LoadOptions{});
      Graph ga, gb;
      Difference why;
      if (!equal_under(relax_value(value_, ga, caps.cannot_express),
                       relax_value(back, gb, caps.cannot_express), SharingRule::ImmutablesFree,
                       &why)) {
        throw CheckFailed("loads(dumps(x)) differs from x at " + why.path + ": " + why.reason);
      }
    }
  }

  double seconds_per_op(bool dumps) override {
    if (dumps ? !can_dump_ : !can_load_) {
      throw SubjectError(kUnsupported, dumps_refused_.empty()
                                           ? config_.name + (dumps ? " does not dump" : " does not load")
                                           : dumps_refused_);
    }
    ExternalSubject& s = testee(config_);
    long& n = iterations_[dumps];
    if (n == 0) n = 1;
    while (true) {
      TesteeTiming t = dumps ? s.bench_dumps(value_, dump_options_, n)
                             : s.bench_loads(message_, LoadOptions{}, n);
      if (t.seconds >= kTargetSeconds / 4 || n >= (1L << 24)) return t.seconds / double(t.iterations);
      // Too short to trust: ask for enough to fill the target next time.
      const double per_op = std::max(t.seconds / double(t.iterations), 1e-9);
      n = std::clamp(static_cast<long>(kTargetSeconds / per_op), n * 2, 1L << 24);
    }
  }

  double request_seconds() override {
    if (!can_load_) throw SubjectError(kUnsupported, config_.name + " does not load");
    ExternalSubject& s = testee(config_);
    const auto start = std::chrono::steady_clock::now();
    Graph graph;
    s.loads(message_, graph, LoadOptions{});
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  }

  void dumps() override { throw SubjectError("unsupported", "an external subject times itself"); }
  void loads() override { throw SubjectError("unsupported", "an external subject times itself"); }

  std::vector<std::string_view> frames() const override {
    std::vector<std::string_view> out;
    for (const Frame& f : message_.frames) out.push_back(f.view());
    return out;
  }

 private:
  TesteeConfig config_;
  const Node* value_ = nullptr;
  DumpOptions dump_options_;
  Message message_;
  bool can_dump_ = false;
  bool can_load_ = false;
  std::string dumps_refused_;
  long iterations_[2] = {0, 0};
};

}  // namespace

void set_external_subjects(std::vector<TesteeConfig> c) {
  configs() = std::move(c);
}

const std::vector<TesteeConfig>& external_subjects() {
  return configs();
}

bool external_runs(const WorkloadSpec& spec) {
  return spec.group == "pyperf" || (spec.group == "inband" && spec.size <= (1u << 20));
}

std::unique_ptr<TimedSubject> make_external_timed(const std::string& name,
                                                  const WorkloadSpec& spec) {
  if (!external_runs(spec)) return nullptr;
  for (const auto& c : configs()) {
    if (c.name == name) return std::make_unique<ExternalTimed>(c);
  }
  return nullptr;
}

}  // namespace serialcheck::bench
