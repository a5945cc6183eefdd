// The one child traversal (reference/value/children.h): the order every
// kind's children are visited in, spelled out, and the parts they are
// reached through.
#include "reference/value/children.h"

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

namespace serialcheck {
namespace {

std::vector<const Node*> kids(const Node* n) {
  std::vector<const Node*> out;
  for_each_child(*n, [&out](const Node* c) { out.push_back(c); });
  return out;
}

std::vector<ChildPart> parts(const Node* n) {
  std::vector<ChildPart> out;
  for_each_child(*n, [&out](const Node*, ChildPart part) { out.push_back(part); });
  return out;
}

// An object m.C() with no other parts.
struct Reduce {
  Node* callable;
  Node* args;
  Node* object;
};
Reduce plain_object(Graph& g) {
  Node* callable = g.global("m", "C");
  Node* args = g.tuple();
  return {callable, args, g.object(callable, args)};
}

TEST(Children, SequencesVisitTheirItemsInOrder) {
  Graph g;
  for (Kind k : {Kind::List, Kind::Tuple, Kind::Set, Kind::FrozenSet}) {
    Node* a = g.integer(1);
    Node* b = g.str("b");
    Node* c = g.list();
    Node* n = g.make(k);
    n->items = {a, b, c, b};
    EXPECT_EQ(kids(n), (std::vector<const Node*>{a, b, c, b})) << kind_name(k);
    EXPECT_EQ(parts(n), std::vector<ChildPart>(4, ChildPart::Item));
  }
}

TEST(Children, DictVisitsEachKeyBeforeItsValue) {
  Graph g;
  Node* k0 = g.str("k0");
  Node* v0 = g.integer(0);
  Node* k1 = g.str("k1");
  Node* v1 = g.list();
  Node* d = g.dict({k0, v0, k1, v1});
  EXPECT_EQ(kids(d), (std::vector<const Node*>{k0, v0, k1, v1}));
}

TEST(Children, PersIdAndModuleVisitTheirOneItem) {
  Graph g;
  Node* pid = g.str("pid");
  EXPECT_EQ(kids(g.persid(pid)), (std::vector<const Node*>{pid}));
  Node* cls = g.global("mod", "Sub");
  EXPECT_EQ(kids(g.module("mod", cls)), (std::vector<const Node*>{cls}));
  EXPECT_TRUE(kids(g.module("mod")).empty());
}

TEST(Children, ObjectVisitsItsReduceInTheOrderJsonWritesIt) {
  Graph g;
  auto [callable, args, o] = plain_object(g);
  Node* state = g.dict();
  Node* setter = g.global("m", "setstate");
  Node* l0 = g.integer(1);
  Node* l1 = g.integer(2);
  Node* dk = g.str("k");
  Node* dv = g.list();
  o->obj()->state = state;
  o->obj()->state_setter = setter;
  o->obj()->listitems = {l0, l1};
  o->obj()->dictitems = {{dk, dv}};
  EXPECT_EQ(kids(o), (std::vector<const Node*>{callable, args, state, setter, l0, l1, dk, dv}));
  EXPECT_EQ(parts(o), (std::vector<ChildPart>{
                          ChildPart::Callable, ChildPart::Args, ChildPart::State,
                          ChildPart::StateSetter, ChildPart::ListItem, ChildPart::ListItem,
                          ChildPart::DictItemKey, ChildPart::DictItemValue}));
  EXPECT_TRUE(is_reduce_part(ChildPart::StateSetter));
  EXPECT_FALSE(is_reduce_part(ChildPart::ListItem));
}

TEST(Children, AbsentObjectPartsAreSkipped) {
  Graph g;
  auto [callable, args, o] = plain_object(g);
  Node* l0 = g.none();
  o->obj()->listitems = {l0};
  EXPECT_EQ(kids(o), (std::vector<const Node*>{callable, args, l0}));
  EXPECT_EQ(parts(o), (std::vector<ChildPart>{ChildPart::Callable, ChildPart::Args,
                                              ChildPart::ListItem}));
}

TEST(Children, TensorVisitsItsGradOnly) {
  Graph g;
  Node* t = g.tensor();
  EXPECT_TRUE(kids(t).empty());
  Node* grad = g.tensor();
  t->array()->grad = grad;
  EXPECT_EQ(kids(t), (std::vector<const Node*>{grad}));
  EXPECT_EQ(parts(t), (std::vector<ChildPart>{ChildPart::Grad}));
}

TEST(Children, LeavesHaveNone) {
  Graph g;
  for (Node* n : {g.none(), g.boolean(true), g.integer(3), g.floating(1.5), g.str("s"),
                  g.bytes("b"), g.bytearray("b"), g.global("m", "q"),
                  g.pickle_buffer("x", true), g.ndarray()}) {
    EXPECT_TRUE(kids(n).empty()) << kind_name(n->kind);
  }
}

TEST(Children, SlotsLetTheCallerRedirectEveryChild) {
  Graph g;
  Node* old_item = g.str("old");
  Node* fresh = g.str("new");
  Node* o = g.object(old_item, g.tuple({old_item}));
  o->obj()->dictitems = {{old_item, old_item}};
  Node* l = g.list({old_item, nullptr, old_item});
  std::size_t visited = 0;
  for (Node* n : {o, l}) {
    for_each_child_slot(*n, [&](Node*& slot) {
      ++visited;
      if (slot == old_item) slot = fresh;
    });
  }
  // The object's args tuple is a child too (not redirected); the null item is skipped.
  EXPECT_EQ(visited, 4u + 2u);
  EXPECT_EQ(o->obj()->callable, fresh);
  EXPECT_EQ(o->obj()->dictitems[0], (std::pair<Node*, Node*>{fresh, fresh}));
  EXPECT_EQ(l->items, (std::vector<Node*>{fresh, nullptr, fresh}));
}

}  // namespace
}  // namespace serialcheck
