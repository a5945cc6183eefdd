// Negative controls: deliberately broken subjects, each the reference with
// one bug, and the gate property each one must fail. A property that passes
// its control could pass anything, so suite/tests/negative_controls_test.cpp
// runs every property of the gate on its control, with the property's own
// case generator, and fails when the property does not catch the bug. The
// report names the control each property was proven against
// (negative_control_for, docs/conformance.md).
//
// A control either is the subject under test (role Subject) or stands in
// for one of the helper subjects the property consults (role Peer: the
// property runs on the honest reference and finds the broken peer through
// PropertyEnv under `peer`). A mutant whose bug lives in one of the
// serialization families supplies its own family registry
// (Subject::family_registry), which the family properties use.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/subjects/subject.h"

namespace serialcheck {

struct NegativeControl {
  enum class Role { Subject, Peer };
  std::string_view property;  // a gate property id; "cross.matrix/*" stands for every producer
  std::string_view mutant;    // make_mutant_subject(mutant)
  Role role = Role::Subject;
  std::string_view peer;  // Role::Peer: the helper subject's name the mutant stands in for
  std::string_view bug;   // one line: what the mutant gets wrong
  // What the property's failure on the control starts with.
  std::string_view fingerprint_prefix;
};

// At least one row for every gate property (a property with several bugs to
// catch has a row for each), in the order of the matrix.
const std::vector<NegativeControl>& negative_controls();

// The first control row of a property id ("cross.matrix/<producer>" finds
// the cross.matrix row), or nullptr.
const NegativeControl* find_negative_control(std::string_view property_id);

// "<mutant>: <bug>" for each control of the property, joined by "; "; ""
// for an id that has none.
std::string negative_control_for(std::string_view property_id);

// The mutant of that name (every `mutant` of negative_controls()), named
// `name` for the harness (a peer mutant answers to its peer's name), or
// nullptr for an unknown one.
std::unique_ptr<Subject> make_mutant_subject(std::string_view mutant, std::string name = {});

}  // namespace serialcheck
