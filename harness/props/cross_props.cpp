// bytes.match-cpython and cross.load: properties that compare a subject with
// the cpython subject (the oracle) and with the reference
// (docs/conformance.md).
#include <fmt/format.h>

#include <algorithm>

#include "harness/props/explain.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"
#include "harness/props/value_tools.h"

namespace serialcheck::props {
namespace {

constexpr const char* kOracle = "cpython";
constexpr const char* kReference = "reference";

Applicability bytes_applies(Subject& subject, PropertyEnv& env) {
  Capabilities caps = subject.capabilities();
  Applicability a;
  if (subject.name() == kOracle) {
    a.skip_reason = "the cpython subject is the oracle of this property";
    return a;
  }
  if (!caps.pickle_format) {
    a.skip_reason = "frame 0 is not a plain pickle stream (no pickle_format)";
    return a;
  }
  if (!caps.cpython_bytes) {
    a.skip_reason = "does not claim byte identity with the C pickler (no cpython_bytes)";
    return a;
  }
  std::string why;
  Subject* oracle = env.subject(kOracle, &why);
  if (oracle == nullptr) {
    a.skip_reason = "needs the cpython subject as the oracle: " + why;
    return a;
  }
  Capabilities oc = oracle->capabilities();
  a.plan.graph_shaped = true;
  a.plan.python_safe = true;
  a.plan.min_protocol = std::max(caps.min_protocol, oc.min_protocol);
  a.plan.max_protocol = std::min(caps.max_protocol, oc.max_protocol);
  a.plan.out_of_band = caps.out_of_band && oc.out_of_band;
  if (a.plan.min_protocol > a.plan.max_protocol) {
    a.skip_reason = "shares no protocol with the cpython subject";
  }
  return a;
}

bool has_unordered_items(const Node* value) {
  for (const Node* n : reachable(value)) {
    if ((n->kind == Kind::Set || n->kind == Kind::FrozenSet) && n->items.size() > 1) return true;
  }
  return false;
}

Outcome bytes_match(Subject& subject, const TestCase& given, PropertyEnv& env) {
  Subject* oracle = env.subject(kOracle, nullptr);
  if (oracle == nullptr) return Outcome::discard("the cpython subject is not available");
  Outcome failed;
  auto expected = dumps_step(*oracle, given, "cpython-dumps", failed);
  // What the oracle cannot pickle says nothing about the subject's bytes.
  if (!expected) return Outcome::discard("the cpython subject cannot pickle this value");
  if (expected->frames.empty()) return Outcome::discard("the cpython subject wrote no frame");

  // A pickle lists set items in the order the set iterates, which for a
  // Python set follows hashes (randomized per process) and insertion
  // history. A generated set's order is arbitrary, so the subject is given
  // the value as CPython held it: the oracle's pickle decoded by the
  // reference, provided that equals the generated value.
  TestCase c = given;
  if (has_unordered_items(given.value)) {
    Subject* reference = env.subject(kReference, nullptr);
    if (reference == nullptr) return Outcome::discard("the reference is not available");
    auto graph = std::make_shared<Graph>();
    Node* held = loads_step(*reference, *expected, *graph, 5, "reference-loads", failed);
    if (held == nullptr || !same_value(given.value, held, true, nullptr)) {
      return Outcome::discard("the reference does not read back the oracle's pickle (cross.load)");
    }
    c.graph = graph;
    c.value = held;
  }
  auto actual = dumps_step(subject, c, "dumps", failed);
  if (!actual) return failed;
  if (actual->frames.empty()) {
    return Outcome::fail("bytes:no-frame", "the subject's message has no frame");
  }
  auto diff =
      diff_pickles(expected->frames[0].view(), actual->frames[0].view(), "cpython", subject.name());
  if (diff.same) return Outcome::pass();
  Outcome o = Outcome::fail("bytes:" + diff.where, diff.summary, diff.explanation);
  o.failing_message = message_to_json(*actual);
  return o;
}

Applicability cross_applies(Subject& subject, PropertyEnv& env) {
  Capabilities caps = subject.capabilities();
  Applicability a;
  if (!caps.pickle_format) {
    a.skip_reason = "frame 0 is not a plain pickle stream (no pickle_format)";
    return a;
  }
  std::string why;
  Subject* oracle = env.subject(kOracle, &why);
  if (subject.name() == kReference && oracle == nullptr) {
    a.skip_reason = "needs the cpython subject to load the reference's pickles: " + why;
    return a;
  }
  if (subject.name() != kReference && env.subject(kReference, &why) == nullptr) {
    a.skip_reason = "needs the reference subject: " + why;
    return a;
  }
  a.plan.graph_shaped = true;
  a.plan.python_safe = oracle != nullptr || caps.python_values;
  a.plan.min_protocol = caps.min_protocol;
  a.plan.max_protocol = caps.max_protocol;
  a.plan.out_of_band = caps.out_of_band;
  if (oracle != nullptr) {
    Capabilities oc = oracle->capabilities();
    a.plan.min_protocol = std::max(a.plan.min_protocol, oc.min_protocol);
    a.plan.max_protocol = std::min(a.plan.max_protocol, oc.max_protocol);
    a.plan.out_of_band = a.plan.out_of_band && oc.out_of_band;
  }
  if (a.plan.min_protocol > a.plan.max_protocol) {
    a.skip_reason = "shares no protocol with the cpython subject";
  }
  return a;
}

Outcome cross_load(Subject& subject, const TestCase& c, PropertyEnv& env) {
  const bool subject_python = through_python(subject);
  Outcome failed;
  auto m = dumps_step(subject, c, "dumps", failed);
  if (!m) return failed;
  Message plain = as_pickle_message(*m, c.protocol);
  const Node* expected = c.value;

  // What the subject writes loads in the reference and in cpython.
  for (const char* loader_name : {kReference, kOracle}) {
    if (subject.name() == loader_name) continue;  // roundtrip.* covers it
    Subject* loader = env.subject(loader_name, nullptr);
    if (loader == nullptr) continue;
    std::string stage = std::string(loader_name) + "-loads";
    Graph graph;
    Node* back = loads_step(*loader, plain, graph, 5, stage, failed);
    if (back == nullptr) return failed;
    Difference d;
    if (!same_value(expected, back, subject_python || through_python(*loader), &d)) {
      Outcome o = mismatch_outcome(d, stage, expected, back, "dumped",
                                   std::string("loaded by ") + loader_name);
      o.failing_message = message_to_json(*m);
      return o;
    }
  }

  // What the reference writes loads in the subject.
  if (subject.name() != kReference) {
    Subject* reference = env.subject(kReference, nullptr);
    if (reference == nullptr) return Outcome::pass();
    auto written = dumps_step(*reference, c, "reference-dumps", failed);
    if (!written) return Outcome::discard("the reference cannot pickle this value");
    Graph graph;
    Node* back = loads_step(subject, *written, graph, 5, "loads-from-reference", failed);
    if (back == nullptr) return failed;
    Difference d;
    if (!same_value(expected, back, subject_python, &d)) {
      Outcome o = mismatch_outcome(d, "loads-from-reference", expected, back, "dumped by reference",
                                   "loaded");
      o.failing_message = message_to_json(*written);
      return o;
    }
  }
  return Outcome::pass();
}

}  // namespace

void add_cross_properties(std::vector<GateProperty>& out) {
  out.push_back({"bytes.match-cpython",
                 "frame 0 is byte-identical to the cpython subject's pickle of the same value",
                 bytes_applies, bytes_match});
  out.push_back({"cross.load",
                 "pickles travel both ways between the subject, the reference and cpython",
                 cross_applies, cross_load});
}

}  // namespace serialcheck::props
