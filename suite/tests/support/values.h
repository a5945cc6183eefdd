// Test support: building values (node graphs) in one short call per node,
// the way the codec tests write their expected values. Each call makes a
// new node in `g`; share a node by using the pointer twice. Nothing here
// throws except big(), which throws std::invalid_argument on text that is
// not a decimal integer.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "reference/value/value.h"

namespace serialcheck::test_support {

struct Values {
  Graph& g;

  Node* none() { return g.none(); }
  Node* t() { return g.boolean(true); }
  Node* f() { return g.boolean(false); }
  Node* i(std::int64_t v) { return g.integer(v); }
  // An int of any size from its decimal text ("-123...").
  Node* big(const std::string& decimal);
  Node* fl(double v) { return g.floating(v); }
  Node* s(std::string v) { return g.str(std::move(v)); }
  Node* b(std::string v) { return g.bytes(std::move(v)); }
  Node* ba(std::string v) { return g.bytearray(std::move(v)); }
  Node* L(std::vector<Node*> v = {}) { return g.list(std::move(v)); }
  Node* T(std::vector<Node*> v = {}) { return g.tuple(std::move(v)); }
  // Keys and values alternate: D({k1, v1, k2, v2}).
  Node* D(std::vector<Node*> kv = {}) { return g.dict(std::move(kv)); }
  Node* S(std::vector<Node*> v = {}) { return g.set(std::move(v)); }
  Node* FS(std::vector<Node*> v = {}) { return g.frozenset(std::move(v)); }
  Node* G(std::string module, std::string name) {
    return g.global(std::move(module), std::move(name));
  }
  Node* pers(Node* pid) { return g.persid(pid); }
  Node* pb(std::string data, bool readonly) { return g.pickle_buffer(std::move(data), readonly); }
  // An object reduced to (callable, args[, state]).
  Node* obj(Node* callable, Node* args, Node* state = nullptr);
  // mod.make(*args), with `state` if given.
  Node* make(Node* args, Node* state = nullptr) { return obj(G("mod", "make"), args, state); }
  // copyreg.__newobj__(mod.Obj, *args).
  Node* newobj(std::vector<Node*> args, Node* state = nullptr);
  // copyreg.__newobj_ex__(mod.Obj, args, kwargs).
  Node* newobj_ex(Node* args, Node* kwargs);
  // [0, 1, ..., n - 1]
  Node* ints(std::int64_t n);
};

// `n`, an NDArray or Tensor node, given this layout over `data` (owned).
Node* with_layout(Node* n, std::string dtype, std::vector<std::int64_t> shape,
                  std::vector<std::int64_t> strides, std::int64_t offset, std::string data);

}  // namespace serialcheck::test_support
