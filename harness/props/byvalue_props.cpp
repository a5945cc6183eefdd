// callable.by-value (docs/conformance.md): a function or class defined at
// run time, dumped by a subject that pickles callables by value, loads in a
// fresh process where it cannot be found by reference, and behaves there as
// it did here. The cases are Python sources (harness/gen/function_gen.h);
// the embedded interpreter defines, calls and dumps them, and starts the
// fresh process (harness/testees/python/serialcheck_byvalue.py).
#include <fmt/format.h>

#include <string>

#include "harness/gen/function_gen.h"
#include "harness/props/prop_registry.h"

namespace serialcheck::props {
namespace {

// "Type: message" -> "Type".
std::string error_type(const std::string& error) {
  std::size_t colon = error.find(':');
  std::string type = error.substr(0, colon);
  if (type.empty() || type.find(' ') != std::string::npos) return "error";
  return type;
}

std::string show_result(const nlohmann::json& r) {
  if (r.is_array() && r.size() == 2 && r[1].is_string()) {
    const std::string what = r[1].get<std::string>();
    return r[0] == "raises" ? "raises " + what : what;
  }
  return r.dump();
}

Outcome callable_by_value(Subject& subject, const TestCase& c, PropertyEnv&) {
  const Node* v = c.value;
  if (v == nullptr || v->kind != Kind::List || v->items.size() != 2 ||
      v->items[0]->kind != Kind::Str || v->items[1]->kind != Kind::Str) {
    return Outcome::discard("not a generated callable (the list [source, inputs])");
  }
  const std::string source(v->items[0]->payload());
  nlohmann::json inputs = nlohmann::json::parse(v->items[1]->payload(), nullptr, false);
  if (!inputs.is_array()) return Outcome::discard("the inputs are not a JSON array");
  const gen::ByValueRunner* run = gen::by_value_runner();
  if (run == nullptr) {
    return Outcome::fail("byvalue:no-interpreter",
                         "no embedded Python interpreter to define the callable in");
  }
  const std::string pickler = subject.capabilities().by_value_pickler;
  const nlohmann::json answer = (*run)(
      {{"pickler", pickler}, {"source", source}, {"inputs", inputs}, {"protocol", c.protocol}});
  const std::string stage = answer.value("stage", "");
  const std::string error = answer.value("error", "");
  const std::string where = "source:\n" + source + "inputs: " + inputs.dump();
  if (stage == "define") {
    return Outcome::fail("byvalue:define@harness", "the generated source does not run: " + error,
                         where);
  }
  if (stage == "dumps") {
    return Outcome::fail(fmt::format("exception:{}@dumps", error_type(error)),
                         fmt::format("{}.dumps cannot pickle it: {}", pickler, error), where);
  }
  if (stage == "load") {
    return Outcome::fail(
        fmt::format("byvalue:load:{}", error_type(error)),
        fmt::format("{}.loads in a fresh process cannot load it: {}", pickler, error), where);
  }
  if (!stage.empty()) return Outcome::fail("byvalue:" + stage, error, where);
  const nlohmann::json& original = answer["original"];
  const nlohmann::json& loaded = answer["loaded"];
  if (!original.is_array() || !loaded.is_array() || original.size() != loaded.size()) {
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
  if (caps.by_value_pickler.empty()) {
    a.skip_reason = "the subject does not pickle functions and classes by value (no by_value_pickler)";
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
  add(out, 95, std::move(p));  // beside module.by-reference
}

}  // namespace serialcheck::props
