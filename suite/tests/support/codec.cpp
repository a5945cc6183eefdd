#include "suite/tests/support/codec.h"

namespace serialcheck::test_support {

std::string encode_at(const Node* v, int protocol) {
  pickle::EncodeOptions options;
  options.protocol = protocol;
  return pickle::encode(v, options).bytes;
}

Node* decode_into(std::string_view bytes, Graph& g, const pickle::DecodeOptions& options) {
  return pickle::decode(bytes, g, options).root;
}

std::string why_unequal(const Node* a, const Node* b, const EqualOptions& options) {
  Difference d;
  if (equal(a, b, options, &d)) return "";
  return d.path + ": " + d.reason;
}

}  // namespace serialcheck::test_support
