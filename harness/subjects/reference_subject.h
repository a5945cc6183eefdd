// The reference subject: the reference pickle encoder and decoder behind the
// Subject interface. A message is frame 0 (the pickle) plus one frame per
// out-of-band buffer; the header is {"serializer": "pickle", "protocol": p,
// "writeable": [...]}, the shape distributed's pickle family uses.
// Zero-copy both ways: dumps() borrows the value's buffers for the
// out-of-band frames, loads() borrows the frames for the buffers it decodes.
// `reference@3.X` is the reference at another CPython version's target
// (reference/pickle/target.h): that version's protocols and bytes.
#pragma once

#include <string>
#include <vector>

#include "harness/props/runner.h"
#include "harness/subjects/subject.h"
#include "reference/pickle/target.h"

namespace serialcheck {

class ReferenceSubject : public Subject {
 public:
  // "reference" (3.11); with a target, "reference@<target>".
  ReferenceSubject() = default;
  explicit ReferenceSubject(pickle::PythonTarget target)
      : target_(target), name_("reference@" + target.name()) {}

  std::string name() const override { return name_; }
  Capabilities capabilities() const override;
  // The message's out-of-band frames point into `value`'s graph, which must
  // outlive the message.
  Message dumps(const Node* value, const DumpOptions& options) override;
  // Honours options.max_protocol (a stream above it fails with
  // "unsupported-protocol" naming both protocols). PickleBuffer nodes of the
  // result borrow the message's frames, which must outlive `graph`.
  Node* loads(const Message& message, Graph& graph, const LoadOptions& options) override;
  // The builtin families (families::FamilyRegistry::builtin()).
  const families::FamilyRegistry* family_registry() const override;
  // pack_message and unpack_message (reference/frames/wire.h) with the
  // default options of CompressionOptions; their errors are FrameErrors.
  PackedBytes pack(const Message& message, Compression codec) override;
  Message unpack(std::span<const std::uint8_t> bytes) override;

 private:
  pickle::PythonTarget target_ = pickle::PythonTarget::default_target();
  std::string name_ = "reference";
};

// reference@3.6 ... reference@3.15, one per supported target.
std::vector<SubjectFactory> reference_subject_factories();

}  // namespace serialcheck
