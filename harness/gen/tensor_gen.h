// Generators of Tensor nodes: every dtype the model knows, 0-d and empty
// tensors, contiguous and non-contiguous views (permuted, strided, offset
// into a larger storage, broadcast with stride 0), with and without
// requires_grad and a grad (itself any such tensor of the same dtype and
// shape). A spec is plain data, so RapidCheck can shrink it; build_tensor
// makes its nodes in a graph.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "harness/gen/value.h"
#include "reference/value/value.h"

namespace serialcheck::gen {

struct TensorSpec {
  std::string dtype;  // "float32"
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // in elements
  std::int64_t offset = 0;            // storage offset in elements
  std::int64_t storage_elements = 0;  // the whole storage
  // Storage contents: all zero bytes when `seed` is 0, else pseudo-random
  // bits from `seed` (NaNs with payloads and subnormals among the floats;
  // bool elements are 0 or 1).
  std::uint64_t seed = 0;
  bool requires_grad = false;
  std::shared_ptr<const TensorSpec> grad;  // null: no grad
};

struct TensorGenOptions {
  bool allow_grad = true;
  // Grads of grads at most this deep.
  int max_grad_depth = 2;
};

rc::Gen<TensorSpec> tensorSpec(const TensorGenOptions& options = {});

// The spec's nodes in `graph` (the tensor, then its grads); returns the tensor.
Node* build_tensor(const TensorSpec& spec, Graph& graph);

// A value whose root is one generated tensor.
rc::Gen<GeneratedValue> tensorValue(const TensorGenOptions& options = {});

void showValue(const TensorSpec& spec, std::ostream& os);

}  // namespace serialcheck::gen
