// The node's size and placement (reference/value/value.h): a node is one
// cache line and a graph's nodes start on one. Getting either wrong breaks
// nothing a round trip sees, only the speed of every save and load, so it is
// checked here.
#include <gtest/gtest.h>

#include <cstdint>

#include "reference/value/value.h"

namespace serialcheck {
namespace {

TEST(ValueConstants, ANodeIsOneCacheLineAndStartsOnOne) {
  EXPECT_EQ(sizeof(Node), 64u);
  Graph g;
  for (int i = 0; i < 100; ++i) {  // past the first chunk
    const Node* n = g.integer(i);
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(n) % 64, 0u) << "node " << i;
  }
}

TEST(ValueConstants, TheRarePartsComeAndGoWithTheirNode) {
  Graph g;
  Node* s = g.str("abc");
  EXPECT_EQ(s->name(), "");
  EXPECT_EQ(s->obj(), nullptr);
  EXPECT_EQ(s->array(), nullptr);
  EXPECT_EQ(s->device(), nullptr);
  s->set_name("");  // nothing to keep: the node stays without extra parts
  EXPECT_EQ(s->name(), "");
  EXPECT_EQ(s->payload(), "abc");
  Node* glob = g.global("os", "path.join");
  EXPECT_EQ(glob->payload(), "os");
  EXPECT_EQ(glob->name(), "path.join");
  glob->set_name("sep");
  EXPECT_EQ(glob->name(), "sep");
  Node* o = g.object(glob, g.tuple());
  ASSERT_NE(o->obj(), nullptr);
  EXPECT_EQ(o->obj()->callable, glob);
  o->set_obj(nullptr);
  EXPECT_EQ(o->obj(), nullptr);
  // Set by hand: the bytes live with the node, not the arena.
  Node* b = g.bytes("");
  b->set_owned(std::string(2000, 'x'));
  EXPECT_EQ(b->payload().size(), 2000u);
  EXPECT_FALSE(b->borrowed());
  b->set_owned("");
  EXPECT_EQ(b->payload(), "");
  Node* e = g.bytes("xyz");
  e->set_owned("");  // without extra parts
  EXPECT_EQ(e->payload(), "");
  EXPECT_FALSE(e->borrowed());
}

}  // namespace
}  // namespace serialcheck
