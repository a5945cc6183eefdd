#include "harness/props/value_tools.h"
#include "harness/subjects/phase_clock.h"

#include <algorithm>
#include <bit>
#include <cmath>

#include <fmt/format.h>
#include <cstdlib>
#include <limits>
#include <cstring>
#include <deque>
#include <string>
#include <unordered_set>

#include "reference/value/children.h"
#include "reference/value/json.h"
#include "reference/value/numeric.h"

namespace serialcheck {
namespace {

void copy_scalars(const Node* from, Node* to) {
  to->flag = from->flag;
  to->supplied = from->supplied;
  to->copy_numbers(*from);
  to->set_name(from->name());
  if (!from->payload().empty()) to->set_owned(std::string(from->payload()));
}

void append_field(std::string& key, std::string_view field) {
  std::uint64_t n = field.size();
  key.append(reinterpret_cast<const char*>(&n), sizeof n);
  key.append(field);
}

std::string pointer_text(const void* p) {
  auto v = reinterpret_cast<std::uintptr_t>(p);
  return std::string(reinterpret_cast<const char*>(&v), sizeof v);
}

// How a node shows up in its parent's interning key: atoms by value,
// immutable nodes by their representative, mutable nodes by identity.
std::string child_key(const Node* c, const std::unordered_map<const Node*, Node*>& rep) {
  std::string k(1, static_cast<char>(c->kind));
  if (is_atom(c->kind)) {
    k += c->flag ? '1' : '0';
    if (c->kind == Kind::Int) {
      k += c->big ? minimal_twos_le(c->payload()) : int64_to_twos_le(c->small());
    }
    if (c->kind == Kind::Float) k += std::to_string(std::bit_cast<std::uint64_t>(c->f));
    return k;
  }
  auto it = rep.find(c);
  return k + pointer_text(it == rep.end() ? c : it->second);
}

std::string intern_key(const Node* n, const std::unordered_map<const Node*, Node*>& rep) {
  std::string key(1, static_cast<char>(n->kind));
  append_field(key, n->payload());
  append_field(key, n->name());
  std::vector<std::string> parts;
  for (const Node* c : n->items) parts.push_back(child_key(c, rep));
  if (n->kind == Kind::FrozenSet || n->kind == Kind::Set) std::sort(parts.begin(), parts.end());
  for (const auto& p : parts) append_field(key, p);
  return key;
}

// Rewrites the (copied, hence mutable) value so that equal immutable
// subvalues are one node; returns the new root. `also` names kinds exempt
// beyond the rule's (a list that may have been a tuple, see equal_under).
Node* hash_cons(Node* root, SharingRule rule, const std::vector<Kind>& also = {}) {
  auto exempt = [rule, &also](Kind k) {
    if (std::find(also.begin(), also.end(), k) != also.end()) return true;
    return rule == SharingRule::ImmutablesFree ? !is_atom(k) && immutable_kind(k)
                                               : k == Kind::Global;
  };
  std::vector<const Node*> order = reachable(root);
  std::unordered_map<const Node*, Node*> rep;
  std::unordered_map<std::string, Node*> interned;
  // Post-order over immutable nodes; a child still in progress (an
  // immutable-only cycle, which Python cannot build) is keyed by identity.
  std::unordered_map<const Node*, int> state;  // 1 in progress, 2 done
  for (const Node* start : order) {
    if (!exempt(start->kind) || state[start] != 0) continue;
    std::vector<std::pair<Node*, std::size_t>> stack{{const_cast<Node*>(start), 0}};
    state[start] = 1;
    while (!stack.empty()) {
      auto& [node, next] = stack.back();
      if (next < node->items.size()) {
        Node* c = node->items[next++];
        if (c != nullptr && exempt(c->kind) && state[c] == 0) {
          state[c] = 1;
          stack.push_back({c, 0});
        }
        continue;
      }
      std::string key = intern_key(node, rep);
      auto [it, fresh] = interned.emplace(std::move(key), node);
      rep[node] = it->second;
      (void)fresh;
      state[node] = 2;
      stack.pop_back();
    }
  }
  auto redirect = [&rep](Node*& p) {
    if (p == nullptr) return;
    auto it = rep.find(p);
    if (it != rep.end()) p = it->second;
  };
  for (const Node* n : order) for_each_child_slot(*const_cast<Node*>(n), redirect);
  redirect(root);
  return root;
}

}  // namespace

std::vector<Node*> children(const Node* node) {
  std::vector<Node*> out;
  for_each_child(*node, [&out](Node* c) { out.push_back(c); });
  return out;
}

std::vector<Node*> pickled_children(const Node* node) {
  if (node->kind != Kind::Module) return children(node);
  return {};
}

namespace {

template <typename Children>
std::vector<const Node*> breadth_first(const Node* root, Children kids) {
  std::vector<const Node*> out;
  if (root == nullptr) return out;
  std::unordered_set<const Node*> seen{root};
  out.push_back(root);
  for (std::size_t i = 0; i < out.size(); ++i) {
    for (const Node* c : kids(out[i])) {
      if (seen.insert(c).second) out.push_back(c);
    }
  }
  return out;
}

}  // namespace

std::vector<const Node*> reachable(const Node* root) {
  return breadth_first(root, [](const Node* n) { return children(n); });
}

std::vector<const Node*> reachable_pickled(const Node* root) {
  return breadth_first(root, [](const Node* n) { return pickled_children(n); });
}

Node* copy_value(const Node* root, Graph& out, std::unordered_map<const Node*, Node*>* map) {
  if (root == nullptr) return nullptr;
  std::unordered_map<const Node*, Node*> local;
  auto& m = map != nullptr ? *map : local;
  auto nodes = reachable(root);
  for (const Node* n : nodes) {
    Node* copy = out.make(n->kind);
    copy_scalars(n, copy);
    m[n] = copy;
  }
  for (const Node* n : nodes) {
    Node* copy = m.at(n);
    // The same parts, then every child pointed at its copy.
    copy->items = n->items;
    if (n->array()) copy->set_array(std::make_unique<ArrayParts>(*n->array()));
    copy->set_device(n->device());  // a device buffer is shared, not copied
    if (n->obj()) copy->set_obj(std::make_unique<ObjectParts>(*n->obj()));
    for_each_child_slot(*copy, [&m](Node*& c) { c = m.at(c); });
  }
  return m.at(root);
}

bool immutable_kind(Kind kind) {
  return is_atom(kind) || kind == Kind::Str || kind == Kind::Bytes || kind == Kind::Tuple ||
         kind == Kind::FrozenSet || kind == Kind::Global;
}

const Node* buffers_as_bytes(const Node* value, Graph& scratch) {
  auto nodes = reachable(value);
  bool any = std::any_of(nodes.begin(), nodes.end(),
                         [](const Node* n) { return n->kind == Kind::PickleBuffer; });
  if (!any) return value;
  std::unordered_map<const Node*, Node*> map;
  Node* root = copy_value(value, scratch, &map);
  for (auto& [original, copy] : map) {
    if (original->kind != Kind::PickleBuffer) continue;
    copy->kind = original->flag ? Kind::Bytes : Kind::ByteArray;
    copy->flag = false;
  }
  return root;
}

namespace {

// getattr(<x>, '<name>') with nothing else.
bool is_getattr_call(const Node* n) {
  if (n->kind != Kind::Object || n->obj() == nullptr) return false;
  const ObjectParts& o = *n->obj();
  if (o.state != nullptr || o.state_setter != nullptr || !o.listitems.empty() ||
      !o.dictitems.empty()) {
    return false;
  }
  const Node* f = o.callable;
  if (f == nullptr || f->kind != Kind::Global || f->payload() != "builtins" ||
      f->name() != "getattr") {
    return false;
  }
  const Node* args = o.args;
  return args != nullptr && args->kind == Kind::Tuple && args->items.size() == 2 &&
         args->items[1]->kind == Kind::Str && !args->items[1]->payload().empty();
}

// getattr(<global>, '<name>') with nothing else: a nested global's name.
bool is_getattr_global(const Node* n) {
  return is_getattr_call(n) && n->obj()->args->items[0]->kind == Kind::Global;
}

// copyreg.__newobj__(cls, ...) or copyreg.__newobj_ex__(cls, args, kwargs).
bool is_newobj_call(const Node* n) {
  if (n->kind != Kind::Object || n->obj() == nullptr) return false;
  const Node* f = n->obj()->callable;
  const Node* args = n->obj()->args;
  return f != nullptr && f->kind == Kind::Global && f->payload() == "copyreg" &&
         (f->name() == "__newobj__" || f->name() == "__newobj_ex__") && args != nullptr &&
         args->kind == Kind::Tuple && !args->items.empty();
}

}  // namespace

const Node* getattr_as_globals(const Node* value, Graph& scratch, GetattrScope scope) {
  auto nodes = reachable(value);
  if (std::none_of(nodes.begin(), nodes.end(), is_getattr_call)) return value;
  std::unordered_map<const Node*, Node*> map;
  Node* root = copy_value(value, scratch, &map);
  // The copies that may become globals: all of them, or the classes that
  // copyreg.__newobj__ and __newobj_ex__ name, with the getattr chain inside.
  std::unordered_set<const Node*> wanted;
  for (auto& [original, copy] : map) {
    if (scope == GetattrScope::Everywhere) {
      if (is_getattr_call(copy)) wanted.insert(copy);
      continue;
    }
    if (!is_newobj_call(copy)) continue;
    for (const Node* cls = copy->obj()->args->items[0]; is_getattr_call(cls);
         cls = cls->obj()->args->items[0]) {
      wanted.insert(cls);
    }
  }
  // Inner names first: getattr(getattr(M.A, 'B'), 'c') is M.A.B.c.
  for (bool changed = true; changed;) {
    changed = false;
    for (auto& [original, copy] : map) {
      if (!is_getattr_global(copy) || wanted.count(copy) == 0) continue;
      const Node* parent = copy->obj()->args->items[0];
      const Node* attr = copy->obj()->args->items[1];
      std::string module(parent->payload());
      std::string name = parent->name() + "." + std::string(attr->payload());
      copy->set_obj(nullptr);
      copy->kind = Kind::Global;
      copy->set_owned(std::move(module));
      copy->set_name(std::move(name));
      changed = true;
    }
  }
  return root;
}

namespace {

bool loses(const std::vector<std::string>& lost, std::string_view what) {
  return std::find(lost.begin(), lost.end(), what) != lost.end();
}

// The int's value as the nearest double (correctly rounded through its
// decimal text).
double int_as_double(const Node* n) {
  if (!n->big) return static_cast<double>(n->small());
  return std::strtod(twos_le_to_decimal(n->payload()).c_str(), nullptr);
}

bool fits_double_exactly(const Node* n) {
  constexpr std::int64_t kLimit = std::int64_t{1} << 53;
  return !n->big && n->small() >= -kLimit && n->small() <= kLimit;
}

Node* unshare(const Node* root, Graph& out, std::size_t budget = 1u << 18);

// A key's canonical JSON as a tree: a key is immutable, so which of its
// parts are one object (Python's interned '' and the other '') says nothing
// about it, and must not change where its pair sorts.
std::string key_text(const Node* key) {
  Graph scratch;
  const Node* tree = unshare(key, scratch);
  return to_json(tree != nullptr ? tree : key);
}

// Puts a dict's pairs in the order of their keys' canonical JSON, so two
// dicts with the same pairs in any order compare equal.
void sort_dict_pairs(Node* dict) {
  std::vector<std::pair<std::string, std::pair<Node*, Node*>>> pairs;
  for (std::size_t i = 0; i + 1 < dict->items.size(); i += 2) {
    pairs.push_back({key_text(dict->items[i]), {dict->items[i], dict->items[i + 1]}});
  }
  std::stable_sort(pairs.begin(), pairs.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    dict->items[2 * i] = pairs[i].second.first;
    dict->items[2 * i + 1] = pairs[i].second.second;
  }
}

// Makes an int the integer its nearest double holds exactly.
void set_int_to_double(Node* n) {
  const double d = int_as_double(n);
  std::string decimal = fmt::format("{:.0f}", d);
  if (d >= -9.2e18 && d <= 9.2e18) {
    n->set_small(static_cast<std::int64_t>(d));
    n->set_owned({});
    return;
  }
  n->set_big(decimal_to_twos_le(decimal).value_or(std::string()));
}

bool valid_utf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (std::size_t k = 1; k < len; ++k) {
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    }
    i += len;
  }
  return true;
}

}  // namespace

namespace {

bool relaxes_kinds(const std::vector<std::string>& lost) {
  for (const char* d : {"tuple", "int-float", "big-int", "bytes-bytearray", "set-frozenset",
                        "str-bytes", "nan-bits", "dict-order"}) {
    if (loses(lost, d)) return true;
  }
  return false;
}

// Erases the distinctions of `lost` in a value this code owns (a copy).
void relax_in_place(Node* root, const std::vector<std::string>& lost) {
  const bool tuple = loses(lost, "tuple");
  const bool int_float = loses(lost, "int-float");
  const bool big_int = loses(lost, "big-int");
  const bool bytes_bytearray = loses(lost, "bytes-bytearray");
  const bool set_frozenset = loses(lost, "set-frozenset");
  const bool str_bytes = loses(lost, "str-bytes");
  const bool nan_bits = loses(lost, "nan-bits");
  const bool dict_order = loses(lost, "dict-order");
  const std::vector<const Node*> nodes = reachable(root);
  for (const Node* cn : nodes) {
    Node* n = const_cast<Node*>(cn);
    switch (n->kind) {
      case Kind::Tuple:
        if (tuple) n->kind = Kind::List;
        break;
      case Kind::FrozenSet:
        if (set_frozenset) n->kind = Kind::Set;
        break;
      case Kind::ByteArray:
        if (bytes_bytearray) n->kind = Kind::Bytes;
        break;
      case Kind::Int:
        if (int_float) {
          double d = int_as_double(n);
          n->kind = Kind::Float;
          n->drop_small();
          n->set_owned({});
          n->f = d;
        } else if (big_int && !fits_double_exactly(n)) {
          set_int_to_double(n);
        }
        break;
      default: break;
    }
    if (n->kind == Kind::Bytes && str_bytes && valid_utf8(n->payload())) n->kind = Kind::Str;
    if (n->kind == Kind::Float && nan_bits && std::isnan(n->f)) {
      n->f = std::numeric_limits<double>::quiet_NaN();
    }
  }
  // Keys are compared by their text, so every key is relaxed first, and a
  // set's items (in whatever order its interpreter iterates them, which the
  // comparison ignores) are put in the order of their text, innermost sets
  // first, so that a frozenset key's text does not depend on that order.
  if (dict_order) {
    for (auto it = nodes.rbegin(); it != nodes.rend(); ++it) {
      Node* n = const_cast<Node*>(*it);
      if (n->kind != Kind::Set && n->kind != Kind::FrozenSet) continue;
      std::vector<std::pair<std::string, Node*>> items;
      for (Node* item : n->items) items.push_back({key_text(item), item});
      std::stable_sort(items.begin(), items.end(),
                       [](const auto& a, const auto& b) { return a.first < b.first; });
      for (std::size_t i = 0; i < items.size(); ++i) n->items[i] = items[i].second;
    }
    for (const Node* cn : nodes) {
      if (cn->kind == Kind::Dict) sort_dict_pairs(const_cast<Node*>(cn));
    }
  }
}

// The value as a tree: a node reached twice is copied. nullptr when the
// value has a cycle or the tree would pass `budget` nodes.
Node* unshare(const Node* root, Graph& out, std::size_t budget) {
  std::unordered_map<const Node*, int> in_path;
  std::size_t made = 0;
  bool failed = false;
  // Iterative copy: (original, copy, next child index).
  struct Frame {
    const Node* from;
    Node* to;
    std::size_t next;
  };
  auto make = [&](const Node* from) -> Node* {
    if (++made > budget) {
      failed = true;
      return nullptr;
    }
    // A shallow copy; the children are re-pointed as the walk reaches them.
    Node* n = out.make(from->kind);
    copy_scalars(from, n);
    n->items = from->items;
    return n;
  };
  if (root == nullptr) return nullptr;
  if (root->obj() || root->array() || root->device()) return nullptr;
  Node* top = make(root);
  std::vector<Frame> stack{{root, top, 0}};
  in_path[root] = 1;
  while (!stack.empty() && !failed) {
    Frame& f = stack.back();
    if (f.next == f.from->items.size()) {
      in_path[f.from] = 0;
      stack.pop_back();
      continue;
    }
    const Node* child = f.from->items[f.next];
    std::size_t slot = f.next++;
    if (child == nullptr || is_atom(child->kind)) continue;
    if (in_path[child] == 1 || child->obj() || child->array() || child->device()) return nullptr;
    Node* copy = make(child);
    if (copy == nullptr) return nullptr;
    f.to->items[slot] = copy;
    in_path[child] = 1;
    stack.push_back({child, copy, 0});
  }
  return failed ? nullptr : top;
}

}  // namespace

const Node* relax_value(const Node* value, Graph& scratch, const std::vector<std::string>& lost) {
  if (value == nullptr || !relaxes_kinds(lost)) return value;
  Node* root = copy_value(value, scratch);
  relax_in_place(root, lost);
  return root;
}

bool equal_under(const Node* a, const Node* b, SharingRule rule, Difference* why,
                 const EqualOptions& options, const std::vector<std::string>& lost) {
  phase::Scope timed(phase::Phase::Compare);
  if (a == nullptr || b == nullptr) return equal(a, b, options, why);
  Graph ga;
  Graph gb;
  Node* ca = copy_value(a, ga);
  Node* cb = copy_value(b, gb);
  // Kinds first: a list that may have been a tuple (or a set a frozenset)
  // then shares as the immutable it may have been.
  std::vector<Kind> also;
  if (relaxes_kinds(lost)) {
    relax_in_place(ca, lost);
    relax_in_place(cb, lost);
    if (rule == SharingRule::ImmutablesFree) {
      if (loses(lost, "tuple")) also.push_back(Kind::List);
      if (loses(lost, "set-frozenset")) also.push_back(Kind::Set);
    }
  }
  ca = hash_cons(ca, rule, also);
  cb = hash_cons(cb, rule, also);
  if (loses(lost, "sharing")) {
    // Trees compare as trees: the subject cannot say which references were
    // one object. A cycle (or a tree too large to expand) stays a graph.
    Graph ta;
    Graph tb;
    Node* ua = unshare(ca, ta);
    Node* ub = unshare(cb, tb);
    if (ua != nullptr && ub != nullptr) return equal(ua, ub, options, why);
  }
  return equal(ca, cb, options, why);
}

}  // namespace serialcheck
