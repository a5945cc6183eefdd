// Generated values: a graph plus its root, copyable so RapidCheck can hold
// and shrink it, printed as canonical JSON in counterexamples.
#pragma once

#include <rapidcheck.h>

#include <memory>
#include <ostream>

#include "harness/gen/config.h"
#include "harness/gen/plan.h"
#include "reference/value/value.h"

namespace serialcheck::gen {

struct GeneratedValue {
  std::shared_ptr<Graph> graph;  // shared: copies of the value see one graph
  Node* root = nullptr;
};

// Builds a plan into a fresh graph.
GeneratedValue make_value(const Plan& plan, const GenConfig& config);

// Values under `config`; shrinks by shrinking the plan.
rc::Gen<GeneratedValue> value(const GenConfig& config);

// Values in which at least one node other than an atom or a singleton
// (shape.h) is referenced twice: when the
// plan made none, the value v becomes [x, x] with x = v (or [v] when v
// cannot be shared).
rc::Gen<GeneratedValue> valueWithSharing(const GenConfig& config);

// The canonical JSON form of the value.
void showValue(const GeneratedValue& value, std::ostream& os);
std::ostream& operator<<(std::ostream& os, const GeneratedValue& value);

}  // namespace serialcheck::gen
