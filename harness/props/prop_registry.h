// Internal to harness/props: each property file adds its properties to the
// registry gate_properties() builds.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "harness/props/gate_props.h"

namespace serialcheck::props {

void add_own_properties(std::vector<GateProperty>& out);    // roundtrip_props.cpp
void add_cross_properties(std::vector<GateProperty>& out);  // cross_props.cpp
void add_domain_properties(std::vector<GateProperty>& out);  // domain_props.cpp
void add_malformed_properties(std::vector<GateProperty>& out);  // malformed_props.cpp

// cross.matrix/<producer> (cross_props.cpp): what `producer` dumps, the
// subject loads to an equal value.
inline constexpr std::string_view kMatrixPrefix = "cross.matrix/";
GateProperty matrix_property(const std::string& producer);

}  // namespace serialcheck::props
