// Test support for the gate's machinery (the runner, the reports, known
// failures, case files, replay, the properties): a test case from its JSON
// form, a report cell, and a subject that crashes or hangs on purpose (and
// scratch directories, support/scratch.h). make_case throws what from_json
// throws on JSON that is not a value.
#pragma once

#include <chrono>
#include <cstdlib>
#include <memory>
#include <string>
#include <string_view>
#include <thread>
#include <utility>
#include <vector>

#include "harness/props/case.h"
#include "harness/props/runner.h"
#include "harness/props/value_tools.h"
#include "harness/report/results.h"
#include "harness/subjects/reference_subject.h"
#include "reference/value/json.h"
#include "suite/tests/support/scratch.h"

namespace serialcheck::test_support {

// A case holding the value `json` describes (reference/value/json.h).
inline TestCase make_case(std::string_view json, int protocol = 2, bool out_of_band = false) {
  TestCase c;
  c.graph = std::make_shared<Graph>();
  c.value = from_json(json, *c.graph);
  c.protocol = protocol;
  c.out_of_band = out_of_band;
  return c;
}

// A finished cell of 10 cases; a failure says "it broke", a skip "no capability".
inline CellResult cell(std::string subject, std::string property, Verdict v,
                       std::string fingerprint = "") {
  CellResult c;
  c.subject = std::move(subject);
  c.property = std::move(property);
  c.verdict = v;
  c.cases = 10;
  c.fingerprint = std::move(fingerprint);
  if (v == Verdict::Fail) c.message = "it broke";
  if (v == Verdict::Skip) c.skip_reason = "no capability";
  return c;
}

// A subject that misbehaves on purpose, otherwise the reference: in Abort
// mode it aborts when asked to dump a list of two or more items, in Hang
// mode it hangs on a dict with an item.
class MisbehavingSubject : public ReferenceSubject {
 public:
  enum class Mode { Abort, Hang };
  explicit MisbehavingSubject(Mode mode) : mode_(mode) {}
  std::string name() const override { return "misbehaving"; }
  Message dumps(const Node* value, const DumpOptions& options) override {
    for (const Node* n : reachable(value)) {
      if (mode_ == Mode::Abort && n->kind == Kind::List && n->items.size() >= 2) std::abort();
      if (mode_ == Mode::Hang && n->kind == Kind::Dict && !n->items.empty()) {
        std::this_thread::sleep_for(std::chrono::seconds(120));
      }
    }
    return ReferenceSubject::dumps(value, options);
  }

 private:
  Mode mode_;
};

// "reference" and "misbehaving" (in `mode`), as the runner makes subjects.
inline std::vector<SubjectFactory> misbehaving_factories(MisbehavingSubject::Mode mode) {
  return {{"reference", [] { return std::make_unique<ReferenceSubject>(); }},
          {"misbehaving", [mode] { return std::make_unique<MisbehavingSubject>(mode); }}};
}

}  // namespace serialcheck::test_support
