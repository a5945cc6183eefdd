// The domain kinds (ndarray, tensor, module, device buffer) and the pickle
// forms their Python types use: the copyreg of this project.
//
// Writing: the encoder asks a `Lowering` for the generic reduce a domain node
// pickles as (an Object node graph built in a scratch graph), then writes
// that exactly as the C pickler would. One domain node always lowers to the
// same scratch node, so sharing and memo numbering are kept, and objects the
// Python side shares between values (numpy's builtin dtype singletons...)
// are shared through `Lowering::shared`.
//
// Reading: after decoding, `raise_domain_forms` turns every Object node whose
// reduce is a recognised form (numpy's `_reconstruct`/`_frombuffer`, torch's
// `_rebuild_tensor_v2`, cloudpickle's `subimport`) into the domain node, in
// place, so references to it keep their identity. Anything that does not
// match a form exactly stays a generic Object node.
#pragma once

#include <functional>
#include <memory>
#include <span>
#include <string>
#include <unordered_map>

#include "reference/value/value.h"

namespace serialcheck::types {

struct LowerOptions {
  int protocol = 5;
  // The encoder has a buffer callback (protocol 5): data may be handed out
  // of band as PickleBuffer nodes that borrow the domain node's memory.
  bool out_of_band = false;
};

class Lowering {
 public:
  explicit Lowering(LowerOptions options) : options_(options) {}
  Lowering(const Lowering&) = delete;
  Lowering& operator=(const Lowering&) = delete;

  // The generic form of domain node `n`; the same `n` gives the same node.
  // Throws PickleError(Unpicklable) when `n` has no pickle form at this
  // protocol (e.g. a device buffer).
  const Node* lower(const Node* n);

  // A node shared by every lowering of this encode, made once by `make`.
  Node* shared(const std::string& key, const std::function<Node*(Graph&)>& make);

  Graph& scratch() { return scratch_; }
  const LowerOptions& options() const { return options_; }

 private:
  LowerOptions options_;
  Graph scratch_;
  std::unordered_map<const Node*, const Node*> lowered_;
  std::unordered_map<std::string, Node*> shared_;
};

// Per-kind lowerings, one file each (ndarray.cpp, tensor.cpp, module.cpp).
Node* lower_ndarray(Lowering& lowering, const Node& n);
Node* lower_tensor(Lowering& lowering, const Node& n);
Node* lower_module(Lowering& lowering, const Node& n);

// Per-form recognisers: when `object` (an Object node of `graph`) is the
// form, rewrite it in place into the domain node and return true.
bool raise_ndarray(Graph& graph, Node& object);
bool raise_tensor(Graph& graph, Node& object);
bool raise_module(Graph& graph, Node& object);

// Runs every recogniser over every Object node of `graph`.
void raise_domain_forms(Graph& graph);
// The same over `objects`, which must be every Object node of `graph` in
// the order they were made (what a decoder that made them all lists): the
// same result without a look at every other node.
void raise_domain_forms(Graph& graph, std::span<Node* const> objects);

}  // namespace serialcheck::types
