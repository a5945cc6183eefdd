// The benchmark runner's parts: the workloads are what they claim to be,
// every subject's output passes its check, and a wrong output is caught
// before anything is timed.
#include <gtest/gtest.h>

#include <algorithm>
#include <charconv>
#include <map>
#include <memory>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/python/call.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/subject.h"
#include "suite/bench/timed.h"
#include "suite/bench/workloads.h"

namespace serialcheck::bench {
namespace {

const WorkloadSpec& spec_named(std::string_view name) {
  for (const WorkloadSpec& s : workload_specs()) {
    if (s.name == name) return s;
  }
  throw std::runtime_error("no workload " + std::string(name));
}

class Bench : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!python::python_available(&reason)) GTEST_SKIP() << "no embedded Python: " << reason;
  }
};

std::size_t dict_size(const Node* n) {
  return n->kind == Kind::Dict ? n->items.size() / 2 : 0;
}

TEST(BenchNames, FollowOperationWorkloadSubject) {
  EXPECT_EQ(size_name(1024), "1KiB");
  EXPECT_EQ(size_name(256u << 20), "256MiB");
  EXPECT_EQ(size_name(1000), "1000B");
  std::vector<std::size_t> full = buffer_sizes(false);
  EXPECT_EQ(full.front(), 1024u);
  EXPECT_EQ(full.back(), 256u << 20);
  for (std::size_t q : buffer_sizes(true)) {
    EXPECT_NE(std::find(full.begin(), full.end(), q), full.end()) << q << " is not a full size";
  }
  for (const WorkloadSpec& s : workload_specs()) {
    EXPECT_EQ(s.name.find('/'), std::string::npos) << s.name;
  }
}

TEST(BenchFirstDifference, NamesFrameAndByte) {
  EXPECT_EQ(first_difference({"abc", "xy"}, {"abc", "xy"}), "");
  EXPECT_EQ(first_difference({"abc"}, {"abd"}), "frame 0 byte 2: 0x63 != 0x64");
  EXPECT_EQ(first_difference({"ab", "x"}, {"ab", "xy"}), "frame 1: 1 bytes != 2 bytes");
  EXPECT_EQ(first_difference({"ab"}, {"ab", "xy"}), "1 frames != 2");
}

TEST_F(Bench, PyperfPayloadsHaveTheirShapes) {
  auto dict = build_workload(spec_named("pyperf_dict"));
  EXPECT_EQ(dict_size(dict->value), 33u);

  auto tuple = build_workload(spec_named("pyperf_tuple"));
  ASSERT_EQ(tuple->value->kind, Kind::Tuple);
  ASSERT_EQ(tuple->value->items.size(), 2u);
  EXPECT_EQ(tuple->value->items[0]->items.size(), 20u);
  EXPECT_EQ(tuple->value->items[1]->small(), 60);

  // Three dicts sharing DICT's keys, every value str(random() * maxsize).
  auto group = build_workload(spec_named("pyperf_dict_group"));
  ASSERT_EQ(group->value->kind, Kind::List);
  ASSERT_EQ(group->value->items.size(), 3u);
  for (const Node* d : group->value->items) {
    ASSERT_EQ(dict_size(d), 33u);
    for (std::size_t i = 0; i < d->items.size(); i += 2) {
      EXPECT_EQ(d->items[i], group->value->items[0]->items[i]) << "keys are shared";
      const Node* v = d->items[i + 1];
      ASSERT_EQ(v->kind, Kind::Str);
      double x = 0;
      auto text = v->payload();
      auto r = std::from_chars(text.data(), text.data() + text.size(), x);
      EXPECT_EQ(r.ec, std::errc()) << text;
      EXPECT_GE(x, 0.0);
    }
  }

  auto list = build_workload(spec_named("pyperf_list"));
  ASSERT_EQ(list->value->items.size(), 10u);
  for (const Node* pair : list->value->items) {
    ASSERT_EQ(pair->items.size(), 2u);
    EXPECT_EQ(pair->items[0]->items.size(), 10u);
    EXPECT_NE(pair->items[0], pair->items[1]) << "two distinct lists";
  }

  // pickle_dict's payload: inner values are dict.fromkeys(range(10)).
  auto micro = build_workload(spec_named("pyperf_micro_dict"));
  ASSERT_EQ(dict_size(micro->value), 100u);
  const Node* inner = micro->value->items[1];
  ASSERT_EQ(dict_size(inner), 10u);
  EXPECT_EQ(inner->items[1]->kind, Kind::None);
}

// The subjects of one workload, prepared, by name.
std::map<std::string, std::unique_ptr<TimedSubject>> prepare_all(Workload& w) {
  std::map<std::string, std::unique_ptr<TimedSubject>> prepared;
  for (const std::string& subject : subject_names()) {
    auto timed = make_timed_subject(subject, *w.spec);
    if (timed == nullptr) {
      ADD_FAILURE() << w.spec->name << "/" << subject << " is not made";
      continue;
    }
    try {
      timed->prepare(w);
    } catch (const std::exception& e) {
      ADD_FAILURE() << w.spec->name << "/" << subject << ": " << e.what();
    }
    prepared.emplace(subject, std::move(timed));
  }
  return prepared;
}

TEST_F(Bench, EverySubjectPassesItsCheckAndTheReferenceWritesCPythonsBytes) {
  for (const char* name : {"pyperf_dict", "pyperf_dict_group", "oob_1KiB", "inband_16KiB"}) {
    auto w = build_workload(spec_named(name));
    auto prepared = prepare_all(*w);
    ASSERT_EQ(prepared.size(), subject_names().size()) << name;
    const TimedSubject& cpython = *prepared.at("cpython");
    for (const char* subject : {"reference", "reference-py"}) {
      ASSERT_TRUE(prepared.at(subject)->writes_cpython_bytes()) << subject;
      EXPECT_EQ(first_difference(prepared.at(subject)->frames(), cpython.frames()), "")
          << name << "/" << subject;
      EXPECT_NO_THROW(check_cpython_bytes(*prepared.at(subject), cpython)) << name;
    }
    EXPECT_FALSE(cpython.writes_cpython_bytes());
  }
}

// reference-py starts from the Python object and gives back bytes and Python
// objects: on every workload that claims the C pickler's bytes, its bytes are
// those bytes; on the others (tensors) it still loads back what it dumped.
TEST_F(Bench, ReferenceFromPythonWritesTheCPicklersBytesOnEveryWorkload) {
  for (const WorkloadSpec& spec : workload_specs()) {
    if (!spec.quick || spec.size > (1u << 20)) continue;  // the shapes, not the sizes
    if (spec.group == "device") {
      EXPECT_EQ(make_timed_subject("reference-py", spec), nullptr) << "no Python object";
      continue;
    }
    std::unique_ptr<Workload> w;
    try {
      w = build_workload(spec);
    } catch (const SubjectError& e) {
      ADD_FAILURE() << spec.name << " cannot be built: " << e.what();
      continue;
    }
    auto reference_py = make_timed_subject("reference-py", spec);
    auto cpython = make_timed_subject("cpython", spec);
    ASSERT_NE(reference_py, nullptr) << spec.name;
    try {
      reference_py->prepare(*w);
      cpython->prepare(*w);
    } catch (const std::exception& e) {
      ADD_FAILURE() << spec.name << ": " << e.what();
      continue;
    }
    if (spec.same_bytes) {
      EXPECT_EQ(first_difference(reference_py->frames(), cpython->frames()), "") << spec.name;
    }
    python::Gil gil;  // the timed calls run with the GIL held
    reference_py->dumps();
    reference_py->loads();
  }
}

TEST_F(Bench, BytesThatDifferFromTheCPicklersFailTheCheck) {
  auto dict = build_workload(spec_named("pyperf_dict"));
  auto tuple = build_workload(spec_named("pyperf_tuple"));
  auto reference_py = make_timed_subject("reference-py", *dict->spec);
  auto cpython = make_timed_subject("cpython", *tuple->spec);
  reference_py->prepare(*dict);
  cpython->prepare(*tuple);
  try {
    check_cpython_bytes(*reference_py, *cpython);
    ADD_FAILURE() << "pyperf_dict's bytes passed as pyperf_tuple's";
  } catch (const CheckFailed& e) {
    EXPECT_NE(std::string(e.what()).find("bytes differ from the C pickler's"), std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("frame 0 byte "), std::string::npos) << e.what();
  }
}

TEST_F(Bench, MakeBytesCopiesIntoABytesObject) {
  python::Gil gil;
  std::string data("a\0b", 3);
  python::PyRef bytes = python::make_bytes(data);
  EXPECT_EQ(python::bytes_data(bytes.get()), data);
  EXPECT_NE(python::bytes_data(bytes.get()).data(), data.data());
}

TEST_F(Bench, AWrongOutputFailsTheCheck) {
  // cpython's loads give back the dict, not what the workload now claims.
  auto w = build_workload(spec_named("pyperf_tuple"));
  Graph other;
  w->pickled_value = other.list({other.integer(1)});
  auto cpython = make_timed_subject("cpython", *w->spec);
  EXPECT_THROW(cpython->prepare(*w), CheckFailed);
  // reference-py's loads give back the tuple, not what the workload now claims.
  w->value = w->pickled_value;
  auto reference_py = make_timed_subject("reference-py", *w->spec);
  EXPECT_THROW(reference_py->prepare(*w), CheckFailed);

  // The pickle codec cannot write a device buffer.
  auto device = build_workload(spec_named("device_1KiB"));
  auto pickle_only = make_timed_subject("reference", spec_named("pyperf_tuple"));
  EXPECT_THROW(pickle_only->prepare(*device), CheckFailed);
}

TEST_F(Bench, DeviceBuffersTravelWithoutCopies) {
  const WorkloadSpec& spec = spec_named("device_1KiB");
  EXPECT_EQ(make_timed_subject("cpython", spec), nullptr) << "the reference's alone";
  auto w = build_workload(spec);
  auto reference = make_timed_subject("reference", spec);
  ASSERT_NE(reference, nullptr);
  reference->prepare(*w);  // throws CheckFailed when a copy was made
  reference->dumps();
  reference->loads();
}

}  // namespace
}  // namespace serialcheck::bench
