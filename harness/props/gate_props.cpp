#include "harness/props/gate_props.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <memory>

#include "harness/gen/choice.h"
#include "harness/gen/config.h"
#include "harness/gen/domain_values.h"
#include "harness/gen/fixtures.h"
#include "harness/gen/function_gen.h"
#include "harness/gen/stdlib_recipes.h"
#include "harness/gen/tensor_gen.h"
#include "harness/gen/value.h"
#include "harness/props/fingerprint.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"

namespace serialcheck {

namespace props {

Registry registrations() {
  Registry all;
  add_own_properties(all);
  add_cross_properties(all);
  add_reencode_properties(all);
  add_domain_properties(all);
  add_malformed_properties(all);
  add_byvalue_properties(all);
  std::stable_sort(all.begin(), all.end(),
                   [](const Registered& a, const Registered& b) { return a.order < b.order; });
  return all;
}

}  // namespace props

namespace {

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
    case CaseDomain::Packed:
      return rc::gen::weightedOneOf<gen::GeneratedValue>(
          {{4, gen::packedArraysValue()}, {1, gen::tensorValue(tensors)}});
    case CaseDomain::Callable: return gen::callableValue();
    case CaseDomain::ClassLife: return gen::classLifeValue();
    case CaseDomain::Stdlib: return gen::stdlibRecipeValue();
    case CaseDomain::Builtin: break;
  }
  return gen::value(gen::default_config());
}

std::vector<GateProperty> make_registry() {
  std::vector<GateProperty> all;
  for (props::Registered& r : props::registrations()) all.push_back(std::move(r.property));
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
  if (auto pair = parse_pair_id(id)) {
    // Made once per id and kept for the life of the process, so the
    // pointer stays valid like those of the registry.
    static std::map<std::string, std::unique_ptr<GateProperty>, std::less<>> made;
    auto it = made.find(id);
    if (it == made.end()) {
      it = made.emplace(std::string(id), std::make_unique<GateProperty>(
                                             pair->family->make(pair->producer, pair->choice)))
               .first;
    }
    return it->second.get();
  }
  return nullptr;
}

const std::vector<PairFamily>& pair_families() {
  static const std::vector<PairFamily> families = {
      {kMatrixProperty,
       {},
       [](const std::string& producer, const std::string&) {
         return props::matrix_property(producer);
       }},
      // The real peers of protocol.negotiated, whose simulated one is
      // registered under the family's own id.
      {"protocol.negotiated",
       {},
       [](const std::string& producer, const std::string&) {
         return props::negotiated_pair_property(producer);
       }},
      {kPython2Property, props::python2_choices(), props::python2_property},
      {kStdlibProperty,
       {},
       [](const std::string& producer, const std::string&) {
         return props::stdlib_property(producer);
       }},
  };
  return families;
}

std::optional<PairId> parse_pair_id(std::string_view id) {
  for (const PairFamily& f : pair_families()) {
    if (id.size() <= f.id.size() + 1 || id.substr(0, f.id.size()) != f.id ||
        id[f.id.size()] != '/') {
      continue;
    }
    PairId out;
    out.family = &f;
    std::string_view rest = id.substr(f.id.size() + 1);
    if (!f.choices.empty()) {
      const std::size_t at = rest.rfind('@');
      if (at == std::string_view::npos || at == 0) return std::nullopt;
      out.choice = std::string(rest.substr(at + 1));
      if (std::find(f.choices.begin(), f.choices.end(), out.choice) == f.choices.end()) {
        return std::nullopt;
      }
      rest = rest.substr(0, at);
    }
    out.producer = std::string(rest);
    return out;
  }
  return std::nullopt;
}

std::vector<std::string> pair_property_ids(const std::vector<std::string>& producers) {
  std::vector<std::string> out;
  for (const PairFamily& f : pair_families()) {
    for (const std::string& p : producers) {
      const std::string base = std::string(f.id) + "/" + p;
      if (f.choices.empty()) out.push_back(base);
      for (const std::string& c : f.choices) out.push_back(base + "@" + c);
    }
  }
  return out;
}

namespace {

// The kinds a domain's values are made of, for subjects that list theirs.
std::vector<std::string_view> domain_kinds(CaseDomain d) {
  switch (d) {
    case CaseDomain::BigArray:
    case CaseDomain::NestedArrays: return {"ndarray"};
    case CaseDomain::Tensor: return {"tensor"};
    case CaseDomain::Module: return {"module"};
    case CaseDomain::DeviceBuffers: return {"device-buffer"};
    case CaseDomain::Wire:
    case CaseDomain::Packed: return {"ndarray", "tensor"};
    case CaseDomain::Callable:
    case CaseDomain::ClassLife:
    case CaseDomain::Stdlib: return {};
    case CaseDomain::Builtin: break;
  }
  return {};
}

}  // namespace

Applicability applicability(const GateProperty& property, Subject& subject, PropertyEnv& env) {
  Applicability a;
  Capabilities caps = subject.capabilities();
  if (property.needs_dumps && !caps.can_dump) {
    a.skip_reason = "the subject only reads pickles (no dumps capability)";
    return a;
  }
  if (property.needs_loads && !caps.can_load) {
    a.skip_reason = "the subject only writes pickles (no loads capability)";
    return a;
  }
  if (property.needs_sharing && caps.loses("sharing")) {
    a.skip_reason = "the subject cannot express shared references (cannot_express: sharing)";
    return a;
  }
  a = property.applies(subject, env);
  if (!a.skip_reason.empty()) return a;
  if (property.needs_loads && property.needs_dumps) {
    a.plan.min_protocol = std::max(a.plan.min_protocol, caps.read_min());
    a.plan.max_protocol = std::min(a.plan.max_protocol, caps.read_max());
    if (a.plan.min_protocol > a.plan.max_protocol) {
      a.skip_reason = "reads none of the protocols it writes";
      return a;
    }
  }
  if (caps.loses("sharing")) a.plan.graph_shaped = false;
  // Objects of the fixtures module are described as the embedded
  // interpreter reduces them, and a standard class's reduce changes between
  // releases (an Enum member is Level(1) before 3.12 and getattr(Level,
  // 'LOW') after; a Flag combination became operator.or_(a, b) within 3.11):
  // a subject of another release gets builtin values and globals only.
  if (a.plan.python_objects && !caps.python_version.empty()) {
    Subject* oracle = env.subject(props::kOracle, nullptr);
    if (oracle == nullptr || oracle->capabilities().python_version != caps.python_version) {
      a.plan.python_objects = false;
    }
  }
  if (!caps.kinds.empty()) {
    for (std::string_view k : domain_kinds(a.plan.domain)) {
      if (std::find(caps.kinds.begin(), caps.kinds.end(), k) == caps.kinds.end()) {
        a.skip_reason =
            fmt::format("the subject cannot express {} values (not among its kinds)", k);
        return a;
      }
    }
  }
  return a;
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
    // A favoured protocol below the highest gets about a quarter of the cases.
    if (plan.favoured_protocol >= plan.min_protocol && plan.favoured_protocol < plan.max_protocol) {
      protocols[static_cast<std::size_t>(plan.favoured_protocol - plan.min_protocol)].first +=
          std::max(1, others);
    }
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
    if (plan.python_safe) {
      config.allow_ndarrays = plan.ndarrays;
      config.allow_tensors = plan.tensors;
    }
    config.allow_sharing = config.allow_sharing && plan.graph_shaped;
    config.allow_cycles = config.allow_cycles && plan.graph_shaped;
    config.allow_buffers = config.allow_buffers && c.protocol >= 5;
    config.min_protocol = c.protocol;
    config.target_protocol = c.protocol;
    config.allow_fixtures = plan.python_objects && gen::have_fixture_resolver();
    // Below protocol 3 an array's reduce writes b'b' as _codecs.encode('b',
    // 'latin1'), whose 'b' is CPython's latin-1 singleton; in 3.11 and 3.12
    // an interned 'b' (a fixture object's attribute name) is another object,
    // and the reference, which memoizes every one-character str by value,
    // cannot yet tell the two apart (docs/conformance.md, "Arrays and
    // tensors"). Arrays and fixture objects meet from protocol 3.
    if (config.allow_fixtures && c.protocol < 3) config.allow_ndarrays = false;
    // Persistent ids too: the Python subjects build them as the fixtures
    // module's Persistent objects and pickle with its persistent_id.
    config.allow_persid = config.allow_persid || config.allow_fixtures;
    gen::GeneratedValue v =
        *(plan.graph_shaped ? gen::valueWithSharing(config) : gen::value(config));
    if (config.allow_fixtures && gen::has_fixture_requests(v.root)) {
      // The value the reference encodes is what the real objects reduce to
      // at this protocol (harness/gen/fixtures.h). Where Python cannot build
      // or reduce them, the case is drawn again without fixture objects.
      if (auto resolved = gen::resolve_fixtures(v, c.protocol)) {
        v = std::move(*resolved);
        c.python_objects = true;
      } else {
        config.allow_fixtures = false;
        config.allow_persid = plan.python_safe ? gen::python_safe_config().allow_persid
                                               : gen::default_config().allow_persid;
        v = *(plan.graph_shaped ? gen::valueWithSharing(config) : gen::value(config));
      }
    }
    c.graph = v.graph;
    c.value = v.root;
    c.out_of_band = plan.out_of_band && c.protocol >= 5 && *gen::chance(1, 2);
    if (plan.lower_loader) c.max_protocol = *rc::gen::inRange(0, c.protocol);
    return c;
  });
}

Outcome check_case(const GateProperty& property, Subject& subject, const TestCase& c,
                   PropertyEnv& env) {
  Outcome o;
  try {
    o = property.check(subject, c, env);
  } catch (const std::exception& e) {
    o = props::exception_outcome(e, "harness");
  }
  if (o.failed()) o.fingerprint = refine_fingerprint(o, c);
  // A helper subject's refusal (the reference, cpython) says nothing about
  // the cell's subject: the property could not do its part.
  if (o.status == Outcome::Status::Discard && o.discarded_by != subject.name()) {
    o.discard_reason = kDiscardProperty;
  }
  return o;
}

}  // namespace serialcheck
