// Internal to harness/props: each property file adds its properties to the
// registry gate_properties() builds.
#pragma once

#include <vector>

#include "harness/props/gate_props.h"

namespace serialcheck::props {

void add_own_properties(std::vector<GateProperty>& out);    // roundtrip_props.cpp
void add_cross_properties(std::vector<GateProperty>& out);  // cross_props.cpp
void add_domain_properties(std::vector<GateProperty>& out);  // domain_props.cpp

}  // namespace serialcheck::props
