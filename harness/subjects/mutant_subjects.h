// Negative controls: deliberately broken subjects, each the reference with
// one bug, and the gate property each one must fail. A property that passes
// its control could pass anything, so suite/tests/harness/props/negative_controls_test.cpp
// runs every property of the gate on its control, with the property's own
// case generator, and fails when the property does not catch the bug. The
// report names the control each property was proven against
// (negative_control_for, docs/conformance.md).
//
// A control (NegativeControl, gate_props.h) either is the subject under test
// or stands in for one of the helper subjects the property consults. A
// mutant whose bug lives in one of the serialization families supplies its
// own family registry (Subject::family_registry), which the family
// properties use.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "harness/props/gate_props.h"
#include "harness/subjects/subject.h"

namespace serialcheck {

// Every gate property's controls (registered beside the property, see
// harness/props/prop_registry.h), then the matrix's, in the order of the
// matrix: at least one for every property, one for each bug it must catch.
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

// An honest stand-in for Python `major` (2 or 3) made of the reference, for
// cross.py2's tests and controls where no Python 2 is installed: Python 2
// writes protocols 0-2 with bytes as its str and its own module names and
// reads its str as bytes; Python 3 honours loads' encoding and fix_imports.
// Each fails to import the other's module names with an error naming the
// module. Named `name` ("python-2", "python-3" when empty); nullptr for
// another major version.
std::unique_ptr<Subject> make_python_stand_in(int major, std::string name = {});

}  // namespace serialcheck
