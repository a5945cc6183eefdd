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

#include <string>

#include "harness/props/prop_registry.h"

namespace serialcheck::props {
namespace {

std::string show_result(const nlohmann::json& r) {
  if (r.is_array() && r.size() == 2 && r[1].is_string()) {
    const std::string what = r[1].get<std::string>();
    return r[0] == "raises" ? "raises " + what : what;
  }
  return r.dump();
}

// "Type: message", or the message alone when there is no type.
std::string show_error(const ByValueOutcome& r) {
  return r.kind.empty() || r.kind == "error" ? r.error : r.kind + ": " + r.error;
}

Outcome callable_by_value(Subject& subject, const TestCase& c, PropertyEnv&) {
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
  if (stage == "define" && own) {
    // The testee's interpreter may be older than the harness's (PyPy 3.9
    // evaluates an annotation `int | None` and raises): it cannot run this
    // case. The harness's own Python runs every source (byvalue:define@harness
    // on the in-process subjects).
    return Outcome::unsupported(
        subject.name(),
        "the testee's interpreter does not run the generated source: " + show_error(answer));
  }
  if (stage == "define") {
    return Outcome::fail("byvalue:define@harness",
                         "the generated source does not run: " + show_error(answer), where);
  }
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
}

}  // namespace serialcheck::props
