#include "reference/types/domain.h"

#include <string>

#include "reference/types/pickle_codec.h"

namespace serialcheck::types {

const Node* Lowering::lower(const Node* n) {
  if (auto it = lowered_.find(n); it != lowered_.end()) return it->second;
  Node* out = nullptr;
  switch (n->kind) {
    case Kind::NDArray: out = lower_ndarray(*this, *n); break;
    case Kind::Tensor: out = lower_tensor(*this, *n); break;
    case Kind::Module: out = lower_module(*this, *n); break;
    default:
      refuse_pickling("a " + std::string(kind_name(n->kind)) +
                      " has no pickle form; send it with the cuda family");
  }
  lowered_.emplace(n, out);
  return out;
}

Node* Lowering::shared(const std::string& key, const std::function<Node*(Graph&)>& make) {
  if (auto it = shared_.find(key); it != shared_.end()) return it->second;
  Node* n = make(scratch_);
  shared_.emplace(key, n);
  return n;
}

namespace {

// Every recogniser, in turn, until one rewrites `n`.
void raise_one(Graph& graph, Node& n) {
  if (n.kind != Kind::Object) return;
  if (raise_ndarray(graph, n) || raise_tensor(graph, n)) return;
  raise_module(graph, n);
}

}  // namespace

void raise_domain_forms(Graph& graph) {
  // Nodes added by a recogniser are appended; they are new domain nodes or
  // their data and need no second look.
  const std::size_t count = graph.size();
  for (std::size_t i = 0; i < count; ++i) raise_one(graph, graph.node(i));
}

void raise_domain_forms(Graph& graph, std::span<Node* const> objects) {
  for (Node* n : objects) raise_one(graph, *n);
}

}  // namespace serialcheck::types
