#include "harness/gen/tensor_gen.h"

#include <algorithm>
#include <numeric>
#include <random>
#include <utility>

#include "reference/types/tensor.h"
#include "reference/value/json.h"

namespace serialcheck::gen {

namespace {

std::vector<std::string> dtype_names() {
  std::vector<std::string> out;
  for (const types::TorchDtype& d : types::torch_dtypes()) out.emplace_back(d.name);
  return out;
}

// A uniform pick in [lo, hi) whatever RapidCheck's size: these are
// choices between cases, not magnitudes (inRange alone would always give lo
// at small sizes). Shrinks towards lo.
template <typename T>
T pick(T lo, T hi) {
  return *rc::gen::resize(100, rc::gen::inRange<T>(lo, hi));
}

// How a view sits in its storage: it is cut from a contiguous base tensor
// laid out in the dimension order `order`, taking every step-th index from
// `start`, with `lead` elements before the base and `trail` after it;
// dimensions in `broadcast` get stride 0.
struct Layout {
  std::vector<std::size_t> order;
  std::vector<std::int64_t> step;
  std::vector<std::int64_t> start;
  std::vector<std::int64_t> extra;  // base size beyond what the view uses
  std::vector<bool> broadcast;
  std::int64_t lead = 0;
  std::int64_t trail = 0;
};

void apply_layout(TensorSpec& spec, const Layout& l) {
  const std::size_t n = spec.shape.size();
  std::vector<std::int64_t> base(n);
  for (std::size_t k = 0; k < n; ++k) {
    base[k] = spec.shape[k] == 0 ? l.start[k] + l.extra[k]
                                 : l.start[k] + (spec.shape[k] - 1) * l.step[k] + 1 + l.extra[k];
  }
  // Contiguous strides of the base, the last dimension of `order` fastest.
  std::vector<std::int64_t> base_stride(n);
  std::int64_t run = 1;
  for (std::size_t i = n; i-- > 0;) {
    base_stride[l.order[i]] = run;
    run *= std::max<std::int64_t>(base[l.order[i]], 1);
  }
  std::int64_t base_elements = 1;
  for (std::int64_t b : base) base_elements *= b;
  spec.strides.assign(n, 0);
  spec.offset = l.lead;
  for (std::size_t k = 0; k < n; ++k) {
    spec.strides[k] = l.broadcast[k] ? 0 : base_stride[k] * l.step[k];
    spec.offset += l.start[k] * base_stride[k];
  }
  spec.storage_elements = l.lead + base_elements + l.trail;
  // An empty base (a dimension of 0) still leaves the offset inside.
  spec.storage_elements = std::max(spec.storage_elements, spec.offset);
}

rc::Gen<Layout> layoutFor(std::size_t n) {
  return rc::gen::exec([n] {
    Layout l;
    l.order.resize(n);
    std::iota(l.order.begin(), l.order.end(), std::size_t{0});
    const int kind = *rc::gen::weightedElement<int>({{4, 0}, {3, 1}, {3, 2}, {2, 3}, {2, 4}});
    // 0 contiguous, 1 permuted, 2 strided slices, 3 offset into a larger storage, 4 broadcast
    l.step.assign(n, 1);
    l.start.assign(n, 0);
    l.extra.assign(n, 0);
    l.broadcast.assign(n, false);
    if (kind == 1) {
      for (std::size_t i = n; i > 1; --i) {
        std::swap(l.order[i - 1], l.order[pick<std::size_t>(0, i)]);
      }
    }
    if (kind == 2) {
      for (std::size_t k = 0; k < n; ++k) {
        l.step[k] = pick<std::int64_t>(1, 3);
        l.start[k] = pick<std::int64_t>(0, 2);
        l.extra[k] = pick<std::int64_t>(0, 2);
      }
    }
    if (kind == 3 || kind == 2) {
      l.lead = pick<std::int64_t>(0, 4);
      l.trail = pick<std::int64_t>(0, 4);
    }
    if (kind == 4) {
      for (std::size_t k = 0; k < n; ++k) l.broadcast[k] = pick(0, 2) == 1;
    }
    return l;
  });
}

rc::Gen<std::vector<std::int64_t>> shapeGen() {
  return rc::gen::exec([] {
    const auto ndim =
        *rc::gen::weightedElement<std::size_t>({{2, 0}, {4, 1}, {4, 2}, {2, 3}, {1, 4}});
    const std::int64_t largest = ndim >= 4 ? 3 : 4;
    std::vector<std::int64_t> shape(ndim);
    for (auto& d : shape) {
      // Mostly non-empty; now and then a dimension of 0 (an empty tensor).
      d = *rc::gen::weightedElement<std::int64_t>({{12, 1}, {1, 0}}) == 0
              ? 0
              : *rc::gen::inRange<std::int64_t>(1, largest + 1);
    }
    return shape;
  });
}

rc::Gen<TensorSpec> tensorOf(std::string dtype, std::vector<std::int64_t> shape, int grad_depth) {
  return rc::gen::exec([dtype, shape, grad_depth] {
    TensorSpec spec;
    spec.dtype = dtype;
    spec.shape = shape;
    apply_layout(spec, *layoutFor(shape.size()));
    spec.seed = *rc::gen::weightedElement<std::uint64_t>({{1, 0}, {4, 1}});
    if (spec.seed != 0) spec.seed = *rc::gen::arbitrary<std::uint64_t>() | 1;
    const types::TorchDtype* d = types::find_torch_dtype(dtype);
    spec.requires_grad = d->differentiable && pick(0, 2) == 1;
    if (grad_depth > 0 && pick(0, 3) == 0) {
      spec.grad = std::make_shared<const TensorSpec>(*tensorOf(dtype, shape, grad_depth - 1));
    }
    return spec;
  });
}

}  // namespace

rc::Gen<TensorSpec> tensorSpec(const TensorGenOptions& options) {
  const int depth = options.allow_grad ? options.max_grad_depth : 0;
  return rc::gen::exec([depth] {
    const auto dtype = *rc::gen::elementOf(dtype_names());
    const auto shape = *shapeGen();
    return *tensorOf(dtype, shape, depth);
  });
}

Node* build_tensor(const TensorSpec& spec, Graph& graph) {
  Node* n = graph.tensor();
  ArrayParts& a = *n->array();
  a.dtype = spec.dtype;
  a.shape = spec.shape;
  a.strides = spec.strides;
  a.offset = spec.offset;
  a.requires_grad = spec.requires_grad;
  const std::size_t itemsize = types::find_torch_dtype(spec.dtype)->itemsize;
  std::string data(static_cast<std::size_t>(spec.storage_elements) * itemsize, '\0');
  if (spec.seed != 0) {
    std::mt19937_64 bits(spec.seed);
    for (char& c : data) c = static_cast<char>(bits() & 0xff);
    if (spec.dtype == "bool") {
      for (char& c : data) c = static_cast<char>(c & 1);
    }
  }
  n->set_owned(std::move(data));
  if (spec.grad) a.grad = build_tensor(*spec.grad, graph);
  return n;
}

rc::Gen<GeneratedValue> tensorValue(const TensorGenOptions& options) {
  return rc::gen::map(tensorSpec(options), [](const TensorSpec& spec) {
    GeneratedValue v;
    v.graph = std::make_shared<Graph>();
    v.root = build_tensor(spec, *v.graph);
    v.graph->root = v.root;
    return v;
  });
}

void showValue(const TensorSpec& spec, std::ostream& os) {
  Graph g;
  os << to_json(build_tensor(spec, g));
}

}  // namespace serialcheck::gen
