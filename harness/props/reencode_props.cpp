// bytes.reencode: the reference reads what a subject's C pickler wrote and
// writes the value again to the same bytes (docs/conformance.md), at the
// target of the subject's CPython version (reference@3.X).
#include <algorithm>

#include "harness/props/explain.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"
#include "harness/props/value_tools.h"

namespace serialcheck::props {
namespace {

Applicability reencode_applies(Subject& subject, PropertyEnv& env) {
  Capabilities caps = subject.capabilities();
  Applicability a;
  if (!caps.pickle_format) return skip(kNoPickleFormat);
  if (!caps.cpython_bytes && !caps.c_pickler)
    return skip(
        "its pickles are not written by CPython's C pickler (neither cpython_bytes nor c_pickler)");
  // A subject that is (or writes as) another CPython version is written
  // again by the reference at that version's target.
  const std::string writer = reference_at(caps.python_version);
  if (writer.empty()) {
    return skip("no reference target covers Python " + caps.python_version +
                " (the targets are 3.6 to 3.15)");
  }
  std::string why;
  Subject* reference = env.subject(writer, &why);
  if (reference == nullptr) return skip("needs the subject " + writer + ": " + why);
  // The reference itself gets the objects of the fixtures module as they
  // reduce, where the cpython subject can build them.
  Subject* oracle = env.subject(kOracle, nullptr);
  a.plan.graph_shaped = true;
  a.plan.python_safe = true;
  a.plan.python_objects =
      caps.python_values ||
      (reference == &subject && oracle != nullptr && oracle->capabilities().python_values);
  // numpy's reduce of an array is deterministic; a tensor's pickle names its
  // storage by an address, which no second writer repeats
  // (docs/conformance.md, bytes.reencode): arrays only.
  a.plan.ndarrays = takes_kind(caps, "ndarray");
  a.plan.min_protocol = caps.min_protocol;
  a.plan.max_protocol = std::min(caps.max_protocol, reference->capabilities().max_protocol);
  a.plan.out_of_band = caps.out_of_band;
  if (a.plan.min_protocol > a.plan.max_protocol) {
    a.skip_reason = "shares no protocol with " + writer;
  }
  return a;
}

Outcome reencode(Subject& subject, const TestCase& c, PropertyEnv& env) {
  Subject* reference = env.subject(reference_at(subject.capabilities().python_version), nullptr);
  if (reference == nullptr) return Outcome::discard("the reference is not available");
  if (c.protocol >= 5 && holds_strided_array(c.value)) return Outcome::discard(kStridedArrayAt5);
  Outcome failed;
  auto written = dumps_step(subject, c, "dumps", failed);
  if (!written) return failed;
  if (written->frames.empty()) {
    return Outcome::fail("bytes:no-frame", "the subject's message has no frame");
  }
  Message plain = as_pickle_message(*written, c.protocol);
  TestCase again = c;
  again.graph = std::make_shared<Graph>();
  // A stream the reference cannot read fails here: it is the C pickler's.
  again.value = loads_step(*reference, plain, *again.graph, 5, "reference-loads", failed);
  if (again.value == nullptr) return failed;
  // Below protocol 4 the C pickler writes a nested name (a class Outer.Inner)
  // as getattr(Outer, 'Inner'), which the reference reads as that call. The
  // reference writes the global it stands for in the same form, and only the
  // global can be what copyreg.__newobj__ or NEWOBJ calls.
  Graph named;
  if (c.protocol < 4) {
    again.value = getattr_as_globals(again.value, named,
                                     nested_name_scope(subject.capabilities().python_version));
  }
  auto rewritten = dumps_step(*reference, again, "reference-dumps", failed);
  if (!rewritten) return failed;
  if (rewritten->frames.empty()) {
    return Outcome::fail("reencode:no-frame", "the reference's message has no frame");
  }
  auto diff = diff_pickles(written->frames[0].view(), rewritten->frames[0].view(), subject.name(),
                           "reference");
  if (diff.same) return Outcome::pass();
  Outcome o = Outcome::fail("reencode:" + diff.where, diff.summary, diff.explanation);
  o.failing_message = message_to_json(*written);
  return o;
}

}  // namespace

void add_reencode_properties(Registry& out) {
  add(out, 35,
      {"bytes.reencode",
       "the reference reads the subject's C-pickler stream and writes it again to the "
       "same bytes",
       reencode_applies, reencode, /*needs_dumps=*/true, /*needs_loads=*/false},
      {peer_control(
           "loses-sharing", "reference",
           "a reference stand-in that reads a container or string reached twice as two objects, so "
           "it writes the second as a copy where the stream had a memo reference",
           "reencode:"),
       control("claims-3.6",
               "says it is CPython 3.6 (python_version 3.6.15) but writes 3.11's bytes: INT "
               "where 3.6 writes LONG at protocol 0, no FRAME around a short pickle",
               "reencode:")});
}

}  // namespace serialcheck::props
