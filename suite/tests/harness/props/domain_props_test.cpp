// The domain properties of the gate (harness/props/domain_props.cpp): they
// pass on the reference for fixed cases, and each can fail: subjects that
// lose a grad, copy a frame or hand back a copy of a module are caught.
#include <gtest/gtest.h>

#include <memory>
#include <string>

#include "harness/props/gate_props.h"
#include "harness/subjects/reference_subject.h"
#include "reference/value/json.h"
#include "suite/tests/support/env.h"
#include "suite/tests/support/gate.h"

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
