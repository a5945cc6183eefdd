#include "harness/gen/shape.h"

#include <unordered_map>
#include <utility>

namespace serialcheck::gen {

bool is_singleton(const Node& n) {
  // One object per name: a global (the encoder memoizes it by name) and a
  // module (sys.modules holds one per import name).
  if (n.kind == Kind::Global || n.kind == Kind::Module) return true;
  const std::string_view p = n.payload();
  if (n.kind == Kind::Bytes) return p.size() <= 1;
  if (n.kind != Kind::Str) return false;
  if (p.size() <= 1) return p.empty() || static_cast<unsigned char>(p[0]) < 0x80;
  // U+0080..U+00FF in UTF-8: C2 or C3, then a continuation byte.
  return p.size() == 2 &&
         (static_cast<unsigned char>(p[0]) == 0xC2 || static_cast<unsigned char>(p[0]) == 0xC3) &&
         (static_cast<unsigned char>(p[1]) & 0xC0) == 0x80;
}

std::vector<const Node*> children(const Node& node) {
  // A module's items hold its class global, which its pickle does not
  // carry (the import name alone names it), so it is no child; a tensor's
  // grad is one.
  if (node.kind == Kind::Module) return {};
  std::vector<const Node*> out(node.items.begin(), node.items.end());
  if (node.kind == Kind::Tensor && node.array() && node.array()->grad) out.push_back(node.array()->grad);
  if (const ObjectParts* o = node.obj()) {
    for (const Node* part : {o->callable, o->args, o->state, o->state_setter}) {
      if (part) out.push_back(part);
    }
    out.insert(out.end(), o->listitems.begin(), o->listitems.end());
    for (const auto& [k, v] : o->dictitems) {
      out.push_back(k);
      out.push_back(v);
    }
  }
  return out;
}

Shape shape_of(const Node* root) {
  Shape s;
  if (!root) return s;
  enum Color : char { Gray, Black };
  std::unordered_map<const Node*, Color> color;
  std::unordered_map<const Node*, std::size_t> refs;
  // Iterative depth-first search; a frame remembers the next child to visit.
  struct Frame {
    const Node* node;
    std::vector<const Node*> kids;
    std::size_t next = 0;
  };
  std::vector<Frame> stack;
  auto enter = [&](const Node* n) {
    color[n] = Gray;
    ++s.nodes;
    s.non_atoms += !is_atom(n->kind);
    ++s.kinds[static_cast<std::size_t>(n->kind)];
    stack.push_back(Frame{n, children(*n)});
  };
  refs[root] = 1;
  enter(root);
  while (!stack.empty()) {
    Frame& f = stack.back();
    if (f.next == f.kids.size()) {
      color[f.node] = Black;
      stack.pop_back();
      continue;
    }
    const Node* kid = f.kids[f.next++];
    ++refs[kid];
    auto it = color.find(kid);
    if (it == color.end()) {
      enter(kid);
    } else if (it->second == Gray) {
      s.cyclic = true;
    }
  }
  for (const auto& [n, count] : refs) {
    if (count < 2 || is_atom(n->kind)) continue;
    ++(is_singleton(*n) ? s.shared_singletons : s.shared);
  }
  return s;
}

}  // namespace serialcheck::gen
