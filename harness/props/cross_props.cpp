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

// The reference subject that stands for the C pickler of the subject's
// CPython version, when that version is not the oracle's: "reference@3.7"
// for a 3.7 subject beside a 3.11 oracle. Empty when the oracle is the
// comparison (the same version, 3.11, or a subject without one); "?" when
// no target covers the subject's version.
std::string versioned_writer(const Capabilities& caps, PropertyEnv& env) {
  if (caps.python_version.empty()) return {};
  Subject* oracle = env.subject(kOracle, nullptr);
  if (oracle != nullptr &&
      minor_version(oracle->capabilities().python_version) == minor_version(caps.python_version)) {
    return {};
  }
  const std::string writer = reference_at(caps.python_version);
  if (writer == kReference) return {};  // 3.11, the embedded oracle's version
  return writer.empty() ? "?" : writer;
}

Applicability bytes_applies(Subject& subject, PropertyEnv& env) {
  Capabilities caps = subject.capabilities();
  Applicability a;
  if (env.subject(kOracle, nullptr) == &subject) return skip(kIsTheOracle);
  if (!caps.pickle_format) return skip(kNoPickleFormat);
  if (!caps.cpython_bytes)
    return skip("does not claim byte identity with the C pickler (no cpython_bytes)");
  std::string why;
  if (const std::string writer = versioned_writer(caps, env); !writer.empty()) {
    // Another version than the oracle's: its C pickler is the reference at
    // that version's target.
    if (writer == "?") {
      return skip("its Python " + caps.python_version +
                  " is not the cpython subject's, and no reference target covers it (3.6 to "
                  "3.15)");
    }
    if (writer == subject.name()) return skip("is " + writer + ", the comparison itself");
    Subject* at = env.subject(writer, &why);
    if (at == nullptr)
      return skip("needs " + writer + " for Python " + caps.python_version + ": " + why);
    Capabilities wc = at->capabilities();
    a.plan.graph_shaped = true;
    a.plan.python_safe = true;
    // Fixture objects reduce in the subject's own interpreter, which the
    // reference's stand-ins (reduced by the embedded 3.11) need not match.
    a.plan.python_objects = false;
    // Arrays where both write them; never tensors (see below).
    a.plan.ndarrays = takes_kind(caps, "ndarray") && takes_kind(wc, "ndarray");
    a.plan.min_protocol = std::max(caps.min_protocol, wc.min_protocol);
    a.plan.max_protocol = std::min(caps.max_protocol, wc.max_protocol);
    a.plan.out_of_band = caps.out_of_band && wc.out_of_band;
    if (a.plan.min_protocol > a.plan.max_protocol)
      a.skip_reason = "shares no protocol with " + writer;
    return a;
  }
  Subject* oracle = env.subject(kOracle, &why);
  if (oracle == nullptr) return skip("needs the cpython subject as the oracle: " + why);
  Capabilities oc = oracle->capabilities();
  a.plan.graph_shaped = true;
  a.plan.python_safe = true;
  // Objects of the fixtures module: the subject gets what the real object
  // reduces to at the case's protocol, the oracle pickles the real object.
  a.plan.python_objects =
      oc.python_values && (caps.python_values || env.subject(kReference, nullptr) == &subject);
  // numpy's reduce of an array is deterministic, so arrays are compared byte
  // for byte; a tensor's is not (docs/conformance.md, bytes.match-cpython).
  a.plan.ndarrays = takes_kind(caps, "ndarray") && takes_kind(oc, "ndarray");
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

// Drops what one load recorded beside the value: the memory supplied for
// out-of-band buffers, which strs were the interned names of globals, and
// which objects came from INST or OBJ (CPython never writes those, so the
// oracle's pickle has none today). The subject is asked to write the value,
// and a testee's JSON reader need not know those marks (docs/value-json.md:
// equality ignores them).
void forget_load_marks(Graph& graph) {
  for (std::size_t i = 0; i < graph.size(); ++i) {
    Node& n = graph.node(i);
    n.supplied = Supplied::None;
    if (n.kind == Kind::Str || n.kind == Kind::Object) n.flag = false;
  }
}

// A frame 0 that differs from the expected one still passes when the only
// difference is the order of its sets' items, which is the writer's own (its
// str hashes): `rewriter`, byte identical to the C pickler it stands for,
// reads the subject's pickle back to `given` and, writing what it read,
// writes the subject's bytes. Below protocol 4 a nested name is written as
// getattr(parent, name), which the rewriter reads as that call; it is made a
// global again (`scope`) before it is written.
Outcome judge_bytes(const ByteDiff& diff, const Message& actual, const TestCase& c,
                    const Node* given, Subject* rewriter, GetattrScope scope) {
  if (diff.same) return Outcome::pass();
  if (rewriter != nullptr && has_unordered_items(given)) {
    Graph graph;
    Outcome ignored;
    Message plain = as_pickle_message(actual, c.protocol);
    Node* held = loads_step(*rewriter, plain, graph, 5, "reference-loads", ignored);
    if (held != nullptr && same_value(given, held, true, nullptr)) {
      TestCase own = c;
      own.value = held;
      Graph named;
      if (c.protocol < 4) own.value = getattr_as_globals(held, named, scope);
      auto rewritten = dumps_step(*rewriter, own, "reference-dumps", ignored);
      if (rewritten && !rewritten->frames.empty() &&
          rewritten->frames[0].view() == actual.frames[0].view()) {
        return Outcome::pass();
      }
    }
  }
  Outcome o = Outcome::fail("bytes:" + diff.where, diff.summary, diff.explanation);
  o.failing_message = message_to_json(actual);
  return o;
}

// bytes.match-cpython for a subject of another version than the oracle's:
// its frame 0 against the reference at that version's target. A set's
// order is the subject's own (its str hashes), so a difference stands only
// when the reference, given the value as the subject held it, writes other
// bytes than the subject did.
Outcome bytes_match_version(Subject& subject, const TestCase& c, PropertyEnv& env,
                            const std::string& writer) {
  Subject* at = env.subject(writer, nullptr);
  if (at == nullptr) return Outcome::discard(writer + " is not available");
  Outcome failed;
  auto expected = dumps_step(*at, c, "reference-dumps", failed);
  if (!expected) return Outcome::discard(writer + " cannot pickle this value");
  if (expected->frames.empty()) return Outcome::discard(writer + " wrote no frame");
  auto actual = dumps_step(subject, c, "dumps", failed);
  if (!actual) return failed;
  if (actual->frames.empty()) {
    return Outcome::fail("bytes:no-frame", "the subject's message has no frame");
  }
  auto diff =
      diff_pickles(expected->frames[0].view(), actual->frames[0].view(), writer, subject.name());
  return judge_bytes(diff, *actual, c, c.value, at,
                     nested_name_scope(subject.capabilities().python_version));
}

Outcome bytes_match(Subject& subject, const TestCase& given, PropertyEnv& env) {
  if (const std::string writer = versioned_writer(subject.capabilities(), env);
      !writer.empty() && writer != "?") {
    return bytes_match_version(subject, given, env, writer);
  }
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
    // The subject is given the value as the reference reads the oracle's
    // pickle, whose strided arrays come back contiguous.
    if (given.protocol >= 5 && holds_strided_array(given.value)) {
      return Outcome::discard(kStridedArrayAt5);
    }
    Subject* reference = env.subject(kReference, nullptr);
    if (reference == nullptr) return Outcome::discard("the reference is not available");
    auto graph = std::make_shared<Graph>();
    Node* held = loads_step(*reference, *expected, *graph, 5, "reference-loads", failed);
    if (held == nullptr || !same_value(given.value, held, true, nullptr)) {
      return Outcome::discard("the reference does not read back the oracle's pickle (cross.load)");
    }
    forget_load_marks(*graph);
    c.graph = graph;
    c.value = held;
    // Below protocol 4 CPython writes a nested name as getattr(parent,
    // name), which the reference reads as that call: CPython held the
    // global it names.
    if (c.protocol < 4) {
      auto named = std::make_shared<Graph>();
      const Node* value = getattr_as_globals(held, *named, GetattrScope::ClassPositions);
      if (value != held) {
        c.graph = named;
        c.value = value;
      }
    }
  }
  auto actual = dumps_step(subject, c, "dumps", failed);
  if (!actual) return failed;
  if (actual->frames.empty()) {
    return Outcome::fail("bytes:no-frame", "the subject's message has no frame");
  }
  auto diff =
      diff_pickles(expected->frames[0].view(), actual->frames[0].view(), "cpython", subject.name());
  // A subject in another process builds its sets itself, and iterates them
  // in the order of its own string hashes: the order given cannot reach it.
  // The reference is byte identical to the C pickler (checked against the
  // oracle above), so it says what the C pickler writes for that order.
  return judge_bytes(diff, *actual, c, given.value, env.subject(kReference, nullptr),
                     GetattrScope::ClassPositions);
}

Applicability cross_applies(Subject& subject, PropertyEnv& env) {
  Capabilities caps = subject.capabilities();
  Applicability a;
  if (!caps.pickle_format) return skip(kNoPickleFormat);
  std::string why;
  Subject* oracle = env.subject(kOracle, &why);
  Subject* reference = env.subject(kReference, &why);
  const bool is_reference = reference == &subject;
  if (is_reference && oracle == nullptr)
    return skip("needs the cpython subject to load the reference's pickles: " + why);
  if (!is_reference && reference == nullptr) return skip("needs the reference subject: " + why);
  a.plan.graph_shaped = true;
  a.plan.python_safe = oracle != nullptr || caps.python_values;
  a.plan.python_objects = oracle != nullptr && oracle->capabilities().python_values &&
                          (caps.python_values || is_reference);
  // Arrays and tensors where the subject and cpython (when there is one) take them.
  const Capabilities oracle_caps = oracle != nullptr ? oracle->capabilities() : Capabilities{};
  a.plan.ndarrays = takes_kind(caps, "ndarray") && takes_kind(oracle_caps, "ndarray");
  a.plan.tensors = takes_kind(caps, "tensor") && takes_kind(oracle_caps, "tensor");
  // A subject that only reads gets the reference's pickles at the protocols
  // it reads; one that writes, its own at the protocols it writes.
  a.plan.min_protocol = caps.can_dump ? caps.min_protocol : caps.read_min();
  a.plan.max_protocol = caps.can_dump ? caps.max_protocol : caps.read_max();
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
  const Capabilities caps = subject.capabilities();
  const bool subject_python = through_python(subject);
  Subject* reference = env.subject(kReference, nullptr);
  Outcome failed;
  const Node* expected = c.value;

  // What the subject writes loads in the reference and in cpython.
  if (caps.can_dump) {
    auto m = dumps_step(subject, c, "dumps", failed);
    if (!m) return failed;
    Message plain = as_pickle_message(*m, c.protocol);
    for (const char* loader_name : {kReference, kOracle}) {
      Subject* loader = env.subject(loader_name, nullptr);
      if (loader == nullptr || loader == &subject) continue;  // roundtrip.* covers itself
      std::string stage = std::string(loader_name) + "-loads";
      Graph graph;
      Node* back = loads_step(*loader, plain, graph, 5, stage, failed);
      if (back == nullptr) return failed;
      Difference d;
      if (!same_value(expected, back, subject_python || through_python(*loader), &d, {},
                      fidelity(subject))) {
        Outcome o = mismatch_outcome(d, stage, expected, back, "dumped",
                                     std::string("loaded by ") + loader_name);
        o.failing_message = message_to_json(*m);
        return o;
      }
    }
  }

  // What the reference writes loads in the subject.
  if (caps.can_load && reference != nullptr && reference != &subject) {
    if (c.protocol < caps.read_min() || c.protocol > caps.read_max()) return Outcome::pass();
    auto written = dumps_step(*reference, c, "reference-dumps", failed);
    if (!written) return Outcome::discard("the reference cannot pickle this value");
    Graph graph;
    Node* back = loads_step(subject, *written, graph, 5, "loads-from-reference", failed);
    if (back == nullptr) return failed;
    Difference d;
    if (!same_value(expected, back, subject_python, &d, {}, fidelity(subject))) {
      Outcome o = mismatch_outcome(d, "loads-from-reference", expected, back, "dumped by reference",
                                   "loaded");
      o.failing_message = message_to_json(*written);
      return o;
    }
  }
  return Outcome::pass();
}

// Whether the arbiter (the reference, or cpython where the consumer is the
// reference) reads the producer's pickle back to the case's value: a pickle
// the producer gets wrong says nothing about the consumer, and the
// producer's own cross.load cell charges it. True where there is no arbiter
// apart from the producer.
bool arbiter_reads_back(Subject& consumer, Subject& producer, const Message& plain,
                        const TestCase& c, PropertyEnv& env, bool python) {
  Subject* arbiter = env.subject(kReference, nullptr);
  if (arbiter == &consumer) arbiter = env.subject(kOracle, nullptr);
  if (arbiter == nullptr || arbiter == &producer) return true;
  Graph graph;
  Outcome ignored;
  Node* back = loads_step(*arbiter, plain, graph, 5, "arbiter-loads", ignored);
  return back != nullptr && same_value(c.value, back, python || through_python(*arbiter), nullptr,
                                       {}, fidelity(producer));
}

// A value Python 2 cannot hold as written: discarded where a side is 2.7.
constexpr const char* kPython2MergesKeys =
    "a str key and an ASCII bytes key with the same text, one key in Python 2 (unicode and str "
    "compare equal): the value's business";

// cross.matrix/<producer>, checked on a consumer: the producer dumps, the
// consumer loads. A pickle the producer gets wrong (the arbiter, the
// reference or for the reference cpython, does not read it back equal) says
// nothing about the consumer, so such a case is discarded: the producer's
// own cross.load cell charges it.
Applicability matrix_applies(Subject& consumer, PropertyEnv& env,
                             const std::string& producer_name) {
  Applicability a;
  std::string why;
  Subject* producer = env.subject(producer_name, &why);
  if (producer == nullptr) return skip("the producer " + producer_name + " is " + why);
  if (producer == &consumer) return skip("a subject's own pickles are roundtrip.*'s business");
  Capabilities pc = producer->capabilities();
  Capabilities cc = consumer.capabilities();
  if (!pc.can_dump) return skip("the producer " + producer_name + " does not write pickles");
  if (!pc.pickle_format || !cc.pickle_format)
    return skip("frame 0 of one side is not a plain pickle stream (no pickle_format)");
  a.plan.python_safe = true;
  a.plan.graph_shaped = !pc.loses("sharing") && !cc.loses("sharing");
  a.plan.ndarrays = takes_kind(pc, "ndarray") && takes_kind(cc, "ndarray");
  a.plan.tensors = takes_kind(pc, "tensor") && takes_kind(cc, "tensor");
  // Every protocol the producer writes from the consumer's lowest: one the
  // consumer does not read (a 3.14 writer's 5 sent to a 3.7 reader) must be
  // refused by name, which a stream can only carry from protocol 2 (PROTO).
  int lowest = std::max(pc.min_protocol, cc.read_min());
  if (lowest > std::min(pc.max_protocol, cc.read_max())) {
    lowest = std::max({pc.min_protocol, cc.read_max() + 1, 2});
  }
  a.plan.min_protocol = lowest;
  a.plan.max_protocol = pc.max_protocol;
  a.plan.favoured_protocol = pc.default_protocol;
  a.plan.out_of_band = pc.out_of_band && cc.out_of_band;
  if (a.plan.min_protocol > a.plan.max_protocol) {
    a.skip_reason = "the consumer reads none of the protocols " + producer_name + " writes";
  }
  return a;
}

Outcome matrix_check(Subject& consumer, const TestCase& c, PropertyEnv& env,
                     const std::string& producer_name) {
  Subject* producer = env.subject(producer_name, nullptr);
  if (producer == nullptr) return Outcome::discard("the producer is not available");
  Outcome failed;
  if ((is_python2(consumer) || is_python2(*producer)) && python2_merges_keys(c.value)) {
    return Outcome::discard(kPython2MergesKeys);
  }
  auto m = dumps_step(*producer, c, "producer-dumps", failed);
  if (!m) return Outcome::discard("the producer " + producer_name + " cannot pickle this value");
  Message plain = as_pickle_message(*m, c.protocol);
  const std::vector<std::string> lost = fidelity(consumer, producer);
  const bool python = through_python(consumer) || through_python(*producer);

  if (!arbiter_reads_back(consumer, *producer, plain, c, env, python)) {
    return Outcome::discard("the arbiter does not read the producer's pickle back equal");
  }
  // A protocol above what the consumer reads: the load must fail naming
  // the protocol (or, where the consumer reads more than it claims, give
  // the value back), never give a wrong value.
  const bool above = c.protocol > consumer.capabilities().read_max();
  if (above && c.protocol < 2) return Outcome::discard("no PROTO opcode below protocol 2");
  Graph graph;
  Node* back = nullptr;
  if (above) {
    try {
      back = consumer.loads(plain, graph, LoadOptions{});
    } catch (const std::exception& e) {
      if (const auto* se = dynamic_cast<const SubjectError*>(&e);
          se != nullptr && se->kind() == kUnsupported) {
        return Outcome::unsupported(consumer.name(), e.what());
      }
      if (names_number(e.what(), c.protocol)) return Outcome::pass();
      Outcome o = Outcome::fail(
          "protocol:no-clue",
          fmt::format("loading {}'s protocol-{} pickle (the consumer reads up to {}) failed "
                      "without naming protocol {}: {}",
                      producer_name, c.protocol, consumer.capabilities().read_max(), c.protocol,
                      e.what()));
      o.failing_message = message_to_json(plain);
      return o;
    }
    if (back == nullptr) return Outcome::fail("exception:no-value@loads", "loads returned nothing");
  } else {
    back = loads_step(consumer, plain, graph, 5, "loads", failed);
    if (back == nullptr) return failed;
  }
  Difference d;
  if (!same_value(c.value, back, python, &d, {}, lost)) {
    Outcome o = mismatch_outcome(d, "loads", c.value, back, "dumped by " + producer_name,
                                 "loaded by " + consumer.name());
    if (above) {
      o.fingerprint = "protocol:wrong-value";
      o.message = fmt::format(
          "a protocol-{} pickle, above the {} the consumer reads, loaded to a "
          "wrong value: {}",
          c.protocol, consumer.capabilities().read_max(), o.message);
    }
    o.failing_message = message_to_json(plain);
    return o;
  }
  return Outcome::pass();
}

// protocol.negotiated/<producer>, checked on a consumer that reads fewer
// protocols than the producer writes (an older Python; a reader of protocols
// 0 to 2): the two negotiate the highest protocol both know from what their
// hellos say, the producer writes at it, and the consumer must read it. The
// simulated peer of protocol.negotiated, with a real one.
Applicability negotiated_pair_applies(Subject& consumer, PropertyEnv& env,
                                      const std::string& producer_name) {
  std::string why;
  Subject* producer = env.subject(producer_name, &why);
  if (producer == nullptr) return skip("the producer " + producer_name + " is " + why);
  if (producer == &consumer) return skip("a subject negotiates with others, not with itself");
  Capabilities pc = producer->capabilities();
  Capabilities cc = consumer.capabilities();
  if (!pc.can_dump) return skip("the producer " + producer_name + " does not write pickles");
  if (!pc.pickle_format || !cc.pickle_format)
    return skip("frame 0 of one side is not a plain pickle stream (no pickle_format)");
  if (pc.max_protocol <= cc.read_max()) {
    return skip(fmt::format("reads every protocol {} writes (up to {}): nothing to negotiate",
                            producer_name, pc.max_protocol));
  }
  const int agreed = cc.read_max();
  if (agreed < pc.min_protocol || agreed < cc.read_min()) {
    return skip("shares no protocol with " + producer_name);
  }
  Applicability a;
  a.plan.python_safe = true;
  a.plan.graph_shaped = !pc.loses("sharing") && !cc.loses("sharing");
  a.plan.min_protocol = agreed;
  a.plan.max_protocol = agreed;
  a.plan.out_of_band = false;  // below protocol 5 every buffer is in band
  return a;
}

Outcome negotiated_pair_check(Subject& consumer, const TestCase& c, PropertyEnv& env,
                              const std::string& producer_name) {
  Subject* producer = env.subject(producer_name, nullptr);
  if (producer == nullptr) return Outcome::discard("the producer is not available");
  const int agreed = c.protocol;
  if ((is_python2(consumer) || is_python2(*producer)) && python2_merges_keys(c.value)) {
    return Outcome::discard(kPython2MergesKeys);
  }
  Outcome failed;
  auto m = dumps_step(*producer, c, "producer-dumps", failed);
  if (!m) return Outcome::discard("the producer " + producer_name + " cannot pickle this value");
  Message plain = as_pickle_message(*m, agreed);
  const std::string_view frame0 =
      plain.frames.empty() ? std::string_view() : plain.frames[0].view();
  const int written = frame0.size() >= 2 && static_cast<unsigned char>(frame0[0]) == 0x80
                          ? static_cast<unsigned char>(frame0[1])
                          : 0;
  if (written > agreed) {
    Outcome o = Outcome::fail(
        "negotiate:protocol",
        fmt::format("{} wrote protocol {} for a reader that announced it reads up to {}",
                    producer_name, written, agreed));
    o.failing_message = message_to_json(plain);
    return o;
  }
  const bool python = through_python(consumer) || through_python(*producer);
  // A pickle the producer gets wrong says nothing about the negotiation.
  if (!arbiter_reads_back(consumer, *producer, plain, c, env, python)) {
    return Outcome::discard("the arbiter does not read the producer's pickle back equal");
  }
  // An error that names the protocol refuses the protocol the reader
  // announced; any other is the reader's error with this value, charged as
  // cross.matrix charges it (exception:<kind>@loads), so that one defect
  // has one fingerprint in both.
  Graph graph;
  Node* back = loads_step(consumer, plain, graph, 5, "loads", failed);
  if (back == nullptr) {
    if (failed.failed() && names_number(failed.message, agreed) &&
        failed.message.find("protocol") != std::string::npos) {
      Outcome o = Outcome::fail(
          "negotiate:refused",
          fmt::format("the consumer announced it reads up to protocol {}, and refused {}'s "
                      "protocol-{} pickle: {}",
                      agreed, producer_name, agreed, failed.message));
      o.failing_message = message_to_json(plain);
      return o;
    }
    return failed;
  }
  Difference d;
  if (!same_value(c.value, back, python, &d, {}, fidelity(consumer, producer))) {
    Outcome o = mismatch_outcome(d, "loads", c.value, back, "dumped by " + producer_name,
                                 "loaded by " + consumer.name());
    o.failing_message = message_to_json(plain);
    return o;
  }
  return Outcome::pass();
}

// The array control of bytes.match-cpython, cross.load and cross.matrix:
// a codec that is wrong the same way both ways, which its own round trip
// cannot see.
constexpr const char* kFlipsArrayByteorder =
    "writes each array of items wider than a byte with the other byte order in its dtype ('<f8' "
    "as '>f8') over the same bytes, and reads arrays back the same way: its own pickles "
    "round-trip, numpy reads other numbers from them";

}  // namespace

void add_cross_properties(Registry& out) {
  add(out, 30,
      {"bytes.match-cpython",
       "frame 0 is byte-identical to the cpython subject's pickle of the same value", bytes_applies,
       bytes_match},
      {control("drops-frame",
               "writes protocol 4 and 5 pickles without their FRAME opcode (still valid pickles)",
               "bytes:"),
       control("claims-3.6",
               "says it is CPython 3.6 (python_version 3.6.15) but writes 3.11's bytes: INT "
               "where 3.6 writes LONG at protocol 0, no FRAME around a short pickle",
               "bytes:"),
       control("flips-array-byteorder", kFlipsArrayByteorder, "bytes:")});
  add(out, 40,
      {"cross.load", "pickles travel both ways between the subject, the reference and cpython",
       cross_applies, cross_load, /*needs_dumps=*/false, /*needs_loads=*/false},
      {{.mutant = "negates-ints",
        .bug =
            "writes every int negated and negates every int it reads: its own pickles round-trip, "
            "nobody else's do",
        .fingerprint_prefix = "mismatch:"},
       control("flips-array-byteorder", kFlipsArrayByteorder, "mismatch:")});
}

GateProperty matrix_property(const std::string& producer) {
  GateProperty p;
  p.id = std::string(kMatrixPrefix) + producer;
  p.summary = "what " + producer + " dumps, the subject loads to an equal value";
  p.applies = [producer](Subject& s, PropertyEnv& env) { return matrix_applies(s, env, producer); };
  p.check = [producer](Subject& s, const TestCase& c, PropertyEnv& env) {
    return matrix_check(s, c, env, producer);
  };
  p.needs_dumps = false;
  p.controls = {control("negates-ints",
                        "as for cross.load: reads every int of another producer's pickle negated",
                        "mismatch:"),
                control("refuses-5-without-naming-it",
                        "reads protocols 0-4 and refuses a protocol-5 pickle with an error that "
                        "does not say which protocol",
                        "protocol:no-clue"),
                control("flips-array-byteorder",
                        "as for cross.load: reads another producer's arrays with the other byte "
                        "order",
                        "mismatch:")};
  return p;
}

GateProperty negotiated_pair_property(const std::string& producer) {
  GateProperty p;
  p.id = std::string(kNegotiatedPrefix) + producer;
  p.summary = "what " + producer +
              " writes at the highest protocol the subject announces it reads (when that is "
              "below the producer's highest), the subject loads to an equal value";
  p.applies = [producer](Subject& s, PropertyEnv& env) {
    return negotiated_pair_applies(s, env, producer);
  };
  p.check = [producer](Subject& s, const TestCase& c, PropertyEnv& env) {
    return negotiated_pair_check(s, c, env, producer);
  };
  p.needs_dumps = false;
  p.controls = {control("claims-protocol-4-reads-3",
                        "announces in its hello that it reads protocols 0-4, and refuses protocol "
                        "4 as one it does not know",
                        "negotiate:refused")};
  return p;
}

}  // namespace serialcheck::props
