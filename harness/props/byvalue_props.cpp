// callable.by-value (docs/conformance.md): a function or class defined at
// run time, dumped by a subject that pickles callables by value, loads in a
// fresh process where it cannot be found by reference, and behaves there as
// it did here. The cases are Python sources (harness/gen/function_gen.h);
// Subject::by_value() defines, calls and dumps them and loads them in a
// fresh process: in the embedded interpreter with the subject's
// by_value_pickler (harness/testees/python/serialcheck_byvalue.py), or, for
// an external subject, in its testee and a second instance of it
// (docs/testee-protocol.md, define-dumps and load-call).
#include <fmt/format.h>

#include <algorithm>
#include <optional>
#include <string>
#include <string_view>
#include <tuple>

#include "harness/props/fingerprint.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"

namespace serialcheck::props {
namespace {

Applicability by_value_applies(Subject& subject, PropertyEnv&);

std::string show_result(const nlohmann::json& r) {
  if (r.is_array() && r.size() == 2 && r[1].is_string()) {
    const std::string what = r[1].get<std::string>();
    return r[0] == "raises" ? "raises " + what : what;
  }
  return r.dump();
}

// "Type: message", or the message alone when there is no type.
template <typename Answer>
std::string show_error(const Answer& r) {
  return r.kind.empty() || r.kind == "error" ? r.error : r.kind + ": " + r.error;
}

// A generated source that did not run. In a testee, whose interpreter may
// be older than the harness's (PyPy 3.9 evaluates an annotation `int |
// None` and raises), the case cannot run there; the harness's own Python
// runs every source, so there it is the harness's defect.
Outcome define_failed(Subject& subject, bool own, const std::string& error,
                      const std::string& where) {
  if (own) {
    return Outcome::unsupported(
        subject.name(), "the testee's interpreter does not run the generated source: " + error);
  }
  return Outcome::fail("byvalue:define@harness", "the generated source does not run: " + error,
                       where);
}

Outcome by_value_outcome(Subject& subject, const TestCase& c) {
  const Node* v = c.value;
  if (v == nullptr || v->kind != Kind::List || v->items.size() != 2 ||
      v->items[0]->kind != Kind::Str || v->items[1]->kind != Kind::Str) {
    return Outcome::discard("not a generated callable (the list [source, inputs])");
  }
  ByValueCase request;
  request.source = std::string(v->items[0]->payload());
  request.inputs = nlohmann::json::parse(v->items[1]->payload(), nullptr, false);
  request.protocol = c.protocol;
  if (!request.inputs.is_array()) return Outcome::discard("the inputs are not a JSON array");
  const nlohmann::json& inputs = request.inputs;
  const Capabilities caps = subject.capabilities();
  // Who dumps and who loads, for the messages.
  const bool own = caps.by_value;
  const std::string dumper =
      own ? "the testee " + subject.name() : caps.by_value_pickler + ".dumps";
  const std::string loader = own ? "a fresh instance of the testee " + subject.name()
                                 : caps.by_value_pickler + ".loads in a fresh process";
  ByValueOutcome answer;
  try {
    answer = subject.by_value(request);
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) return Outcome::unsupported(subject.name(), e.what());
    throw;
  }
  std::string where = "source:\n" + request.source + "inputs: " + inputs.dump();
  if (!answer.detail.empty()) where += "\nstandard error:\n" + answer.detail;
  const std::string& stage = answer.stage;
  if (stage == "define") return define_failed(subject, own, show_error(answer), where);
  if (stage == "dumps") {
    return Outcome::fail(
        fmt::format("exception:{}@dumps", answer.kind.empty() ? "error" : answer.kind),
        fmt::format("{} cannot pickle it: {}", dumper, show_error(answer)), where);
  }
  if (stage == "load") {
    return Outcome::fail(
        fmt::format("byvalue:load:{}", answer.kind.empty() ? "error" : answer.kind),
        fmt::format("{} cannot load it: {}", loader, show_error(answer)), where);
  }
  if (!stage.empty()) return Outcome::fail("byvalue:" + stage, show_error(answer), where);
  const nlohmann::json& original = answer.original;
  const nlohmann::json& loaded = answer.loaded;
  if (!original.is_array() || !loaded.is_array() || original.size() != loaded.size() ||
      original.size() != inputs.size()) {
    return Outcome::fail("byvalue:answer@harness",
                         "the fresh process answered a different number of results", where);
  }
  for (std::size_t i = 0; i < original.size(); ++i) {
    if (original[i] == loaded[i]) continue;
    const bool raised = original[i][0] == "raises" || loaded[i][0] == "raises";
    return Outcome::fail(
        raised ? "byvalue:result-raises" : "byvalue:result",
        fmt::format("called with {}, the original gives {} and the one loaded in a fresh process "
                    "gives {}",
                    inputs[i].dump(), show_result(original[i]), show_result(loaded[i])),
        where);
  }
  return Outcome::pass();
}

// A failure whose fingerprint the known-failures file lists for this cell
// passes the case outside a replay, its saved case confirming it
// (PropertyEnv::listed), so that the cell goes on to the subject's other
// kinds of defect.
Outcome past_listed(Outcome o, const TestCase& c, const PropertyEnv& env) {
  if (!o.failed() || !env.replaying.empty()) return o;
  const std::string as_listed = refine_fingerprint(o, c);  // as check_case will refine it
  if (std::find(env.listed.begin(), env.listed.end(), as_listed) != env.listed.end()) {
    return Outcome::pass();
  }
  return o;
}

Outcome callable_by_value(Subject& subject, const TestCase& c, PropertyEnv& env) {
  return past_listed(by_value_outcome(subject, c), c, env);
}

// callable.class-life -------------------------------------------------------

std::string life_story(const std::string& situation) {
  if (situation == "changed-fresh") {
    return "pickled, then changed by _change(), then loaded in a fresh process";
  }
  if (situation == "changed-here") {
    return "pickled, then changed by _change(), then loaded in the process that pickled it";
  }
  if (situation == "loaded-twice") return "pickled once, then loaded twice in one fresh process";
  if (situation == "two-pickles") {
    return "the class and an instance of it pickled one after the other, then both loaded in one "
           "fresh process";
  }
  return "the class pickled, changed by _change(), an instance of the changed class pickled, then "
         "both loaded in one fresh process, the class first";
}

// The first call whose results differ, in words; `expect` and `observed`
// are lists of results, or (loaded-twice) a list of two such lists.
std::string result_difference(const nlohmann::json& expect, const nlohmann::json& observed,
                              const nlohmann::json& inputs) {
  if (!expect.is_array() || !observed.is_array() || expect.size() != observed.size()) {
    return fmt::format("expected {}, got {}", expect.dump(), observed.dump());
  }
  const bool twice =
      !expect.empty() && expect[0].is_array() && !expect[0].empty() && expect[0][0].is_array();
  if (twice) {
    for (std::size_t k = 0; k < expect.size(); ++k) {
      if (expect[k] == observed[k]) continue;
      return fmt::format("the {} load: {}", k == 0 ? "first" : "second",
                         result_difference(expect[k], observed[k], inputs));
    }
  }
  for (std::size_t i = 0; i < expect.size() && i < inputs.size(); ++i) {
    if (expect[i] == observed[i]) continue;
    return fmt::format("called with {}, it gives {} where {} was expected", inputs[i].dump(),
                       show_result(observed[i]), show_result(expect[i]));
  }
  return fmt::format("expected {}, got {}", expect.dump(), observed.dump());
}

// The first fact (class_facts in serialcheck_byvalue.py) that differs:
// its name and both values; `want` and `got` are objects, or (loaded-twice)
// lists of two.
std::tuple<std::string, std::string, std::string> first_fact_difference(const nlohmann::json& want,
                                                                        const nlohmann::json& got) {
  if (want.is_array() && got.is_array() && want.size() == got.size()) {
    for (std::size_t i = 0; i < want.size(); ++i) {
      if (want[i] != got[i]) return first_fact_difference(want[i], got[i]);
    }
  }
  if (want.is_object() && got.is_object()) {
    for (const auto& [key, value] : want.items()) {
      const nlohmann::json other = got.value(key, nlohmann::json());
      if (value != other) return {key, value.dump(), other.dump()};
    }
  }
  return {"answer", want.dump(), got.dump()};
}

std::string life_message(const std::string& check, const std::string& situation,
                         const nlohmann::json& expect, const nlohmann::json& observed,
                         const nlohmann::json& inputs) {
  if (check == "identity") {
    return situation == "changed-here"
               ? "loaded in the process that pickled it, the class is a new class, not the one "
                 "it was pickled from (one definition per process, as when nothing is pickled)"
               : "loaded twice in one process, one pickle of a class gives two different classes";
  }
  if (check == "instance-class") {
    return "the instance loads as an instance of another class than the one its class's pickle "
           "loads to";
  }
  if (check == "class") {
    return "the loaded class says other things of itself than the class it was pickled from: " +
           result_difference(expect, observed, inputs);
  }
  if (check == "original") {
    return "loading the pickle changed the original in the process that pickled it: " +
           result_difference(expect, observed, inputs);
  }
  return "what was loaded differs from what the same code does when nothing is pickled: " +
         result_difference(expect, observed, inputs);
}

Outcome class_life(Subject& subject, const TestCase& c, PropertyEnv& env) {
  const Node* v = c.value;
  if (v == nullptr || v->kind != Kind::List || v->items.size() != 3 ||
      v->items[0]->kind != Kind::Str || v->items[1]->kind != Kind::Str ||
      v->items[2]->kind != Kind::Str) {
    return Outcome::discard(
        "not a generated class-life case (the list [source, inputs, situation])");
  }
  ClassLifeCase request;
  request.source = std::string(v->items[0]->payload());
  request.inputs = nlohmann::json::parse(v->items[1]->payload(), nullptr, false);
  request.situation = std::string(v->items[2]->payload());
  request.protocol = c.protocol;
  if (!request.inputs.is_array()) return Outcome::discard("the inputs are not a JSON array");
  const Capabilities caps = subject.capabilities();
  const bool own = caps.by_value;
  const std::string& situation = request.situation;
  ClassLifeOutcome answer;
  try {
    answer = subject.class_life(request);
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) return Outcome::unsupported(subject.name(), e.what());
    throw;
  }
  std::string where = fmt::format("situation: {} ({})\nsource:\n{}inputs: {}", situation,
                                  life_story(situation), request.source, request.inputs.dump());
  if (!answer.detail.empty()) where += "\nstandard error:\n" + answer.detail;
  const std::string& stage = answer.stage;
  const std::string kind = answer.kind.empty() ? "error" : answer.kind;
  if (stage == "no-instance") return Outcome::discard(answer.error);
  if (stage == "define") return define_failed(subject, own, show_error(answer), where);
  if (stage == "dumps") {
    return past_listed(Outcome::fail(fmt::format("exception:{}@dumps", kind),
                                     "the subject cannot pickle it: " + show_error(answer), where),
                       c, env);
  }
  if (stage == "load") {
    return past_listed(Outcome::fail(fmt::format("classlife:load:{}@{}", kind, situation),
                                     "the pickle does not load: " + show_error(answer), where),
                       c, env);
  }
  if (!stage.empty()) {
    return past_listed(
        Outcome::fail(fmt::format("classlife:{}@{}", stage, situation), show_error(answer), where),
        c, env);
  }
  // The first check that differs and whose fingerprint the known-failures
  // file does not list for this cell; a case whose differences are all
  // listed passes, their saved cases confirming them (PropertyEnv::listed),
  // so that a subject's other kinds of defect show as new. A replayed case
  // reports the failure it was saved with when it still fails that way.
  UnlistedFailure pick(env);
  bool differed = false;  // an earlier check: the results then differ because of it
  for (const char* check : {"identity", "instance-class", "original", "class", "result"}) {
    if (!answer.expect.contains(check)) continue;
    if (differed && std::string_view(check) == "result") continue;
    if (!answer.observed.contains(check)) {
      return Outcome::fail("byvalue:answer@harness",
                           fmt::format("the answer has no observation for the check {}", check),
                           where);
    }
    const nlohmann::json& want = answer.expect[check];
    const nlohmann::json& got = answer.observed[check];
    if (want == got) continue;
    differed = true;
    std::string what = check;
    std::string message = life_message(check, situation, want, got, request.inputs);
    if (what == "class") {
      // Which of the class's facts differs: classlife:class:__qualname__@...
      const auto [key, expected, loaded] = first_fact_difference(want, got);
      what += ":" + key;
      message =
          fmt::format("the loaded class's {} is {} where the class it was pickled from has {}", key,
                      loaded, expected);
    }
    // A class's facts are the pickle's whatever the situation: one
    // fingerprint for all of them.
    const std::string fingerprint = what.rfind("class:", 0) == 0
                                        ? "classlife:" + what
                                        : fmt::format("classlife:{}@{}", what, situation);
    Outcome out = Outcome::fail(fingerprint, message, where);
    if (pick.take(out)) return out;
  }
  if (std::optional<Outcome> first = pick.first()) return *first;
  return Outcome::pass();
}

Applicability class_life_applies(Subject& subject, PropertyEnv& env) {
  Applicability a = by_value_applies(subject, env);
  const Capabilities caps = subject.capabilities();
  if (a.skip_reason.empty() && caps.by_value && !caps.class_life) {
    a.skip_reason =
        "the testee pickles by value but does not run class-life situations (no "
        "\"class_life\" in its hello)";
  }
  a.plan.domain = CaseDomain::ClassLife;
  return a;
}

Applicability by_value_applies(Subject& subject, PropertyEnv&) {
  const Capabilities caps = subject.capabilities();
  Applicability a;
  if (!caps.pickles_by_value()) {
    a.skip_reason =
        "the subject does not pickle functions and classes by value (no by_value_pickler, and no "
        "\"by_value\" in a testee's hello)";
    return a;
  }
  a.plan.domain = CaseDomain::Callable;
  a.plan.min_protocol = caps.min_protocol;
  a.plan.max_protocol = caps.max_protocol;
  return a;
}

}  // namespace

void add_byvalue_properties(Registry& out) {
  GateProperty p;
  p.id = "callable.by-value";
  p.summary =
      "a function or class defined at run time loads in a fresh process and behaves the same";
  p.applies = by_value_applies;
  p.check = callable_by_value;
  add(out, 95, std::move(p),
      {control("pickles-by-reference",
               "pickles a function or class by reference to its module, as plain pickle does, so a "
               "process without that module cannot load it",
               "byvalue:load:"),
       control("drops-defaults",
               "pickles a function by value without its defaults and keyword-only defaults",
               "byvalue:result")});  // beside module.by-reference

  GateProperty life;
  life.id = "callable.class-life";
  life.summary =
      "a function or class pickled by value, changed, loaded twice or beside an instance, "
      "behaves as the same code does when nothing is pickled";
  life.applies = class_life_applies;
  life.check = class_life;
  add(out, 96, std::move(life),
      {control("forgets-classes",
               "forgets the classes it has loaded, so that each load of a class makes a new one",
               "classlife:instance-class"),
       control("writes-back-on-load",
               "on a load in the pickling process, writes the class as it was pickled back over "
               "the live class",
               "classlife:original"),
       control("drops-defaults",
               "pickles a function by value without its defaults and keyword-only defaults",
               "classlife:result")});
}

}  // namespace serialcheck::props
