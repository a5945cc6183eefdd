#include "harness/gen/config.h"

namespace serialcheck::gen {

GenConfig default_config() {
  return GenConfig{};
}

GenConfig python_safe_config() {
  GenConfig c;
  c.allow_persid = false;
  c.allow_objects = false;
  c.allow_state_setter = false;
  c.real_globals_only = true;
  // Off until an open question is settled: one generated case held a tuple
  // cycle through tuples only, which Python cannot build.
  c.allow_tuple_cycles = false;
  // Off here; the properties that compare with CPython turn arrays and
  // tensors on where the subjects of the cell take them (gate_props.h,
  // CasePlan). A tensor's grad never: pickle drops it (tensor.grad's
  // business). Modules have their own property (module.by-reference).
  c.allow_ndarrays = false;
  c.allow_tensors = false;
  c.allow_tensor_grads = false;
  c.allow_modules = false;
  c.allow_device_buffers = false;
  return c;
}

GenConfig small_config() {
  GenConfig c;
  c.max_depth = 2;
  c.max_items = 3;
  c.allow_large = false;
  c.draw_boundaries = false;
  return c;
}

}  // namespace serialcheck::gen
