// Test support for the NDArray kind (ndarray_test.cpp and, against real
// numpy, ndarray_python_test.cpp): an array node in one call, the arrays a
// value holds, and the codec with out-of-band buffers. encode_result and
// decode_with throw what the encoder and decoder throw (pickle::PickleError).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "harness/props/value_tools.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/types/ndarray.h"
#include "reference/value/value.h"
#include "suite/tests/support/values.h"

namespace serialcheck::test_support {

// An NDArray node in `g` over `payload`, with the layout given.
inline Node* array(Graph& g, std::string dtype, std::vector<std::int64_t> shape,
                   std::vector<std::int64_t> strides, std::int64_t offset, std::string payload,
                   bool writeable = true) {
  Node* n = with_layout(g.ndarray(), std::move(dtype), std::move(shape), std::move(strides),
                        offset, std::move(payload));
  n->array()->writeable = writeable;
  return n;
}

// The arrays reachable from `root`, each once, in reachable()'s order.
inline std::vector<const Node*> arrays_of(const Node* root) {
  std::vector<const Node*> out;
  for (const Node* n : reachable(root)) {
    if (n->kind == Kind::NDArray) out.push_back(n);
  }
  return out;
}

// Whether every array in `root` is C- or Fortran-contiguous. numpy pickles
// these with _frombuffer at protocol 5; the others come back contiguous, so
// their second encoding differs from the first.
inline bool all_contiguous(const Node* root) {
  for (const Node* n : arrays_of(root)) {
    const int itemsize = types::parse_numeric_dtype(n->array()->dtype)->itemsize;
    if (!types::ndarray_c_contiguous(*n->array(), itemsize) &&
        !types::ndarray_f_contiguous(*n->array(), itemsize)) {
      return false;
    }
  }
  return true;
}

// The encoding of `v` at `protocol`; with `out_of_band`, every buffer goes
// out of band (EncodeResult::buffers).
inline pickle::EncodeResult encode_result(const Node* v, int protocol, bool out_of_band) {
  pickle::EncodeOptions o;
  o.protocol = protocol;
  if (out_of_band) o.buffer_callback = [](const Node&) { return false; };
  return pickle::encode(v, o);
}

// The root of `bytes` decoded into `g` with `views` as its out-of-band buffers.
inline Node* decode_with(std::string_view bytes, Graph& g,
                         const std::vector<pickle::BufferView>& views = {}) {
  pickle::DecodeOptions o;
  o.buffers = views;
  return pickle::decode(bytes, g, o).root;
}

// The out-of-band buffers of `r` as a decoder takes them.
inline std::vector<pickle::BufferView> views_of(const pickle::EncodeResult& r) {
  std::vector<pickle::BufferView> views;
  for (const Node* b : r.buffers) {
    views.push_back(
        {reinterpret_cast<const std::uint8_t*>(b->payload().data()), b->payload().size(), b->flag});
  }
  return views;
}

}  // namespace serialcheck::test_support
