#include "harness/gen/fixtures.h"

#include <mutex>
#include <unordered_set>

namespace serialcheck::gen {
namespace {

std::mutex& resolver_mutex() {
  static std::mutex m;
  return m;
}

FixtureResolver& resolver_slot() {
  static FixtureResolver r;
  return r;
}

FixtureChecker& checker_slot() {
  static FixtureChecker c;
  return c;
}

}  // namespace

const std::vector<FixtureKind>& fixture_kinds() {
  static const std::vector<FixtureKind> kinds = {
      {"plain", 2, 0},
      {"empty", 0, 0},
      {"slots", 2, 2},
      {"slots_dict", 2, 2},
      {"part_slots", 1, 2},
      {"getstate", 2, 0},
      {"falsy_state", 1, 0},
      {"reduce2", 2, 0},
      {"reduce3", 2, 0},
      {"listitems", 2, 0},
      {"dictitems", 2, 0},
      {"state_setter", 1, 0},
      {"reduce_string", 0, 0},
      {"reduce_ex", 2, 0},
      {"newargs", 2, 0},
      {"newargs_ex", 2, 0},
      {"newargs_ex_new", 2, 0},
      {"list_subclass", 2, 0},
      {"dict_subclass", 2, 0},
      {"set_subclass", 1, 0},
      {"copyreg", 1, 0},
      {"enum", 1, 0},
      {"int_enum", 1, 0},
      {"flag", 1, 0},
      {"namedtuple", 2, 0},
      {"dataclass", 2, 0},
      {"frozen_dataclass", 2, 0},
      {"slots_dataclass", 2, 2},
      {"frozen_slots_dataclass", 2, 0},
      {"nested_class", 1, 0},
      {"self_ref", 1, 0},
      {"function", 0, 0},
      {"builtin", 1, 0},
      {"method", 0, 0},
      {"nested_method", 0, 0},
      {"static_method", 0, 0},
      {"class_method", 0, 0},
      {"bound_method", 1, 0},
      {"partial", 2, 0},
      {"attrgetter", 1, 0},
      {"itemgetter", 1, 0},
      {"methodcaller", 2, 0},
      {"extension", 1, 0},
  };
  return kinds;
}

std::string_view fixture_request_kind(const Node* n) {
  if (n == nullptr || n->kind != Kind::Object || n->obj() == nullptr) return {};
  const Node* callable = n->obj()->callable;
  const Node* args = n->obj()->args;
  if (callable == nullptr || callable->kind != Kind::Global || args == nullptr ||
      args->items.empty() || args->items.front()->kind != Kind::Str) {
    return {};
  }
  if (callable->payload() != kFixturesModule || callable->name() != kFixtureMaker) return {};
  return args->items.front()->payload();
}

bool has_fixture_requests(const Node* root) {
  std::vector<const Node*> todo{root};
  std::unordered_set<const Node*> seen;
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    if (!fixture_request_kind(n).empty()) return true;
    for (const Node* item : n->items) todo.push_back(item);
    if (n->obj() != nullptr) {
      const ObjectParts& o = *n->obj();
      todo.insert(todo.end(), {o.callable, o.args, o.state, o.state_setter});
      for (const Node* item : o.listitems) todo.push_back(item);
      for (const auto& [k, v] : o.dictitems) todo.insert(todo.end(), {k, v});
    }
    if (n->array() != nullptr) todo.push_back(n->array()->grad);
  }
  return false;
}

void set_fixture_resolver(FixtureResolver resolver) {
  std::lock_guard<std::mutex> lock(resolver_mutex());
  resolver_slot() = std::move(resolver);
}

bool have_fixture_resolver() {
  std::lock_guard<std::mutex> lock(resolver_mutex());
  return static_cast<bool>(resolver_slot());
}

std::optional<GeneratedValue> resolve_fixtures(const GeneratedValue& value, int protocol) {
  FixtureResolver r;
  {
    std::lock_guard<std::mutex> lock(resolver_mutex());
    r = resolver_slot();
  }
  if (!r) return std::nullopt;
  return r(value, protocol);
}

void set_fixture_checker(FixtureChecker checker) {
  std::lock_guard<std::mutex> lock(resolver_mutex());
  checker_slot() = std::move(checker);
}

bool rebuilds_to_itself(const Node* value, int protocol) {
  FixtureChecker c;
  {
    std::lock_guard<std::mutex> lock(resolver_mutex());
    c = checker_slot();
  }
  return !c || c(value, protocol);
}

}  // namespace serialcheck::gen
