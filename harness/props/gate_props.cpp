#include "harness/props/gate_props.h"

#include <algorithm>
#include <array>

#include "harness/gen/choice.h"
#include "harness/gen/config.h"
#include "harness/gen/domain_values.h"
#include "harness/gen/tensor_gen.h"
#include "harness/gen/value.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"

namespace serialcheck {
namespace {

constexpr std::array<std::string_view, 14> kOrder = {
    "roundtrip.equal",     "roundtrip.identity",  "bytes.match-cpython",
    "cross.load",          "protocol.mismatch",   "loads.pure",
    "tensor.grad",         "module.by-reference", "zerocopy.oob",
    "zerocopy.nested",     "zerocopy.device",     "header.sub-header-intact",
    "protocol.negotiated", "wire.distributed",
};

rc::Gen<gen::GeneratedValue> domain_values(CaseDomain d) {
  // A grad, but no grad of a grad: torch code rarely makes one, and every
  // subject that keeps grads at all would fail on it alone.
  gen::TensorGenOptions tensors;
  tensors.max_grad_depth = 1;
  switch (d) {
    case CaseDomain::BigArray: return gen::bigArrayValue();
    case CaseDomain::NestedArrays: return gen::nestedArraysValue();
    case CaseDomain::Tensor: return gen::tensorValue(tensors);
    case CaseDomain::Module: return gen::modulesValue();
    case CaseDomain::DeviceBuffers: return gen::deviceBuffersValue();
    case CaseDomain::Wire:
      return rc::gen::oneOf(gen::nestedArraysValue(), gen::tensorValue(tensors));
    case CaseDomain::Builtin: break;
  }
  return gen::value(gen::default_config());
}

std::vector<GateProperty> make_registry() {
  std::vector<GateProperty> all;
  props::add_own_properties(all);
  props::add_cross_properties(all);
  props::add_domain_properties(all);
  std::stable_sort(all.begin(), all.end(), [](const GateProperty& a, const GateProperty& b) {
    auto rank = [](const std::string& id) {
      return std::find(kOrder.begin(), kOrder.end(), id) - kOrder.begin();
    };
    return rank(a.id) < rank(b.id);
  });
  return all;
}

}  // namespace

const std::vector<GateProperty>& gate_properties() {
  static const std::vector<GateProperty> registry = make_registry();
  return registry;
}

const GateProperty* find_property(std::string_view id) {
  for (const auto& p : gate_properties()) {
    if (p.id == id) return &p;
  }
  return nullptr;
}

rc::Gen<TestCase> case_generator(const CasePlan& plan) {
  return rc::gen::exec([plan] {
    TestCase c;
    // The highest protocol carries most opcodes (and the only out-of-band
    // ones), so it gets a third of the cases; shrinking goes towards the lowest.
    std::vector<std::pair<int, rc::Gen<int>>> protocols;
    int others = plan.max_protocol - plan.min_protocol;
    for (int p = plan.min_protocol; p < plan.max_protocol; ++p) {
      protocols.emplace_back(2, rc::gen::just(p));
    }
    protocols.emplace_back(std::max(1, others), rc::gen::just(plan.max_protocol));
    c.protocol = *gen::weightedChoice(std::move(protocols));
    if (plan.domain != CaseDomain::Builtin) {
      gen::GeneratedValue v = *domain_values(plan.domain);
      c.graph = v.graph;
      c.value = v.root;
      c.out_of_band = plan.out_of_band && c.protocol >= 5;
      if (plan.lower_loader) c.max_protocol = *rc::gen::inRange(0, c.protocol);
      return c;
    }
    gen::GenConfig config = plan.python_safe ? gen::python_safe_config() : gen::default_config();
    config.allow_sharing = config.allow_sharing && plan.graph_shaped;
    config.allow_cycles = config.allow_cycles && plan.graph_shaped;
    config.allow_buffers = config.allow_buffers && c.protocol >= 5;
    config.min_protocol = c.protocol;
    gen::GeneratedValue v =
        *(plan.graph_shaped ? gen::valueWithSharing(config) : gen::value(config));
    c.graph = v.graph;
    c.value = v.root;
    c.out_of_band = plan.out_of_band && c.protocol >= 5 && *gen::chance(1, 2);
    if (plan.lower_loader) c.max_protocol = *rc::gen::inRange(0, c.protocol);
    return c;
  });
}

Outcome check_case(const GateProperty& property, Subject& subject, const TestCase& c,
                   PropertyEnv& env) {
  try {
    return property.check(subject, c, env);
  } catch (const std::exception& e) {
    return props::exception_outcome(e, "harness");
  }
}

}  // namespace serialcheck
