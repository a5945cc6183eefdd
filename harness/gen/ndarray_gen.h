// Generators of numpy arrays (NDArray nodes): every numeric dtype in both
// byte orders, 0 to 4 dimensions (empty and 0-d arrays included), and the
// layouts numpy arrays really have: C and Fortran order, strided, reversed
// and transposed views of a bigger buffer, zero-stride (broadcast)
// dimensions, odd strides on length-1 dimensions, unaligned offsets, the
// WRITEABLE flag either way; now and then a 1-d array of 3,000 to 9,000
// elements (up to 144 KB: past pickle's 64 KiB frames).
//
// A spec is a plain copyable description that RapidCheck generates and
// shrinks; build_ndarray() turns it into a node of a graph.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <string>
#include <vector>

#include "harness/gen/value.h"
#include "reference/value/value.h"

namespace serialcheck::gen {

struct NDArraySpec {
  std::string dtype;  // numpy's dtype.str, e.g. "<f8"
  std::vector<std::int64_t> shape;
  std::vector<std::int64_t> strides;  // bytes
  std::int64_t offset = 0;            // bytes, into payload
  bool writeable = true;
  std::string payload;
};

struct NDArrayGenOptions {
  std::size_t max_dims = 4;
  // Elements of the view (the buffer under a strided view may be larger).
  std::int64_t max_elements = 256;
  // Now and then a 1-d array of 3,000 to 9,000 elements.
  bool allow_big = true;
};

// Arrays that are well-formed (types::ndarray_problem is empty).
rc::Gen<NDArraySpec> ndarraySpec(const NDArrayGenOptions& options = {});

// A new NDArray node of `graph` holding `spec` (the payload is copied).
Node* build_ndarray(const NDArraySpec& spec, Graph& graph);

// How several arrays sit in one value: which container holds them and which
// array each of its entries is (an array may be an entry several times).
struct NDArrayValuePlan {
  std::vector<NDArraySpec> arrays;
  int container = 0;               // 0: the first array is the root; 1 list; 2 tuple; 3 dict
  std::vector<std::size_t> picks;  // indexes into `arrays`, one per entry
};

rc::Gen<NDArrayValuePlan> ndarrayValuePlan(const NDArrayGenOptions& options = {});

// Builds the plan: a dict maps "a0", "a1"... to its entries.
GeneratedValue make_ndarray_value(const NDArrayValuePlan& plan);

// Values made of arrays: one array, or a list, tuple or dict of one to
// three arrays, some of them entered more than once (shared).
rc::Gen<GeneratedValue> ndarrayValue(const NDArrayGenOptions& options = {});

}  // namespace serialcheck::gen
