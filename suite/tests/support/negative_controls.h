// Test support for the negative controls (negative_controls_test.cpp, and
// negative_controls_python_test.cpp for the control that runs in the
// embedded interpreter): the helper subjects' stand-ins, a property run as a
// gate cell runs it, and the check that a property fails on its control.
//
// The helper subjects the properties consult are stand-ins, so this runs
// without Python: the reference, under the name "cpython" the reference
// again (byte-identical to the C pickler by design, and rejecting what the
// C pickler's loader rejects, with its error type), and under the name
// "distributed" the reference's families (distributed's wire schema, read
// as distributed reads it: a buffer's writability from the header's
// "writeable" when it has one, else from the frame as it arrives).
#pragma once

#include <gtest/gtest.h>
#include <rapidcheck.h>

#include <cctype>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>

#include "harness/gen/malformed.h"
#include "harness/props/gate_props.h"
#include "harness/subjects/mutant_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "harness/subjects/stdlib_runner.h"
#include "reference/frames/family.h"
#include "reference/frames/wire.h"
#include "reference/pickle/target.h"

namespace serialcheck::test_support {

// The cpython subject's stand-in: the reference under another name, whose
// load errors carry the exception type CPython's loader raises. Where the
// embedded interpreter's stdlib runner is installed (the controls that run
// in Python) it builds, dumps and loads stdlib values with the C pickler
// there, as the cpython subject does.
class OracleStandIn : public ReferenceSubject {
 public:
  std::string name() const override { return "cpython"; }
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.stdlib_recipes = stdlib_runner() != nullptr;
    return c;
  }
  std::string dumps_recipe(const std::string& recipe, int protocol) override {
    if (stdlib_runner() == nullptr) return ReferenceSubject::dumps_recipe(recipe, protocol);
    return stdlib_runner()->dumps("c", recipe, protocol);
  }
  RecipeLoad loads_recipe(const std::string& recipe, std::string_view pickle) override {
    if (stdlib_runner() == nullptr) return ReferenceSubject::loads_recipe(recipe, pickle);
    return stdlib_runner()->loads("c", recipe, pickle);
  }
  // CPython's words for the rules loads.rejects-malformed names failures by
  // (a stream cut short, text that is not UTF-8); the reference's message
  // otherwise.
  Node* loads(const Message& m, Graph& graph, const LoadOptions& options) override {
    try {
      return ReferenceSubject::loads(m, graph, options);
    } catch (const std::exception& e) {
      const std::string what = e.what();
      // CPython's C unpickler, given the whole stream, checks a FRAME's
      // length against the stream and nothing else of frames: an argument
      // may run on past the end of its frame, a FRAME may begin inside
      // another or in a protocol-3 stream (corpus/malformed/frame-*). It
      // reads such a stream as if it had no frames.
      std::string lower = what;
      for (char& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));
      if (lower.find("frame") != std::string::npos && what.rfind("truncated", 0) != 0 &&
          !m.frames.empty() && gen::without_frames(m.frames[0].view()) != m.frames[0].view()) {
        Message unframed = m;
        unframed.frames[0] = Frame::owned(gen::without_frames(m.frames[0].view()), true);
        return loads(unframed, graph, options);
      }
      if (what.find("not valid UTF-8") != std::string::npos) {
        throw SubjectError("UnicodeDecodeError", "'utf-8' codec can't decode the text");
      }
      if (what.find("FLOAT argument is out of range: ") != std::string::npos) {
        const std::size_t quote = what.find('\'');
        throw SubjectError("OverflowError",
                           "value too large to convert to float: " + what.substr(quote));
      }
      if (what.rfind("truncated", 0) == 0) {
        throw SubjectError("UnpicklingError", "pickle data was truncated");
      }
      throw SubjectError("UnpicklingError", what);
    }
  }
};

// The distributed subject's stand-in: serialize() and deserialize() with
// the builtin families, packed with pack_message (which, unlike
// distributed, decides on the whole frame whether to compress it).
class DistributedStandIn : public ReferenceSubject {
 public:
  std::string name() const override { return "distributed"; }
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.families = {"dask", "pickle"};
    c.pickle_format = false;
    c.limit_loader = false;
    c.native_codec = false;
    return c;
  }
  Message dumps(const Node* value, const DumpOptions&) override {
    return families::serialize(value, {});
  }
  Node* loads(const Message& m, Graph& graph, const LoadOptions&) override {
    return families::deserialize(m, graph);
  }
  PackedBytes dumps_packed(const Node* value, Compression codec) override {
    return pack(families::serialize(value, {}), codec);
  }
  // The loaded value borrows the message's frames: the last few messages
  // are kept (a property compares at most two loads at a time).
  Node* loads_packed(std::span<const std::uint8_t> bytes, Graph& graph) override {
    auto copy = std::make_shared<std::string>(bytes.begin(), bytes.end());
    if (kept_.size() == 4) kept_.pop_front();
    kept_.push_back(unpack_message(byte_span(*copy), {}, copy));
    return families::deserialize(kept_.back(), graph);
  }

 private:
  std::deque<Message> kept_;
};

// callable.by-value runs on a subject's by_value_pickler alone: the
// reference with cloudpickle's.
class CloudpickleStandIn : public ReferenceSubject {
 public:
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.by_value_pickler = "cloudpickle";
    return c;
  }
};

// callable.class-life's honest twin: the reference with a by-value pickler
// that is cloudpickle, except that a class loaded where it was pickled is
// the live class, untouched (harness/testees/python/serialcheck_live_classes.py).
class LiveClassesStandIn : public ReferenceSubject {
 public:
  Capabilities capabilities() const override {
    Capabilities c = ReferenceSubject::capabilities();
    c.by_value_pickler = "serialcheck_live_classes";
    return c;
  }
};

struct Env {
  ReferenceSubject reference;
  OracleStandIn cpython;
  DistributedStandIn distributed;
  // cross.py2's two sides (make_python_stand_in).
  std::unique_ptr<Subject> python2 = make_python_stand_in(2);
  std::unique_ptr<Subject> python3 = make_python_stand_in(3);
  std::map<std::string, std::unique_ptr<Subject>> peers;
  PropertyEnv env;
  Env() {
    env.subject = [this](const std::string& name, std::string* why) -> Subject* {
      if (auto it = peers.find(name); it != peers.end()) return it->second.get();
      if (name == "reference") return &reference;
      if (name == "cpython") return &cpython;
      if (name == "distributed") return &distributed;
      if (name == python2->name()) return python2.get();
      if (name == python3->name()) return python3.get();
      // reference@3.X: the reference at another version's target.
      if (auto target = pickle::PythonTarget::parse(name.substr(name.find('@') + 1));
          name.rfind("reference@", 0) == 0 && target) {
        auto& made = peers[name];
        if (!made) made = std::make_unique<ReferenceSubject>(*target);
        return made.get();
      }
      if (why != nullptr) *why = "not in this test";
      return nullptr;
    };
  }
};

constexpr int kCases = 100;  // what the gate runs per cell

struct CellRun {
  int ran = 0;  // cases checked (not discarded)
  std::optional<Outcome> failure;
};

// The property on `subject` as a gate cell would run it, up to the first failure.
inline CellRun run_cell(const GateProperty& property, Subject& subject, Env& e,
                        std::uint64_t seed) {
  Applicability a = applicability(property, subject, e.env);
  EXPECT_EQ(a.skip_reason, "") << property.id << " on " << subject.name();
  CellRun v;
  if (!a.skip_reason.empty()) return v;
  rc::Gen<TestCase> gen = case_generator(a.plan);
  rc::Random random(seed);
  for (int i = 0; i < kCases; ++i) {
    TestCase c = gen(random.split(), i % 101).value();
    Outcome o = check_case(property, subject, c, e.env);
    if (o.status == Outcome::Status::Discard) continue;
    ++v.ran;
    if (o.failed()) {
      v.failure = std::move(o);
      return v;
    }
  }
  return v;
}

// cross.py2's choices that a Python 3 writer makes for a Python 2 reader.
inline bool python2_writer_choice(std::string_view id) {
  return id.rfind("cross.py2/", 0) == 0 && id.find("@write-") != std::string_view::npos;
}

inline std::string property_for(const NegativeControl& c) {
  // A pair family's control is registered under the producer "*": the
  // property is made on demand for a producer that can write for it: for
  // cross.py2 a Python 2 writer for a Python 3 reader's choices, a Python 3
  // writer (the reference) for a Python 2 reader; else the reference.
  std::string id(c.property);
  // The stdlib values' producer must build them: the cpython stand-in.
  if (id == "cross.stdlib/*") return "cross.stdlib/cpython";
  if (auto pair = parse_pair_id(id); pair && pair->producer == "*") {
    const bool python2_writer = pair->family->id == "cross.py2" && !python2_writer_choice(id);
    id = std::string(pair->family->id) + "/" + (python2_writer ? "python-2" : "reference") +
         (pair->choice.empty() ? "" : "@" + pair->choice);
  }
  return id;
}

// The honest subject a property runs on where a peer is broken, and whose
// cells must pass where nothing is: the reference, or for cross.py2 the
// stand-in of the Python that reads.
inline Subject& honest_consumer(std::string_view id, Env& e) {
  if (id.rfind("cross.py2/", 0) != 0) return e.reference;
  return python2_writer_choice(id) ? *e.python2 : *e.python3;
}

// Runs the control's property on its mutant (or, for a peer's control, on
// the reference with the mutant as the peer) and expects the failure the
// bug causes within the gate's cases.
inline void expect_fails_on_control(const NegativeControl& c) {
  const GateProperty* property = find_property(property_for(c));
  ASSERT_NE(property, nullptr) << c.property;
  Env e;
  std::unique_ptr<Subject> mutant = make_mutant_subject(c.mutant);
  ASSERT_NE(mutant, nullptr) << c.mutant;
  Subject* subject = mutant.get();
  if (c.role == NegativeControl::Role::Peer) {
    e.peers[std::string(c.peer)] = std::move(mutant);
    subject = &honest_consumer(property->id, e);
  }
  CellRun v = run_cell(*property, *subject, e, 20261129);
  ::testing::Test::RecordProperty("cases_until_failure", v.ran);
  ASSERT_TRUE(v.failure.has_value())
      << property->id << " passed " << v.ran << " cases on its control " << c.mutant << " ("
      << c.bug << ")";
  EXPECT_EQ(v.failure->fingerprint.rfind(c.fingerprint_prefix, 0), 0u)
      << "failed, but not because of the bug: " << v.failure->fingerprint << ": "
      << v.failure->message;
}

// A parameterized test's name for a control: the property, and the mutant
// when the property has several.
inline std::string control_test_name(const ::testing::TestParamInfo<NegativeControl>& row) {
  std::string name(row.param.property);
  if (negative_control_for(row.param.property).find("; ") != std::string::npos) {
    name += "_" + std::string(row.param.mutant);
  }
  for (char& ch : name) {
    if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
  }
  return name;
}

}  // namespace serialcheck::test_support
