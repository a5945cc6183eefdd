// A plan is the recipe of a generated value: a plain tree of copyable
// structs that RapidCheck generates and shrinks, and that build() turns into
// a Graph. Sharing and cycles are not in the tree itself: a Share or Cycle
// step says "reuse a node built earlier" or "point back to an enclosing
// container", and the builder resolves it, so every shrink of the tree is
// still a well-formed value.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "harness/gen/config.h"
#include "reference/value/value.h"

namespace serialcheck::gen {

// Leaf specs of the domain kinds (ndarray_gen.h, tensor_gen.h, module_gen.h).
struct NDArraySpec;
struct TensorSpec;
struct ModuleSpec;
struct DeviceBufferSpec;

enum class PlanTag : std::uint8_t {
  Value,  // a new node of `kind`
  Share,  // a node completed earlier (pick selects which); None when there is none
  Cycle,  // an enclosing list, dict or object (pick selects which); None when there is none
};

struct Plan {
  PlanTag tag = PlanTag::Value;
  Kind kind = Kind::None;
  bool flag = false;  // Bool: the value. PickleBuffer: readonly. Object: NEWOBJ form.
  double f = 0.0;     // Float
  // Int: two's-complement little-endian bytes. Str: UTF-8 (surrogatepass).
  // Bytes, ByteArray, PickleBuffer: the data. Object: a fixture request's
  // kind (fixtures.h), its first argument; empty for other objects.
  std::string text;
  std::string module, name;  // Global. Object: the callable, or the class in NEWOBJ form.
  std::string setter_module, setter_name;  // Object: state_setter, when module is non-empty
  std::uint32_t pick = 0;                  // Share, Cycle. Object: 1 = NEWOBJ_EX form
  // List, Tuple, Set, FrozenSet: items. Dict: key0, value0, key1, ...
  // PersId: the pid. Object: the arguments (after the class in NEWOBJ form).
  std::vector<Plan> items;
  std::vector<Plan> state;      // Object: empty or one element
  std::vector<Plan> listitems;  // Object
  std::vector<Plan> dictitems;  // Object: key0, value0, key1, ...
  // NDArray, Tensor, Module, DeviceBuffer: the leaf's spec (the one of its kind).
  std::shared_ptr<const NDArraySpec> ndarray;
  std::shared_ptr<const TensorSpec> tensor;
  std::shared_ptr<const ModuleSpec> module_spec;
  std::shared_ptr<const DeviceBufferSpec> device;
};

// Plans of whole values under `config` (the root is never Share or Cycle).
rc::Gen<Plan> plan(const GenConfig& config);

// Plans of values usable as dict keys and set items: None, bool, int,
// float (not NaN), str, bytes, and tuples and frozensets of those.
rc::Gen<Plan> hashablePlan(const GenConfig& config);

}  // namespace serialcheck::gen
