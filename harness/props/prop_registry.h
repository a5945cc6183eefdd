// Internal to harness/props: each property file adds its properties, each
// with its place in the matrix and its negative controls, to the registry
// gate_properties() builds.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/props/gate_props.h"

namespace serialcheck::props {

// A property and its place in the matrix: the registry lists properties by
// `order`, lowest first, so each file places its own properties where it
// registers them. Orders are unique (a test checks).
struct Registered {
  int order = 0;
  GateProperty property;
};
using Registry = std::vector<Registered>;

// A negative control that is the subject under test, and one that stands in
// for the helper subject `peer` (NegativeControl, gate_props.h).
inline NegativeControl control(std::string_view mutant, std::string_view bug,
                               std::string_view fingerprint_prefix) {
  return {.mutant = mutant, .bug = bug, .fingerprint_prefix = fingerprint_prefix};
}
inline NegativeControl peer_control(std::string_view mutant, std::string_view peer,
                                    std::string_view bug, std::string_view fingerprint_prefix) {
  return {.mutant = mutant,
          .role = NegativeControl::Role::Peer,
          .peer = peer,
          .bug = bug,
          .fingerprint_prefix = fingerprint_prefix};
}

// A property with its negative controls (at least one: a property that
// passes its control could pass anything).
inline void add(Registry& out, int order, GateProperty property,
                std::vector<NegativeControl> controls) {
  property.controls = std::move(controls);
  out.push_back({order, std::move(property)});
}

// Each property file's registrations.
void add_own_properties(Registry& out);        // roundtrip_props.cpp
void add_cross_properties(Registry& out);      // cross_props.cpp
void add_reencode_properties(Registry& out);   // reencode_props.cpp
void add_domain_properties(Registry& out);     // domain_props.cpp
void add_malformed_properties(Registry& out);  // malformed_props.cpp
void add_byvalue_properties(Registry& out);    // byvalue_props.cpp

// Every file's registrations, in order.
Registry registrations();

// cross.matrix/<producer> (cross_props.cpp): what `producer` dumps, the
// subject loads to an equal value.
inline constexpr std::string_view kMatrixPrefix = "cross.matrix/";
GateProperty matrix_property(const std::string& producer);

// protocol.negotiated/<producer> (cross_props.cpp): what `producer` writes
// at the highest protocol the subject announces, the subject loads.
inline constexpr std::string_view kNegotiatedPrefix = "protocol.negotiated/";
GateProperty negotiated_pair_property(const std::string& producer);

// cross.py2/<producer>@<choice> (py2_props.cpp): Python 2's pickles read by
// Python 3 with each of its choices, and Python 3's read by Python 2 with
// each of the writer's; the choices' names in cell order.
const std::vector<std::string>& python2_choices();
GateProperty python2_property(const std::string& producer, const std::string& choice);

// cross.stdlib/<producer> (stdlib_props.cpp): the stdlib values `producer`
// builds and pickles load in the subject as the values it builds itself.
inline constexpr std::string_view kStdlibPrefix = "cross.stdlib/";
GateProperty stdlib_property(const std::string& producer);

}  // namespace serialcheck::props
