#include "reference/types/value_kinds.h"

#include <optional>
#include <string>

#include "reference/types/module.h"
#include "reference/types/ndarray.h"
#include "reference/types/tensor.h"
#include "reference/value/domain_kinds.h"

namespace serialcheck::types {
namespace {

bool ndarray_equal_hook(const Node& a, const Node& b, const EqualOptions& options,
                        std::string* why) {
  return ndarray_equal(a, b, why, options.ndarray_byte_order);
}

std::optional<std::string> ndarray_json_problem(const Node& n) {
  std::string problem = ndarray_problem(*n.array(), n.payload().size());
  if (problem.empty()) return std::nullopt;
  return problem;
}

bool tensor_equal_hook(const Node& a, const Node& b, const EqualOptions& options,
                       std::string* why) {
  return tensor_equal(a, b, why, options.tensor_layout);
}

std::optional<std::string> module_json_problem(const Node& n) {
  return module_name_problem(n.name());
}

}  // namespace

void register_value_kinds() {
  register_domain_kind(Kind::NDArray, {ndarray_equal_hook, ndarray_json_problem});
  register_domain_kind(Kind::Tensor, {tensor_equal_hook, tensor_problem});
  register_domain_kind(Kind::Module, {nullptr, module_json_problem});
}

}  // namespace serialcheck::types
