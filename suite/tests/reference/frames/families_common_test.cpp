// The pieces the families share (reference/frames/families_common.h).
#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "reference/frames/families_common.h"
#include "reference/value/value.h"

namespace serialcheck::families::detail {
namespace {

// type(x).__name__, as Python gives it, for a value of every kind that is
// not a generic object (distributed puts it in "Could not serialize object
// of type ..." errors).
TEST(FamiliesTypeName, EveryKindNamesItsPythonType) {
  Graph g;
  const std::vector<std::pair<Node*, std::string>> cases = {
      {g.none(), "NoneType"},
      {g.boolean(true), "bool"},
      {g.integer(1), "int"},
      {g.floating(1.5), "float"},
      {g.str("a"), "str"},
      {g.bytes("a"), "bytes"},
      {g.bytearray("a"), "bytearray"},
      {g.list(), "list"},
      {g.tuple(), "tuple"},
      {g.dict(), "dict"},
      {g.set(), "set"},
      {g.frozenset(), "frozenset"},
      {g.global("builtins", "print"), "type"},
      {g.persid(g.str("id")), "persistent id"},
      {g.pickle_buffer("a", true), "PickleBuffer"},
      {g.ndarray(), "ndarray"},
      {g.tensor(), "Tensor"},
      {g.module("os"), "module"},
      {g.make(Kind::DeviceBuffer), "DeviceBuffer"},
  };
  for (const auto& [node, name] : cases) {
    EXPECT_EQ(python_type_name(*node), name) << kind_name(node->kind);
  }
}

TEST(FamiliesTypeName, AnObjectIsNamedByItsClass) {
  Graph g;
  EXPECT_EQ(python_type_name(*g.object(g.global("collections", "OrderedDict"), g.tuple())),
            "OrderedDict");
  // copyreg.__newobj__(cls, ...) makes a cls.
  Node* newobj = g.object(g.global("copyreg", "__newobj__"),
                          g.tuple({g.global("mod", "Outer.Inner"), g.integer(1)}));
  EXPECT_EQ(python_type_name(*newobj), "Inner");
  // Negative control: a callable that is not a global names no class.
  EXPECT_EQ(python_type_name(*g.object(g.str("f"), g.tuple())), "object");
}

}  // namespace
}  // namespace serialcheck::families::detail
