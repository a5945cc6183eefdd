#include "harness/gen/ndarray_gen.h"

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <numeric>
#include <utility>

#include "reference/types/ndarray.h"

namespace serialcheck::gen {
namespace {

enum class Layout { C, F, View };

std::int64_t product(const std::vector<std::int64_t>& v) {
  return std::accumulate(v.begin(), v.end(), std::int64_t{1}, std::multiplies<>());
}

}  // namespace

rc::Gen<NDArraySpec> ndarraySpec(const NDArrayGenOptions& options) {
  return rc::gen::exec([options] {
    NDArraySpec s;
    s.dtype = *rc::gen::elementOf(types::numeric_dtypes());
    const int itemsize = types::parse_numeric_dtype(s.dtype)->itemsize;
    const bool big = options.allow_big && *rc::gen::inRange(0, 30) == 0;

    std::vector<std::int64_t> shape;
    if (big) {
      shape.push_back(*rc::gen::inRange<std::int64_t>(3000, 9001));
    } else {
      const auto nd =
          *rc::gen::weightedElement<std::size_t>({{2, 0}, {5, 1}, {5, 2}, {3, 3}, {2, 4}});
      for (std::size_t k = 0; k < std::min(nd, options.max_dims); ++k) {
        shape.push_back(*rc::gen::weightedElement<std::int64_t>(
            {{1, 0}, {4, 1}, {6, 2}, {6, 3}, {3, 5}, {1, 17}}));
      }
      while (product(shape) > options.max_elements) {
        auto largest = std::max_element(shape.begin(), shape.end());
        *largest = (*largest + 1) / 2;
      }
    }
    const std::size_t nd = shape.size();

    const Layout layout = big ? *rc::gen::element(Layout::C, Layout::View)
                              : *rc::gen::weightedElement<Layout>(
                                    {{3, Layout::C}, {2, Layout::F}, {4, Layout::View}});
    std::int64_t buffer_elements = 0;  // elements of the buffer under the array
    std::vector<std::int64_t> strides;
    std::int64_t offset = 0;
    if (layout != Layout::View) {
      strides = types::contiguous_strides(shape, itemsize, layout == Layout::C ? 'C' : 'F');
      buffer_elements = product(shape);
    } else {
      // A view of a C-ordered buffer: steps (negative ones start at the far
      // end), some dimensions broadcast (stride 0), the axes permuted.
      std::vector<std::int64_t> steps(nd), base(nd);
      for (std::size_t k = 0; k < nd; ++k) {
        steps[k] = *rc::gen::weightedElement<std::int64_t>(
            {{4, 1}, {2, 2}, {1, 3}, {2, -1}, {1, -2}, {1, 0}});
        base[k] = steps[k] == 0 ? 1 : std::max<std::int64_t>(shape[k], 1) * std::abs(steps[k]);
      }
      if (product(base) > 4 * options.max_elements + 9000) {
        std::fill(steps.begin(), steps.end(), 1);
        base = shape;
        for (auto& b : base) b = std::max<std::int64_t>(b, 1);
      }
      std::vector<std::size_t> order(nd);  // memory order of the axes, outermost first
      std::iota(order.begin(), order.end(), std::size_t{0});
      if (nd > 1 && *rc::gen::arbitrary<bool>()) {
        const auto turns = *rc::gen::inRange<std::size_t>(1, nd);
        std::rotate(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(turns), order.end());
        if (*rc::gen::arbitrary<bool>()) std::reverse(order.begin(), order.end());
      }
      std::vector<std::int64_t> base_strides(nd);
      std::int64_t step = itemsize;
      for (std::size_t i = nd; i-- > 0;) {
        base_strides[order[i]] = step;
        step *= base[order[i]];
      }
      strides.resize(nd);
      for (std::size_t k = 0; k < nd; ++k) {
        strides[k] = base_strides[k] * steps[k];
        if (steps[k] < 0) offset += (base[k] - 1) * base_strides[k];
      }
      buffer_elements = product(base);
    }
    // Length-1 dimensions may carry any stride (numpy's relaxed strides).
    for (std::size_t k = 0; k < nd; ++k) {
      if (shape[k] == 1 && *rc::gen::inRange(0, 3) == 0) {
        strides[k] = *rc::gen::inRange<std::int64_t>(-40, 41);
      }
    }
    const auto front = *rc::gen::weightedElement<std::int64_t>({{6, 0}, {1, 1}, {1, 3}, {2, 8}});
    const auto back = *rc::gen::weightedElement<std::int64_t>({{6, 0}, {1, 2}, {1, 16}});
    s.shape = std::move(shape);
    s.strides = std::move(strides);
    s.offset = front + offset;
    s.writeable = *rc::gen::arbitrary<bool>();
    const auto size = static_cast<std::size_t>(front + buffer_elements * itemsize + back);
    s.payload = *rc::gen::container<std::string>(size, rc::gen::arbitrary<char>());
    if (s.dtype == "|b1") {
      for (char& c : s.payload) c = static_cast<char>(c & 1);  // numpy's bools are 0 or 1
    }
    return s;
  });
}

Node* build_ndarray(const NDArraySpec& spec, Graph& graph) {
  Node* n = graph.ndarray();
  ArrayParts& a = *n->array();
  a.dtype = spec.dtype;
  a.shape = spec.shape;
  a.strides = spec.strides;
  a.offset = spec.offset;
  a.writeable = spec.writeable;
  n->set_owned(spec.payload);
  return n;
}

rc::Gen<NDArrayValuePlan> ndarrayValuePlan(const NDArrayGenOptions& options) {
  return rc::gen::exec([options] {
    NDArrayValuePlan p;
    const auto count = *rc::gen::inRange<std::size_t>(1, 4);
    p.arrays = *rc::gen::container<std::vector<NDArraySpec>>(count, ndarraySpec(options));
    p.container = *rc::gen::weightedElement<int>({{3, 0}, {3, 1}, {1, 2}, {1, 3}});
    if (p.container != 0) {
      const auto entries = *rc::gen::inRange<std::size_t>(1, 7);
      p.picks = *rc::gen::container<std::vector<std::size_t>>(
          entries, rc::gen::inRange<std::size_t>(0, count));
    }
    return p;
  });
}

GeneratedValue make_ndarray_value(const NDArrayValuePlan& plan) {
  GeneratedValue v;
  v.graph = std::make_shared<Graph>();
  Graph& g = *v.graph;
  std::vector<Node*> arrays;
  for (const NDArraySpec& spec : plan.arrays) arrays.push_back(build_ndarray(spec, g));
  if (plan.container == 0 || arrays.empty()) {
    v.root = arrays.empty() ? g.none() : arrays[0];
  } else {
    std::vector<Node*> entries;
    for (std::size_t i = 0; i < plan.picks.size(); ++i) {
      Node* array = arrays[plan.picks[i] % arrays.size()];
      if (plan.container == 3) entries.push_back(g.str("a" + std::to_string(i)));
      entries.push_back(array);
    }
    v.root = plan.container == 1   ? g.list(std::move(entries))
             : plan.container == 2 ? g.tuple(std::move(entries))
                                   : g.dict(std::move(entries));
  }
  g.root = v.root;
  return v;
}

rc::Gen<GeneratedValue> ndarrayValue(const NDArrayGenOptions& options) {
  return rc::gen::map(ndarrayValuePlan(options), make_ndarray_value);
}

}  // namespace serialcheck::gen
