#include "harness/python/fixtures.h"

#include <mutex>
#include <unordered_set>

#include "harness/gen/fixtures.h"
#include "harness/python/bridge.h"
#include "harness/subjects/subject.h"

namespace serialcheck::python {
namespace {

// Pickle memoizes neither an empty tuple nor a persistent id: every
// reference to one after the first gets a fresh node (a persistent id keeps
// its pid, which is memoized like any object).
void unshare_unmemoized(Node* root, Graph& graph) {
  std::vector<Node*> todo{root};
  std::unordered_set<Node*> seen;
  bool first_tuple = true;
  std::unordered_set<const Node*> persids;
  auto visit = [&](Node*& slot) {
    if (slot == nullptr) return;
    if (slot->kind == Kind::Tuple && slot->items.empty()) {
      if (!first_tuple) slot = graph.tuple();
      first_tuple = false;
      return;
    }
    if (slot->kind == Kind::PersId && !persids.insert(slot).second) {
      slot = graph.persid(slot->items.empty() ? graph.none() : slot->items.front());
      return;
    }
    todo.push_back(slot);
  };
  while (!todo.empty()) {
    Node* n = todo.back();
    todo.pop_back();
    if (!seen.insert(n).second) continue;
    for (Node*& item : n->items) visit(item);
    if (n->obj() != nullptr) {
      ObjectParts& o = *n->obj();
      visit(o.callable);
      visit(o.args);
      visit(o.state);
      visit(o.state_setter);
      for (Node*& item : o.listitems) visit(item);
      for (auto& [k, v] : o.dictitems) {
        visit(k);
        visit(v);
      }
    }
    if (n->array() != nullptr) visit(n->array()->grad);
  }
}

}  // namespace

Node* resolve_fixture_requests(const Node* root, Graph& graph, int protocol) {
  Gil gil;
  PyRef object = to_python(root);
  BridgeOptions options;
  options.protocol = protocol;
  Node* described = from_python(object.get(), graph, options);
  if (described->kind == Kind::Tuple && described->items.empty()) return described;
  unshare_unmemoized(described, graph);
  return described;
}

void install_fixture_resolver() {
  static std::once_flag once;
  std::call_once(once, [] {
    gen::set_fixture_resolver(
        [](const gen::GeneratedValue& value, int protocol) -> std::optional<gen::GeneratedValue> {
          gen::GeneratedValue out;
          out.graph = std::make_shared<Graph>();
          try {
            out.root = resolve_fixture_requests(value.root, *out.graph, protocol);
          } catch (const SubjectError&) {
            return std::nullopt;
          }
          out.graph->root = out.root;
          return out;
        });
  });
}

}  // namespace serialcheck::python
