// roundtrip.equal, roundtrip.identity, protocol.mismatch and loads.pure:
// properties a subject has on its own (docs/conformance.md).
#include <fmt/format.h>

#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"

namespace serialcheck::props {
namespace {

CasePlan own_plan(const Capabilities& caps, bool graph_shaped) {
  CasePlan plan = subject_plan(caps);
  plan.graph_shaped = graph_shaped;
  plan.python_objects = caps.python_values;
  return plan;
}

// A subject that cannot dump a value the reference cannot dump either is
// outside the model's domain at that protocol: the case is discarded.
bool reference_refuses(const TestCase& c, PropertyEnv& env, const Subject& subject) {
  Subject* reference = env.subject("reference", nullptr);
  if (reference == nullptr || reference == &subject) return false;
  DumpOptions options{c.protocol, c.out_of_band};
  try {
    reference->dumps(c.value, options);
    return false;
  } catch (const std::exception&) {
    return true;
  }
}

Outcome roundtrip(Subject& subject, const TestCase& c, PropertyEnv& env) {
  Outcome failed;
  auto m = dumps_step(subject, c, "dumps", failed);
  if (!m) {
    if (reference_refuses(c, env, subject)) {
      return Outcome::discard("the reference cannot pickle this value at this protocol either");
    }
    return failed;
  }
  Graph graph;
  Node* back = loads_step(subject, *m, graph, 5, "loads", failed);
  if (back == nullptr) return failed;
  const Node* expected = c.value;
  Difference d;
  if (!same_value(expected, back, through_python(subject), &d, {}, fidelity(subject))) {
    Outcome o = mismatch_outcome(d, "", expected, back, "dumped", "loaded");
    o.failing_message = message_to_json(*m);
    return o;
  }
  return Outcome::pass();
}

Applicability roundtrip_applies(Subject& subject, bool graph_shaped) {
  return {"", own_plan(subject.capabilities(), graph_shaped)};
}

Applicability mismatch_applies(Subject& subject) {
  Capabilities caps = subject.capabilities();
  Applicability a;
  a.plan = own_plan(caps, false);
  a.plan.out_of_band = false;
  if (caps.limit_loader) {
    a.plan.min_protocol = std::max(2, caps.min_protocol);
    a.plan.lower_loader = true;
    if (caps.max_protocol < 2) {
      a.skip_reason = "writes no protocol with a PROTO opcode (needs protocol 2 or more)";
    }
    return a;
  }
  if (!caps.pickle_format) {
    a.skip_reason =
        "loads() ignores a protocol limit (no limit_loader) and frame 0 is not a "
        "plain pickle whose PROTO byte could be rewritten (no pickle_format)";
  } else if (caps.max_protocol < 5) {
    a.skip_reason =
        "loads() ignores a protocol limit (no limit_loader) and the subject cannot "
        "write protocol 5 to rewrite as 6";
  }
  a.plan.min_protocol = 5;
  a.plan.max_protocol = 5;
  return a;
}

Outcome judge_refusal(Subject& subject, const Message& m, int stream_protocol, int max_protocol,
                      std::string_view what) {
  try {
    Graph graph;
    LoadOptions options;
    options.max_protocol = max_protocol;
    subject.loads(m, graph, options);
  } catch (const std::exception& e) {
    std::string text = e.what();
    if (names_number(text, stream_protocol)) return Outcome::pass();
    Outcome o = Outcome::fail(
        "protocol:no-clue",
        fmt::format("{} failed without naming protocol {}: {}", what, stream_protocol, text));
    o.failing_message = message_to_json(m);
    return o;
  }
  Outcome o = Outcome::fail("protocol:accepted",
                            fmt::format("{} returned a value instead of failing", what));
  o.failing_message = message_to_json(m);
  return o;
}

Outcome protocol_mismatch(Subject& subject, const TestCase& c, PropertyEnv&) {
  Outcome failed;
  auto m = dumps_step(subject, c, "dumps", failed);
  if (!m) return failed;
  if (subject.capabilities().limit_loader) {
    return judge_refusal(subject, *m, c.protocol, c.max_protocol,
                         fmt::format("loading a protocol-{} stream with max_protocol {}",
                                     c.protocol, c.max_protocol));
  }
  Message changed = owned_copy(*m);
  if (changed.frames.empty() || changed.frames[0].size < 2 || changed.frames[0].data[0] != 0x80 ||
      changed.frames[0].data[1] != 5) {
    Outcome o =
        Outcome::fail("protocol:no-proto-opcode", "a protocol-5 dump does not start with PROTO 5");
    o.failing_message = message_to_json(*m);
    return o;
  }
  std::string bytes(changed.frames[0].view());
  bytes[1] = 6;
  changed.frames[0] = Frame::owned(std::move(bytes), changed.frames[0].readonly);
  return judge_refusal(subject, changed, 6, 5,
                       "loading a protocol-5 stream whose PROTO byte was changed to 6");
}

Outcome loads_pure(Subject& subject, const TestCase& c, PropertyEnv&) {
  Outcome failed;
  auto m = dumps_step(subject, c, "dumps", failed);
  if (!m) return failed;
  const std::uint64_t before = message_hash(*m);
  Graph first_graph;
  Node* first = loads_step(subject, *m, first_graph, 5, "loads", failed);
  if (first == nullptr) return failed;
  std::uint64_t after = message_hash(*m);
  if (after != before) {
    Outcome o = Outcome::fail("impure:message-modified",
                              fmt::format("the first loads() changed the message (hash {:016x} -> "
                                          "{:016x})",
                                          before, after));
    o.failing_message = message_to_json(*m);
    return o;
  }
  Graph second_graph;
  Node* second = loads_step(subject, *m, second_graph, 5, "second-loads", failed);
  if (second == nullptr) return failed;
  after = message_hash(*m);
  if (after != before) {
    Outcome o = Outcome::fail("impure:message-modified", "the second loads() changed the message");
    o.failing_message = message_to_json(*m);
    return o;
  }
  Difference d;
  if (!same_value(first, second, through_python(subject), &d, {}, fidelity(subject))) {
    Outcome o = mismatch_outcome(d, "", first, second, "first load", "second load");
    o.fingerprint = "impure:unstable";
    o.message = "loading the same message twice gave different values: " + o.message;
    o.failing_message = message_to_json(*m);
    return o;
  }
  return Outcome::pass();
}

}  // namespace

void add_own_properties(Registry& out) {
  add(out, 10,
      {"roundtrip.equal", "tree-shaped values: loads(dumps(v)) equals v",
       [](Subject& s, PropertyEnv&) { return roundtrip_applies(s, false); }, roundtrip},
      {control("tuples-as-lists", "loads every tuple as a list", "mismatch:")});
  add(out, 20,
      {"roundtrip.identity", "values with shared references and cycles: sharing and cycles survive",
       [](Subject& s, PropertyEnv&) { return roundtrip_applies(s, true); }, roundtrip,
       /*needs_dumps=*/true, /*needs_loads=*/true, /*needs_sharing=*/true},
      {control("loses-sharing",
               "loads a container or string reached twice as two objects (a memo that copies)",
               "mismatch:")});
  add(out, 50,
      {"protocol.mismatch",
       "a stream above the loader's protocol fails with an error naming the protocol",
       [](Subject& s, PropertyEnv&) { return mismatch_applies(s); }, protocol_mismatch},
      {control("ignores-protocol-limit",
               "loads streams above the loader's max_protocol instead of failing",
               "protocol:accepted")});
  add(out, 60,
      {"loads.pure", "loads() never modifies the message; loading twice gives equal values",
       [](Subject& s, PropertyEnv&) {
         return Applicability{"", own_plan(s.capabilities(), true)};
       },
       loads_pure},
      {{.mutant = "unstable-second-load",
        .bug =
            "keeps state between loads: loading the same message again wraps the value in a tuple",
        .fingerprint_prefix = "impure:unstable"}});
}

}  // namespace serialcheck::props
