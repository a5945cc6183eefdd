#include "harness/python/fixtures.h"

#include <initializer_list>
#include <mutex>
#include <set>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "harness/gen/fixtures.h"
#include "harness/gen/shape.h"
#include "harness/python/bridge.h"
#include "harness/subjects/subject.h"
#include "reference/value/equal.h"

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

// `object` described as the pickler sees it at `protocol`, as the
// generator's cases hold it.
Node* describe(PyObject* object, Graph& graph, int protocol) {
  BridgeOptions options;
  options.protocol = protocol;
  Node* described = from_python(object, graph, options);
  if (described->kind == Kind::Tuple && described->items.empty()) return described;
  unshare_unmemoized(described, graph);
  return described;
}

// Calls `visit` once on each node reachable from `starts` (gen::children),
// until it returns true; whether it did.
template <class Visit>
bool any_reachable(std::initializer_list<const Node*> starts, Visit visit) {
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> todo(starts);
  while (!todo.empty()) {
    const Node* n = todo.back();
    todo.pop_back();
    if (n == nullptr || !seen.insert(n).second) continue;
    if (visit(n)) return true;
    for (const Node* child : gen::children(*n)) todo.push_back(child);
  }
  return false;
}

// Whether `root` holds one node per value that CPython keeps one object for
// ('' and one-character latin-1 strs, b'' and one-byte bytes), as generated
// values do (gen::is_singleton; globals aside, whose extension references
// are a node each by design). Real objects can hold two such strs: an
// instance attribute's name is the interned 'a' of the class's code, which
// in CPython 3.11 is another object than the 'a' every other one-character
// str is. The C pickler writes both, but the reference memoizes such a str
// by its text, as it must for every other one, so no description holds
// them apart.
bool one_node_per_singleton(const Node* root) {
  std::set<std::pair<Kind, std::string_view>> values;
  return !any_reachable({root}, [&](const Node* n) {
    return (n->kind == Kind::Str || n->kind == Kind::Bytes) && gen::is_singleton(*n) &&
           !values.emplace(n->kind, n->payload()).second;
  });
}

// Whether an object of `root` is reached again from its own callable or
// arguments. Pickle then calls the object's __reduce_ex__ a second time, for
// the copy it drops (REDUCE, POP, the memo's object), and a fixture's
// __reduce__ builds its argument tuple afresh on each call: the C pickler
// writes the second tuple anew, where the reference, whose description holds
// one tuple, finds it memoized and fetches it.
bool reached_from_its_arguments(const Node* root) {
  std::vector<const Node*> objects;
  any_reachable({root}, [&](const Node* n) {
    if (n->kind == Kind::Object && n->obj() != nullptr) objects.push_back(n);
    return false;
  });
  for (const Node* o : objects) {
    if (any_reachable({o->obj()->callable, o->obj()->args},
                      [o](const Node* n) { return n == o; })) {
      return true;
    }
  }
  return false;
}

// Whether a PickleBuffer is reached twice. Out of band the C pickler writes
// it at each reference (NEXT_BUFFER is never memoized) and it loads as two;
// in band it is memoized and loads as one. Generated values never share one
// (gen/build.cpp); a fixture object may (NewArgs keeps its argument as its
// attribute), and no one description holds both readings.
bool shares_a_buffer(const Node* root) {
  std::unordered_set<const Node*> buffers;
  return any_reachable({root}, [&](const Node* n) {
    for (const Node* child : gen::children(*n)) {
      if (child != nullptr && child->kind == Kind::PickleBuffer && !buffers.insert(child).second) {
        return true;
      }
    }
    return false;
  });
}

// The Python subjects build their objects from the description, not from
// the requests. Where those objects reduce to something else, the
// description cannot stand for them: a str shared between a generated value
// and a name a class's own code interns (a __getnewargs_ex__ keyword, say)
// is one object in the real value and two in the rebuilt one, so the C
// pickler memoizes it once in one and writes it twice in the other. The
// comparison holds sharing to account, strs and tuples included, and takes
// sets in any order: a rebuilt set may iterate in another order, which the
// bytes properties allow for (a subject's set order is its own).
bool describes_its_rebuilt_objects(const Node* value, int protocol) {
  if (!one_node_per_singleton(value) || reached_from_its_arguments(value) ||
      shares_a_buffer(value)) {
    return false;
  }
  PyRef rebuilt = to_python(value);
  Graph again;
  return equal(describe(rebuilt.get(), again, protocol), value);
}

}  // namespace

Node* resolve_fixture_requests(const Node* root, Graph& graph, int protocol) {
  Gil gil;
  PyRef object = to_python(root);
  Node* described = describe(object.get(), graph, protocol);
  if (!describes_its_rebuilt_objects(described, protocol)) {
    throw SubjectError("BridgeError",
                       "the objects built from the description of the fixture objects reduce "
                       "to another value (their sharing differs), or to one the reference "
                       "cannot write as the C pickler does (see fixtures.cpp)");
  }
  return described;
}

bool rebuilds_to_itself(const Node* value, int protocol) {
  Gil gil;
  try {
    return describes_its_rebuilt_objects(value, protocol);
  } catch (const SubjectError&) {
    return false;
  }
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
    gen::set_fixture_checker(
        [](const Node* value, int protocol) { return rebuilds_to_itself(value, protocol); });
  });
}

}  // namespace serialcheck::python
