// The properties the gate checks across subjects, each defined and
// registered with its negative controls in one of harness/props/*_props.cpp
// (prop_registry.h) and documented under its id in docs/conformance.md.
//
// A property says, for a subject, either how to generate its cases (a
// CasePlan) or why it cannot run (a skip reason naming the missing
// capability), and checks one case at a time. It never prints and never
// decides pass/fail for a whole cell: RapidCheck drives it (runner.h).
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/props/case.h"
#include "harness/subjects/subject.h"

namespace serialcheck {

// What a property needs from around it while it checks one subject.
struct PropertyEnv {
  // Another subject by name ("reference", "cpython"), made on first use in
  // this process; nullptr, with `why_not` set, when it is not built in or
  // is unavailable here.
  std::function<Subject*(const std::string& name, std::string* why_not)> subject;
  // The fingerprints the known-failures file lists for this cell (empty in
  // replays and probes). A property that tries many streams a case
  // (loads.rejects-malformed) looks past failures with these for one that
  // is not listed, and passes a case whose failures are all listed: the
  // listed ones are confirmed by their saved cases (docs/ci.md), and a
  // reader's new kind of defect shows as new however many it has.
  std::vector<std::string> listed;
  // In a replay of a saved case: the fingerprint it was saved with. A
  // property that can fail a case in several ways reports that one when
  // the case still fails that way.
  std::string replaying;
};

// What a cell's values are made of: builtin values (gen::value), or one of
// the domain generators (harness/gen/domain_values.h, tensor_gen.h).
enum class CaseDomain {
  Builtin,
  BigArray,       // one array above the zero-copy threshold
  NestedArrays,   // such arrays at any depth and position in collections
  Tensor,         // one tensor, with or without requires_grad and a grad
  Module,         // a list of modules, ModuleType subclasses included
  DeviceBuffers,  // buffers on the simulated device, alone or in collections
  Wire,           // nested arrays or a tensor (wire.distributed)
  Packed,         // nested arrays in and out of the compression window, or a tensor (wire.packed)
  Callable,       // Python source of a function or class (callable.by-value)
  ClassLife,      // such a source, a _change() and a situation (callable.class-life)
  Stdlib,         // a stdlib recipe's name, as a str (cross.stdlib)
};

// How to generate the cases of one (subject, property) cell.
struct CasePlan {
  CaseDomain domain = CaseDomain::Builtin;
  bool graph_shaped = false;  // shared references and cycles (else trees)
  bool python_safe = false;   // values a Python object graph holds exactly
  // Builtin: may hold objects of the Python fixtures module (classes of every
  // reduce shape, callables by reference), as each reduces at the case's
  // protocol (harness/gen/fixtures.h). Only where an embedded interpreter
  // can build them; only for subjects that build real Python objects, and
  // the reference.
  bool python_objects = false;
  // Builtin and python_safe: numpy arrays and torch tensors (without grads)
  // may be leaves too. A property sets these where every subject its cell
  // consults takes the kind (takes_kind(), prop_helpers.h).
  bool ndarrays = false;
  bool tensors = false;
  int min_protocol = 0;
  int max_protocol = 5;
  // Builtin: may send pickle buffers out of band at protocol 5. A domain:
  // does so at protocol 5, always.
  bool out_of_band = false;
  bool lower_loader = false;  // draws a loader limit below the protocol (>= 2 then)
  // Builtin: a protocol drawn in about a quarter of the cases when it is in
  // [min_protocol, max_protocol] (a producer's default protocol); -1: none.
  int favoured_protocol = -1;
};

struct Applicability {
  std::string skip_reason;  // empty: the property applies, with `plan`
  CasePlan plan;
};

// A negative control: a deliberately broken subject (one of
// harness/subjects/mutant_subjects.h) the property must fail on. It either
// is the subject under test (role Subject) or stands in for one of the
// helper subjects the property consults (role Peer: the property runs on the
// honest reference and finds the broken peer through PropertyEnv under
// `peer`).
struct NegativeControl {
  enum class Role { Subject, Peer };
  // The property's id ("cross.matrix/*" stands for every producer); the
  // registry fills it in (negative_controls()).
  std::string_view property;
  std::string_view mutant;  // make_mutant_subject(mutant)
  Role role = Role::Subject;
  std::string_view peer;  // Role::Peer: the helper subject's name the mutant stands in for
  std::string_view bug;   // one line: what the mutant gets wrong
  // What the property's failure on the control starts with.
  std::string_view fingerprint_prefix;
};

struct GateProperty {
  std::string id;
  std::string summary;
  std::function<Applicability(Subject&, PropertyEnv&)> applies;
  std::function<Outcome(Subject&, const TestCase&, PropertyEnv&)> check;
  // What the property asks of the subject itself; applicability() skips a
  // subject that lacks it, so `applies` need not say so.
  bool needs_dumps = true;
  bool needs_loads = true;
  bool needs_sharing = false;  // its cases are about shared references and cycles
  // Registered beside the property (prop_registry.h's add()).
  std::vector<NegativeControl> controls;
};

// Whether `property` applies to `subject`, and its plan: first the
// capabilities every property respects (dumps, loads, the protocols the
// subject reads, the sharing and kinds it can express), then
// property.applies(). The runner asks this, never `applies` directly.
Applicability applicability(const GateProperty& property, Subject& subject, PropertyEnv& env);

// The producer x consumer matrix: one property "cross.matrix/<producer>"
// per subject that writes pickles, checked on every subject that reads them.
inline constexpr std::string_view kMatrixProperty = "cross.matrix";
// Python 2 and 3 (docs/versions.md): "cross.py2/<producer>@<choice>".
inline constexpr std::string_view kPython2Property = "cross.py2";

// Stdlib values built by each interpreter (docs/versions.md): one property
// "cross.stdlib/<producer>" per subject that builds them.
inline constexpr std::string_view kStdlibProperty = "cross.stdlib";

// Properties checked on a consumer with another subject of the run as the
// producer (cross.matrix is the first): one id "<family>/<producer>" per
// producer, or "<family>/<producer>@<choice>" per producer and choice where
// the family has choices (each a cell of its own). A run plans a family's
// pairs as it plans cross.matrix's (runner.h, matrix_pair_planned).
struct PairFamily {
  std::string_view id;               // "cross.matrix"
  std::vector<std::string> choices;  // empty: one property per producer
  GateProperty (*make)(const std::string& producer, const std::string& choice);
};
const std::vector<PairFamily>& pair_families();

// What a pair property's id names; nullopt for an id of no family.
struct PairId {
  const PairFamily* family = nullptr;
  std::string producer;
  std::string choice;  // empty for a family without choices
};
std::optional<PairId> parse_pair_id(std::string_view id);
// Every pair property id of every family for these producers, in family
// order, then producer, then choice.
std::vector<std::string> pair_property_ids(const std::vector<std::string>& producers);

// In the order the matrix shows them.
const std::vector<GateProperty>& gate_properties();
// A registered property, or a parametrized one made on first use:
// "cross.matrix/<producer>" (docs/conformance.md) for any producer name.
const GateProperty* find_property(std::string_view id);

// Cases under a plan: the protocol first, then a value generated for it
// (buffers only at protocol 5, NaN canonical at protocol 0...).
rc::Gen<TestCase> case_generator(const CasePlan& plan);

// Runs `property.check` and turns anything it throws into a failed outcome
// (fingerprint "exception:<type>@harness"), so one bad case cannot take the
// whole cell down. A failure's fingerprint is refined here, for every
// property alike (harness/props/fingerprint.h), and a discard is the
// property's own unless the cell's `subject` itself refused the case.
Outcome check_case(const GateProperty& property, Subject& subject, const TestCase& c,
                   PropertyEnv& env);

}  // namespace serialcheck
