#include "harness/props/shrink.h"

#include <cmath>
#include <unordered_set>

#include "harness/props/value_tools.h"

namespace serialcheck {
namespace {

TestCase with_value(const TestCase& base, std::shared_ptr<Graph> graph, const Node* root) {
  TestCase c = base;
  c.graph = std::move(graph);
  c.graph->root = const_cast<Node*>(root);
  c.value = root;
  return c;
}

// Copies the case, then lets `edit` change the copy of `target`.
template <typename Edit>
TestCase edited(const TestCase& base, const Node* target, Edit edit) {
  auto graph = std::make_shared<Graph>();
  std::unordered_map<const Node*, Node*> map;
  Node* root = copy_value(base.value, *graph, &map);
  edit(*map.at(target));
  return with_value(base, std::move(graph), root);
}

bool simplifiable(const Node* n) {
  switch (n->kind) {
    case Kind::Bool: return n->flag;
    case Kind::Int: return n->big || n->small() != 0;
    case Kind::Float: return n->f != 0.0 || std::signbit(n->f);
    case Kind::Str:
    case Kind::Bytes:
    case Kind::ByteArray:
    case Kind::PickleBuffer: return !n->payload().empty();
    default: return false;
  }
}

std::size_t item_count(const Node* n) {
  switch (n->kind) {
    case Kind::List:
    case Kind::Tuple:
    case Kind::Set:
    case Kind::FrozenSet: return n->items.size();
    case Kind::Dict: return n->items.size() / 2;
    default: return 0;
  }
}

// Removes items [first, last) of a container (dict pairs count as one).
void erase_items(Node& m, std::size_t first, std::size_t last) {
  std::size_t width = m.kind == Kind::Dict ? 2 : 1;
  m.items.erase(m.items.begin() + static_cast<std::ptrdiff_t>(first * width),
                m.items.begin() + static_cast<std::ptrdiff_t>(last * width));
}

}  // namespace

std::vector<TestCase> shrink_candidates(const TestCase& c, std::size_t limit) {
  std::vector<TestCase> out;
  if (c.value == nullptr) return out;
  auto full = [&] { return out.size() >= limit; };
  auto as_root = [&](const Node* child) {
    auto graph = std::make_shared<Graph>();
    Node* root = copy_value(child, *graph);
    out.push_back(with_value(c, std::move(graph), root));
  };

  if (c.out_of_band) {
    TestCase inband = c;
    inband.out_of_band = false;
    out.push_back(inband);
  }

  auto nodes = reachable(c.value);
  // Wide containers first lose half their items: a thousand children tried
  // one by one as the root would spend a crash's whole probe budget before
  // the container shrank at all.
  constexpr std::size_t kWide = 16;
  auto halves = [&](bool wide) {
    for (const Node* n : nodes) {
      std::size_t count = item_count(n);
      if (count >= 4 && (count >= kWide) == wide && !full()) {
        out.push_back(edited(c, n, [count](Node& m) { erase_items(m, count / 2, count); }));
        out.push_back(edited(c, n, [count](Node& m) { erase_items(m, 0, count / 2); }));
      }
    }
  };
  halves(true);

  // Each child that is not an atom as the new root (atoms come last).
  std::unordered_set<const Node*> seen;
  std::vector<const Node*> atoms;
  for (const Node* child : children(c.value)) {
    if (child == c.value || !seen.insert(child).second) continue;
    if (is_atom(child->kind)) {
      atoms.push_back(child);
    } else if (!full()) {
      as_root(child);
    }
  }

  // Half of a smaller container's items removed, then one item (so that
  // containers shrink in logarithmically many steps).
  halves(false);
  for (const Node* n : nodes) {
    std::size_t count = item_count(n);
    for (std::size_t i = 0; i < count && !full(); ++i) {
      out.push_back(edited(c, n, [i](Node& m) { erase_items(m, i, i + 1); }));
    }
    if (n->kind == Kind::Object && n->obj()) {
      for (std::size_t i = 0; i < n->obj()->listitems.size() && !full(); ++i) {
        out.push_back(edited(c, n, [i](Node& m) {
          m.obj()->listitems.erase(m.obj()->listitems.begin() + static_cast<std::ptrdiff_t>(i));
        }));
      }
      for (std::size_t i = 0; i < n->obj()->dictitems.size() && !full(); ++i) {
        out.push_back(edited(c, n, [i](Node& m) {
          m.obj()->dictitems.erase(m.obj()->dictitems.begin() + static_cast<std::ptrdiff_t>(i));
        }));
      }
    }
    if (full()) return out;
  }
  for (const Node* atom : atoms) {
    if (full()) return out;
    as_root(atom);
  }

  // Simpler scalars, except where equal values could collide.
  std::unordered_set<const Node*> keys;
  for (const Node* n : nodes) {
    if (n->kind == Kind::Set || n->kind == Kind::FrozenSet) {
      keys.insert(n->items.begin(), n->items.end());
    } else if (n->kind == Kind::Dict) {
      for (std::size_t i = 0; i < n->items.size(); i += 2) keys.insert(n->items[i]);
    }
  }
  for (const Node* n : nodes) {
    if (full()) break;
    if (keys.count(n) != 0 || !simplifiable(n)) continue;
    out.push_back(edited(c, n, [](Node& m) {
      m.flag = m.kind == Kind::PickleBuffer ? m.flag : false;
      if (m.kind == Kind::Int) {
        m.set_small(0);
      } else {
        m.drop_small();
      }
      m.f = 0.0;
      m.set_owned(std::string());
    }));
    std::size_t size = n->payload().size();
    if (size > 1 && n->kind != Kind::Int && !full()) {
      out.push_back(edited(
          c, n, [size](Node& m) { m.set_owned(std::string(m.payload().substr(0, size / 2))); }));
    }
  }
  return out;
}

TestCase shrink_greedily(const TestCase& c, const std::function<bool(const TestCase&)>& still_fails,
                         int max_attempts, int* attempts_used) {
  TestCase best = c;
  int attempts = 0;
  bool progress = true;
  while (progress && attempts < max_attempts) {
    progress = false;
    for (auto& candidate : shrink_candidates(best)) {
      if (attempts >= max_attempts) break;
      ++attempts;
      if (still_fails(candidate)) {
        best = std::move(candidate);
        progress = true;
        break;
      }
    }
  }
  if (attempts_used != nullptr) *attempts_used = attempts;
  return best;
}

std::size_t case_size(const TestCase& c) {
  std::size_t size = c.out_of_band ? 1 : 0;
  for (const Node* n : reachable(c.value)) {
    size += 1 + n->payload().size() + (simplifiable(n) ? 1 : 0) + n->items.size();
    if (n->obj()) size += n->obj()->listitems.size() + n->obj()->dictitems.size();
  }
  return size;
}

}  // namespace serialcheck
