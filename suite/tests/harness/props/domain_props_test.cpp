// The domain properties of the gate (harness/props/domain_props.cpp): they
// pass on the reference for fixed cases, and each can fail: subjects that
// lose a grad, copy a frame or hand back a copy of a module are caught.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>

#include "harness/gen/domain_values.h"
#include "harness/props/gate_props.h"
#include "harness/subjects/reference_subject.h"
#include "reference/frames/family.h"
#include "reference/frames/header.h"
#include "reference/frames/wire.h"
#include "reference/value/json.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/gate.h"
#include "suite/tests/support/negative_controls.h"

namespace serialcheck {
namespace {

using test_support::make_case;

PropertyEnv reference_env(ReferenceSubject& helper) {
  return test_support::env_with({{"reference", &helper}});
}

Outcome check(const char* id, Subject& subject, const TestCase& c) {
  static ReferenceSubject helper;
  PropertyEnv env = reference_env(helper);
  return check_case(*find_property(id), subject, c, env);
}

constexpr const char* kTensorWithGrad =
    R"({"tensor": {"dtype": "float32", "shape": [2, 2], "strides": [1, 2], "offset": 0,
                   "device": "cpu", "requires_grad": true, "data": "0000803f000000400000404000008040",
                   "grad": {"tensor": {"dtype": "float32", "shape": [2, 2], "strides": [2, 1],
                                       "offset": 0, "device": "cpu", "requires_grad": false,
                                       "data": "0000003f0000003f0000003f0000003f"}}}})";

std::string big_array_json() {
  std::string hex;
  for (int i = 0; i < 2048; ++i) hex += (i % 2 != 0) ? "7f" : "01";
  return R"({"ndarray": {"dtype": "|u1", "shape": [2048], "strides": [1], "offset": 0,
                         "writeable": true, "data": ")" +
         hex + R"("}})";
}

// ---- on the reference --------------------------------------------------------------

TEST(DomainProperties, PassOnTheReference) {
  ReferenceSubject reference;
  for (int p = 0; p <= 5; ++p) {
    Outcome o = check("tensor.grad", reference, make_case(kTensorWithGrad, p));
    EXPECT_EQ(o.status, Outcome::Status::Pass) << p << ": " << o.fingerprint << " " << o.message;
  }
  Outcome m = check("module.by-reference", reference,
                    make_case(R"({"list": [{"module": "os", "id": 1}, {"module": "json"},
                                           {"ref": 1}]})",
                              2));
  EXPECT_EQ(m.status, Outcome::Status::Pass) << m.fingerprint << " " << m.message;
  const std::string nested = R"({"list": [{"tuple": [1, )" + big_array_json() + R"(]}]})";
  for (const char* id : {"zerocopy.oob", "zerocopy.nested"}) {
    Outcome z = check(id, reference, make_case(nested, 5, true));
    EXPECT_EQ(z.status, Outcome::Status::Pass) << id << ": " << z.fingerprint << " " << z.message;
  }
}

TEST(DomainProperties, SkipWithAReasonWhereTheyCannotRun) {
  ReferenceSubject helper;
  PropertyEnv env = reference_env(helper);
  ReferenceSubject reference;
  // wire.distributed needs the distributed subject.
  auto a = find_property("wire.distributed")->applies(reference, env);
  EXPECT_NE(a.skip_reason.find("distributed"), std::string::npos) << a.skip_reason;
  EXPECT_TRUE(find_property("zerocopy.device")->applies(reference, env).skip_reason.empty());
  // So does wire.packed.
  a = find_property("wire.packed")->applies(reference, env);
  EXPECT_NE(a.skip_reason.find("distributed"), std::string::npos) << a.skip_reason;
}

// ---- wire.packed ---------------------------------------------------------------------

// How often wire.packed's cases (the gate's 100, at the gate's seed) hold a
// frame that packing compresses, and a frame in the compression window that
// it sends as is because its codec cannot shrink it: the property checks
// compression only if its cases reach both.
TEST(DomainProperties, WirePackedCasesReachTheCompressionWindow) {
  test_support::Env e;
  Applicability a = applicability(*find_property("wire.packed"), e.reference, e.env);
  ASSERT_EQ(a.skip_reason, "");
  rc::Gen<TestCase> gen = case_generator(a.plan);
  rc::Random random(20261129);
  std::map<Compression, int> compressed;
  std::map<Compression, int> left_as_is;
  for (int i = 0; i < test_support::kCases; ++i) {
    TestCase c = gen(random.split(), i % 101).value();
    families::SerializeOptions so;
    so.serializers = {"dask", "pickle"};
    const Message m = families::serialize(c.value, so);
    for (const Compression codec : {Compression::Lz4, Compression::Zstd}) {
      PackOptions options;
      options.compression.codec = codec;
      const Message packed = unpack_message(byte_span(pack_message(m, options)));
      bool any_compressed = false;
      bool any_left = false;
      const nlohmann::json& entries = packed.header["compression"];
      for (std::size_t f = 0; f < m.frames.size(); ++f) {
        any_compressed = any_compressed || entries[f].is_string();
        any_left =
            any_left || (entries[f].is_null() && m.frames[f].size >= gen::kCompressionMinSize);
      }
      compressed[codec] += any_compressed ? 1 : 0;
      left_as_is[codec] += any_left ? 1 : 0;
    }
  }
  for (const Compression codec : {Compression::Lz4, Compression::Zstd}) {
    const std::string name(compression_name(codec));
    ::testing::Test::RecordProperty("cases_with_a_compressed_frame_" + name, compressed[codec]);
    ::testing::Test::RecordProperty("cases_with_a_window_frame_sent_as_is_" + name,
                                    left_as_is[codec]);
    EXPECT_GE(compressed[codec], 30) << name;
    EXPECT_GE(left_as_is[codec], 8) << name;
  }
}

TEST(DomainProperties, WirePackedPassesOnTheReference) {
  test_support::Env e;
  test_support::CellRun v =
      test_support::run_cell(*find_property("wire.packed"), e.reference, e, 20261129);
  EXPECT_GT(v.ran, 50);
  EXPECT_FALSE(v.failure.has_value()) << v.failure->fingerprint << ": " << v.failure->message;
}

// distributed decides from random samples of a frame whether to compress
// it, the reference from the whole frame: a frame in the window that
// distributed sends as is while the subject compresses it is no failure,
// if it decompresses to distributed's frame.
class NeverCompresses : public test_support::DistributedStandIn {
 public:
  PackedBytes dumps_packed(const Node* value, Compression codec) override {
    PackOptions options;
    options.compression.codec = codec;
    options.compression.max_ratio = 0;  // as if no sample ever compressed
    return {pack_message(families::serialize(value, {}), options), codec_library_version(codec)};
  }
};

TEST(DomainProperties, WirePackedAllowsDistributedsSampledRefusal) {
  test_support::Env e;
  e.peers["distributed"] = std::unique_ptr<Subject>(new NeverCompresses());
  test_support::CellRun v =
      test_support::run_cell(*find_property("wire.packed"), e.reference, e, 20261129);
  EXPECT_GT(v.ran, 50);
  EXPECT_FALSE(v.failure.has_value()) << v.failure->fingerprint << ": " << v.failure->message;
}

// A subject whose packing changes a frame's bytes, or compresses a frame
// distributed would not, is caught with the frame it got wrong.
class FaultyPacker : public ReferenceSubject {
 public:
  enum class Fault { FlipLastByte, CompressEverything };
  explicit FaultyPacker(Fault f) : fault_(f) {}
  PackedBytes pack(const Message& message, Compression codec) override {
    if (fault_ == Fault::CompressEverything) {
      PackOptions options;
      options.compression.codec = codec;
      options.compression.min_size = 0;
      options.compression.max_ratio = 100;
      return {pack_message(message, options), codec_library_version(codec)};
    }
    PackedBytes out = ReferenceSubject::pack(message, codec);
    out.bytes.back() = static_cast<char>(out.bytes.back() ^ 1);
    return out;
  }

 private:
  Fault fault_;
};

TEST(DomainProperties, AChangedFrameFailsWirePacked) {
  test_support::Env e;
  FaultyPacker s(FaultyPacker::Fault::FlipLastByte);
  test_support::CellRun v = test_support::run_cell(*find_property("wire.packed"), s, e, 20261129);
  ASSERT_TRUE(v.failure.has_value());
  EXPECT_EQ(v.failure->fingerprint.rfind("wire:packed-frame@packed-bytes", 0), 0u)
      << v.failure->fingerprint;
  EXPECT_NE(v.failure->message.find("first differs at byte"), std::string::npos)
      << v.failure->message;
}

TEST(DomainProperties, CompressingOutsideTheWindowFailsWirePacked) {
  test_support::Env e;
  FaultyPacker s(FaultyPacker::Fault::CompressEverything);
  test_support::CellRun v = test_support::run_cell(*find_property("wire.packed"), s, e, 20261129);
  ASSERT_TRUE(v.failure.has_value());
  EXPECT_EQ(v.failure->fingerprint.rfind("wire:packed-compression@packed-bytes", 0), 0u)
      << v.failure->fingerprint;
  EXPECT_NE(v.failure->message.find("frame 1 is marked lz4"), std::string::npos)
      << v.failure->message;
}

// ---- each property can fail -------------------------------------------------------

// The reference with one fault added after loading or dumping.
class FaultySubject : public ReferenceSubject {
 public:
  enum class Fault { DropGrad, CopyFrames, CopyModules };
  explicit FaultySubject(Fault f) : fault_(f) {}

  Message dumps(const Node* value, const DumpOptions& options) override {
    Message m = ReferenceSubject::dumps(value, options);
    if (fault_ != Fault::CopyFrames) return m;
    Message copy;
    copy.header = m.header;
    for (const Frame& f : m.frames) copy.frames.push_back(Frame::owned(std::string(f.view())));
    return copy;
  }

  Node* loads(const Message& message, Graph& graph, const LoadOptions& options) override {
    Node* root = ReferenceSubject::loads(message, graph, options);
    for (std::size_t i = 0; i < graph.size(); ++i) {
      Node& n = graph.node(i);
      if (fault_ == Fault::DropGrad && n.kind == Kind::Tensor && n.array()) n.array()->grad = nullptr;
      if (fault_ == Fault::CopyModules && n.kind == Kind::Module) n.flag = true;
    }
    return root;
  }

 private:
  Fault fault_;
};

TEST(DomainProperties, ALostGradFailsTensorGrad) {
  FaultySubject s(FaultySubject::Fault::DropGrad);
  Outcome o = check("tensor.grad", s, make_case(kTensorWithGrad, 4));
  EXPECT_EQ(o.status, Outcome::Status::Fail);
  EXPECT_EQ(o.fingerprint, "tensor:grad-was-lost/tensor") << o.message;
}

TEST(DomainProperties, ACopiedFrameFailsZeroCopy) {
  FaultySubject s(FaultySubject::Fault::CopyFrames);
  Outcome o = check("zerocopy.oob", s, make_case(big_array_json(), 5, true));
  EXPECT_EQ(o.status, Outcome::Status::Fail);
  EXPECT_EQ(o.fingerprint, "zerocopy:copied@dumps/ndarray") << o.message;
}

TEST(DomainProperties, AnArrayInBandFailsZeroCopy) {
  // Dumped in band, the array is no frame of its own.
  ReferenceSubject reference;
  Outcome o = check("zerocopy.nested", reference, make_case(big_array_json(), 5, false));
  EXPECT_EQ(o.status, Outcome::Status::Fail);
  EXPECT_EQ(o.fingerprint, "zerocopy:no-frame@dumps/ndarray") << o.message;
}

TEST(DomainProperties, AModuleCopyFailsModuleByReference) {
  FaultySubject s(FaultySubject::Fault::CopyModules);
  Outcome o = check("module.by-reference", s, make_case(R"({"list": [{"module": "os"}]})", 3));
  EXPECT_EQ(o.status, Outcome::Status::Fail);
  EXPECT_EQ(o.fingerprint, "module:copy/module") << o.message;
}

}  // namespace
}  // namespace serialcheck
