// cross.stdlib/<producer> (docs/conformance.md, docs/versions.md): a
// standard-library value that services send between Python versions (a
// datetime, a Decimal, an enum member, a namedtuple, a path, a typing
// alias, an itertools object, an exception...), built by the producer's own
// interpreter and pickled by its pickler, loads in the consumer as the value
// the consumer builds itself from the same recipe
// (harness/testees/python/serialcheck_stdlib.py). A case is a recipe, as a
// str value (harness/gen/stdlib_recipes.h), and a protocol both sides know.
// A subject with no interpreter of its own (the reference) takes no part,
// and a recipe a version cannot build is an inexpressible discard.
#include <fmt/format.h>

#include <algorithm>
#include <string>

#include "harness/gen/stdlib_recipes.h"
#include "harness/props/prop_helpers.h"
#include "harness/props/prop_registry.h"
#include "reference/pickle/disasm.h"

namespace serialcheck::props {
namespace {

constexpr const char* kNoRecipes =
    "builds no stdlib values: it has no Python interpreter of its own (no stdlib_recipes)";

bool testee_failure(const SubjectError& e) {
  return e.kind().rfind("testee-", 0) == 0;
}

// The pickle as the failing message (the report shows and the corpus keeps
// it), with its disassembly as the explanation.
void attach_pickle(Outcome& o, const std::string& pickle, int protocol, const std::string& detail) {
  Message m;
  m.header = {
      {"serializer", "pickle"}, {"protocol", protocol}, {"writeable", nlohmann::json::array()}};
  m.frames.push_back(Frame::owned(pickle));
  o.failing_message = message_to_json(m);
  const auto bytes = reinterpret_cast<const std::uint8_t*>(pickle.data());
  o.explanation =
      "the pickle:\n" + pickle::format_disassembly(pickle::disassemble({bytes, pickle.size()}));
  if (!detail.empty()) o.explanation += "\nstandard error:\n" + detail;
}

Applicability stdlib_applies(Subject& consumer, PropertyEnv& env,
                             const std::string& producer_name) {
  std::string why;
  Subject* producer = env.subject(producer_name, &why);
  if (producer == nullptr) return skip("the producer " + producer_name + " is " + why);
  const Capabilities pc = producer->capabilities();
  const Capabilities cc = consumer.capabilities();
  if (!cc.stdlib_recipes) return skip(std::string("the subject ") + kNoRecipes);
  if (!pc.stdlib_recipes) return skip("the producer " + producer_name + " " + kNoRecipes);
  if (!pc.can_dump) return skip("the producer " + producer_name + " does not write pickles");
  Applicability a;
  a.plan.domain = CaseDomain::Stdlib;
  // The protocols both know: a protocol the consumer does not read is
  // cross.matrix's business.
  a.plan.min_protocol = std::max(pc.min_protocol, cc.read_min());
  a.plan.max_protocol = std::min(pc.max_protocol, cc.read_max());
  a.plan.favoured_protocol = pc.default_protocol;
  if (a.plan.min_protocol > a.plan.max_protocol) {
    a.skip_reason = "the subject reads none of the protocols " + producer_name + " writes";
  }
  return a;
}

Outcome stdlib_check(Subject& consumer, const TestCase& c, PropertyEnv& env,
                     const std::string& producer_name) {
  const Node* v = c.value;
  if (v == nullptr || v->kind != Kind::Str || !gen::is_stdlib_recipe(v->payload())) {
    return Outcome::discard(
        "not a stdlib recipe (a str naming one of serialcheck_stdlib's values)");
  }
  const std::string recipe(v->payload());
  const std::string kind(gen::recipe_kind(recipe));
  Subject* producer = env.subject(producer_name, nullptr);
  if (producer == nullptr) return Outcome::discard("the producer is not available");

  std::string pickle;
  try {
    pickle = producer->dumps_recipe(recipe, c.protocol);
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) return Outcome::unsupported(producer_name, e.what());
    if (e.kind() == kDiscardInexpressible) return Outcome::inexpressible(producer_name, e.what());
    // A value the producer cannot pickle is charged on its own cell (the
    // producer as its own consumer), not on every reader's.
    if (producer != &consumer) {
      return Outcome::discard(
          fmt::format("the producer cannot pickle {} (its own cell says so)", recipe));
    }
    if (testee_failure(e)) return exception_outcome(e, "dumps-recipe");
    Outcome o = Outcome::fail(fmt::format("stdlib:dumps-error/{}/{}", kind, e.kind()),
                              fmt::format("{} cannot pickle {} at protocol {}: {}", producer_name,
                                          recipe, c.protocol, e.message()));
    o.explanation = e.detail();
    return o;
  }

  RecipeLoad r;
  try {
    r = consumer.loads_recipe(recipe, pickle);
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) return Outcome::unsupported(consumer.name(), e.what());
    if (e.kind() == kDiscardInexpressible) return Outcome::inexpressible(consumer.name(), e.what());
    Outcome o = testee_failure(e)
                    ? exception_outcome(e, "loads-recipe")
                    : Outcome::fail(fmt::format("stdlib:load-error/{}/{}", kind, e.kind()),
                                    fmt::format("{}'s protocol-{} pickle of {} does not load: {}",
                                                producer_name, c.protocol, recipe, e.what()));
    attach_pickle(o, pickle, c.protocol, e.detail());
    return o;
  }
  if (!r.equal) {
    Outcome o = Outcome::fail(
        "stdlib:unequal/" + kind,
        fmt::format("{}'s protocol-{} pickle of {} loads as {}, where the subject builds {}",
                    producer_name, c.protocol, recipe, r.loaded, r.expected));
    attach_pickle(o, pickle, c.protocol, {});
    return o;
  }
  return Outcome::pass();
}

}  // namespace

GateProperty stdlib_property(const std::string& producer) {
  GateProperty p;
  p.id = std::string(kStdlibPrefix) + producer;
  p.summary = "the stdlib values " + producer +
              " builds and pickles load in the subject as the values it builds itself";
  p.applies = [producer](Subject& s, PropertyEnv& env) { return stdlib_applies(s, env, producer); };
  p.check = [producer](Subject& s, const TestCase& c, PropertyEnv& env) {
    return stdlib_check(s, c, env, producer);
  };
  p.needs_dumps = false;
  p.controls = {control(
      "loads-first-of-kind",
      "loads every stdlib value as the first value of its kind (a Decimal as Decimal('3.14...'), "
      "any datetime as the first datetime), as a loader that rebuilds a value from its type alone",
      "stdlib:unequal/")};
  return p;
}

}  // namespace serialcheck::props
