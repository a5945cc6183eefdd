// The reference subject: the reference pickle encoder and decoder behind the
// Subject interface. A message is frame 0 (the pickle) plus one frame per
// out-of-band buffer; the header is {"serializer": "pickle", "protocol": p,
// "writeable": [...]}, the shape distributed's pickle family uses.
// Zero-copy both ways: dumps() borrows the value's buffers for the
// out-of-band frames, loads() borrows the frames for the buffers it decodes.
#pragma once

#include "harness/subjects/subject.h"

namespace serialcheck {

class ReferenceSubject : public Subject {
 public:
  std::string name() const override { return "reference"; }
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
};

}  // namespace serialcheck
