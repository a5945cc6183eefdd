#include "suite/tests/support/values.h"

#include <stdexcept>

#include "reference/value/numeric.h"

namespace serialcheck::test_support {

Node* Values::big(const std::string& decimal) {
  auto le = decimal_to_twos_le(decimal);
  if (!le) throw std::invalid_argument("not a decimal integer: " + decimal);
  return g.integer_le(*le);
}

Node* Values::obj(Node* callable, Node* args, Node* state) {
  Node* o = g.object(callable, args);
  o->obj()->state = state;
  return o;
}

Node* Values::newobj(std::vector<Node*> args, Node* state) {
  args.insert(args.begin(), G("mod", "Obj"));
  return obj(G("copyreg", "__newobj__"), T(std::move(args)), state);
}

Node* Values::newobj_ex(Node* args, Node* kwargs) {
  return obj(G("copyreg", "__newobj_ex__"), T({G("mod", "Obj"), args, kwargs}));
}

Node* Values::ints(std::int64_t n) {
  std::vector<Node*> v;
  for (std::int64_t k = 0; k < n; ++k) v.push_back(i(k));
  return L(std::move(v));
}

Node* with_layout(Node* n, std::string dtype, std::vector<std::int64_t> shape,
                  std::vector<std::int64_t> strides, std::int64_t offset, std::string data) {
  ArrayParts& a = *n->array();
  a.dtype = std::move(dtype);
  a.shape = std::move(shape);
  a.strides = std::move(strides);
  a.offset = offset;
  n->set_owned(std::move(data));
  return n;
}

}  // namespace serialcheck::test_support
