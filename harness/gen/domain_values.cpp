#include "harness/gen/domain_values.h"

#include <algorithm>
#include <map>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/gen/module_gen.h"
#include "harness/gen/ndarray_gen.h"

namespace serialcheck::gen {
namespace {

struct BigArraySpec {
  std::string dtype;
  int itemsize = 8;
  std::int64_t rows = 1;  // 0: a 1-d array of `cols` elements
  std::int64_t cols = 128;
  std::uint64_t seed = 1;
  // What the bytes are: 0 random, 1 runs of repeated bytes, 2 the first half
  // runs and the rest random, 3 the first sixth runs and the rest random
  // (packedArraysValue(); a ratio near packing's 90 % limit).
  int content = 0;
};

// `min_bytes` to 4 x `min_bytes` (rounded to whole elements); with
// `compressible`, any of the three contents of BigArraySpec.
rc::Gen<BigArraySpec> bigArraySpec(std::size_t min_bytes = kZeroCopyThreshold,
                                   bool compressible = false) {
  return rc::gen::exec([min_bytes, compressible] {
    static const std::vector<std::pair<std::string, int>> kDtypes = {
        {"<f8", 8}, {"<f4", 4}, {"<i4", 4}, {"|u1", 1}, {">i2", 2}, {"<c16", 16}, {"|b1", 1}};
    const auto& [dtype, itemsize] = *rc::gen::elementOf(kDtypes);
    BigArraySpec s;
    s.dtype = dtype;
    s.itemsize = itemsize;
    const std::int64_t min_elems = (static_cast<std::int64_t>(min_bytes) + itemsize - 1) / itemsize;
    // One array in eight holds exactly the smallest size drawn, in one
    // dimension: at the zero-copy threshold, the smallest array that must
    // travel as its own frame; in the compression window, the smallest
    // frame packing may compress.
    const bool at_threshold = *rc::gen::inRange(0, 8) == 0;
    const std::int64_t elems =
        at_threshold ? min_elems : *rc::gen::inRange<std::int64_t>(min_elems, 4 * min_elems + 1);
    if (at_threshold || *rc::gen::arbitrary<bool>()) {
      s.rows = 0;
      s.cols = elems;
    } else {
      s.rows = *rc::gen::inRange<std::int64_t>(2, 9);
      s.cols = (elems + s.rows - 1) / s.rows;
    }
    s.seed = *rc::gen::inRange<std::uint64_t>(1, 1u << 20);
    // Drawn at full size: the content matters as much in the first cases,
    // which RapidCheck draws small.
    if (compressible) s.content = *rc::gen::resize(100, rc::gen::inRange(0, 4));
    return s;
  });
}

// Two in three in the compression window (10,000 to 40,000 bytes), the
// others as small as bigArraySpec()'s; any content.
rc::Gen<BigArraySpec> packedArraySpec() {
  return rc::gen::exec([] {
    const bool window = *rc::gen::resize(100, rc::gen::inRange(0, 3)) != 0;
    return *bigArraySpec(window ? kCompressionMinSize : kZeroCopyThreshold, true);
  });
}

Node* build_big_array(const BigArraySpec& s, Graph& g) {
  NDArraySpec a;
  a.dtype = s.dtype;
  const std::int64_t count = s.rows == 0 ? s.cols : s.rows * s.cols;
  if (s.rows == 0) {
    a.shape = {s.cols};
    a.strides = {s.itemsize};
  } else {
    a.shape = {s.rows, s.cols};
    a.strides = {s.cols * s.itemsize, s.itemsize};
  }
  a.payload.resize(static_cast<std::size_t>(count * s.itemsize));
  std::uint64_t x = s.seed * 0x9E3779B97F4A7C15ull;
  auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  const std::size_t runs_until = s.content == 1   ? a.payload.size()
                                 : s.content == 2 ? a.payload.size() / 2
                                 : s.content == 3 ? a.payload.size() / 6
                                                  : 0;
  for (std::size_t i = 0; i < a.payload.size();) {
    if (i < runs_until) {
      // A byte repeated 8 to 71 times.
      const std::uint64_t r = next();
      const std::size_t end = std::min(runs_until, i + 8 + static_cast<std::size_t>(r >> 58));
      for (; i < end; ++i) a.payload[i] = static_cast<char>(r & 0xff);
      continue;
    }
    a.payload[i++] = static_cast<char>(next() & 0xff);
  }
  if (s.dtype == "|b1") {
    for (char& c : a.payload) c = static_cast<char>(c & 1);
  }
  return build_ndarray(a, g);
}

// Where one array sits: a chain of containers below the root (0 list,
// 1 tuple, 2 dict), and at each level its position among a few atoms.
struct Placement {
  std::size_t array = 0;
  std::vector<int> path;
  std::vector<int> positions;
};

struct NestedSpec {
  int root_kind = 0;
  std::vector<BigArraySpec> arrays;
  std::vector<Placement> places;
};

Node* container(int kind, std::vector<Node*> items, Graph& g) {
  if (kind == 1) return g.tuple(std::move(items));
  if (kind == 2) {
    Node* d = g.dict();
    for (std::size_t i = 0; i < items.size(); ++i) {
      d->items.push_back(g.str("k" + std::to_string(i)));
      d->items.push_back(items[i]);
    }
    return d;
  }
  Node* l = g.list();
  l->items = std::move(items);
  return l;
}

// `inner` at position `pos` among two small atoms.
std::vector<Node*> with_atoms(Node* inner, int pos, Graph& g) {
  std::vector<Node*> items = {g.integer(1), g.str("ab")};
  items.insert(items.begin() + (pos % 3), inner);
  return items;
}

GeneratedValue build_nested(const NestedSpec& s) {
  GeneratedValue v;
  v.graph = std::make_shared<Graph>();
  Graph& g = *v.graph;
  std::vector<Node*> arrays;
  for (const auto& a : s.arrays) arrays.push_back(build_big_array(a, g));
  std::vector<Node*> top;
  for (const Placement& p : s.places) {
    Node* n = arrays[p.array % arrays.size()];
    for (std::size_t level = p.path.size(); level-- > 0;) {
      n = container(p.path[level], with_atoms(n, p.positions[level], g), g);
    }
    top.push_back(n);
  }
  v.root = container(s.root_kind, std::move(top), g);
  g.root = v.root;
  return v;
}

rc::Gen<NestedSpec> nestedSpec(bool packed) {
  return rc::gen::exec([packed] {
    NestedSpec s;
    s.root_kind = *rc::gen::inRange(0, 3);
    s.arrays = *rc::gen::container<std::vector<BigArraySpec>>(
        static_cast<std::size_t>(*rc::gen::inRange(1, 4)),
        packed ? packedArraySpec() : bigArraySpec());
    const int places = *rc::gen::inRange(1, 5);
    for (int i = 0; i < places; ++i) {
      Placement p;
      p.array = static_cast<std::size_t>(*rc::gen::inRange<std::size_t>(0, s.arrays.size()));
      const int depth = *rc::gen::inRange(0, 4);
      for (int d = 0; d < depth; ++d) {
        p.path.push_back(*rc::gen::inRange(0, 3));
        p.positions.push_back(*rc::gen::inRange(0, 3));
      }
      s.places.push_back(std::move(p));
    }
    return s;
  });
}

}  // namespace

rc::Gen<GeneratedValue> bigArrayValue() {
  return rc::gen::map(bigArraySpec(), [](const BigArraySpec& s) {
    GeneratedValue v;
    v.graph = std::make_shared<Graph>();
    v.root = build_big_array(s, *v.graph);
    v.graph->root = v.root;
    return v;
  });
}

rc::Gen<GeneratedValue> nestedArraysValue() {
  return rc::gen::map(nestedSpec(false), build_nested);
}

rc::Gen<GeneratedValue> packedArraysValue() {
  return rc::gen::map(nestedSpec(true), build_nested);
}

rc::Gen<GeneratedValue> modulesValue(bool allow_subclass) {
  auto specs = rc::gen::container<std::vector<ModuleSpec>>(
      static_cast<std::size_t>(3), moduleSpec(allow_subclass));
  auto picks = rc::gen::container<std::vector<int>>(rc::gen::inRange(0, 3));
  return rc::gen::map(rc::gen::pair(specs, rc::gen::resize(4, picks)),
                      [](const std::pair<std::vector<ModuleSpec>, std::vector<int>>& sp) {
                        GeneratedValue v;
                        v.graph = std::make_shared<Graph>();
                        Graph& g = *v.graph;
                        std::map<std::string, Node*> by_name;  // one node per module name
                        auto module = [&](const ModuleSpec& m) {
                          auto it = by_name.find(m.name);
                          if (it != by_name.end()) return it->second;
                          Node* n = build_module(m, g);
                          by_name.emplace(m.name, n);
                          return n;
                        };
                        std::vector<Node*> items = {module(sp.first[0])};
                        for (int i : sp.second) {
                          items.push_back(module(sp.first[static_cast<std::size_t>(i)]));
                        }
                        v.root = g.list(std::move(items));
                        g.root = v.root;
                        return v;
                      });
}

rc::Gen<GeneratedValue> deviceBuffersValue() {
  auto spec = rc::gen::pair(rc::gen::inRange(0, 4),
                            rc::gen::container<std::vector<DeviceBufferSpec>>(
                                static_cast<std::size_t>(3), deviceBufferSpec()));
  return rc::gen::map(spec, [](const std::pair<int, std::vector<DeviceBufferSpec>>& s) {
    GeneratedValue v;
    v.graph = std::make_shared<Graph>();
    Graph& g = *v.graph;
    if (s.first == 3) {
      v.root = build_device_buffer(s.second[0], g);
    } else {
      std::vector<Node*> items = {g.integer(7)};
      for (const auto& d : s.second) items.push_back(build_device_buffer(d, g));
      v.root = container(s.first, std::move(items), g);
    }
    g.root = v.root;
    return v;
  });
}

}  // namespace serialcheck::gen
