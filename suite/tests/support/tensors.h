// Test support for the Tensor kind (tensor_test.cpp and, against real
// torch, tensor_python_test.cpp): a tensor node in one call, float32 data,
// and the variants of the golden-torch corpus (corpus/golden-torch,
// MANIFEST.json). golden_torch_variants() throws nlohmann::json's errors on
// a malformed manifest; nothing else here throws.
#pragma once

#include <cstdint>
#include <filesystem>
#include <initializer_list>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>
#include <utility>
#include <vector>

#include "reference/value/value.h"
#include "suite/tests/support/files.h"
#include "suite/tests/support/values.h"

namespace serialcheck::test_support {

// The bytes of `values` as float32, in this machine's byte order.
inline std::string bytes_of(std::initializer_list<float> values) {
  std::string out;
  for (float f : values) out.append(reinterpret_cast<const char*>(&f), sizeof f);
  return out;
}

// A Tensor node in `g` over `data`, with the layout and grad given.
inline Node* tensor(Graph& g, std::string dtype, std::vector<std::int64_t> shape,
                    std::vector<std::int64_t> strides, std::int64_t offset, std::string data,
                    bool requires_grad = false, Node* grad = nullptr) {
  Node* n = with_layout(g.tensor(), std::move(dtype), std::move(shape), std::move(strides), offset,
                        std::move(data));
  n->array()->requires_grad = requires_grad;
  n->array()->grad = grad;
  return n;
}

// One pickle of the golden-torch corpus and the value it holds.
struct GoldenTorchVariant {
  std::string case_name;
  int protocol = 0;
  std::string form;  // native, reference, cloudpickle
  std::string pickle_file;
  std::string json_file;
  bool byte_identical = false;
};

inline void PrintTo(const GoldenTorchVariant& v, std::ostream* os) {
  *os << v.pickle_file;
}

inline std::filesystem::path golden_torch_dir() {
  return source_path("corpus/golden-torch");
}

// Every variant MANIFEST.json lists; none when it cannot be read.
inline std::vector<GoldenTorchVariant> golden_torch_variants() {
  std::vector<GoldenTorchVariant> out;
  auto text = read_file(golden_torch_dir() / "MANIFEST.json");
  if (!text) return out;
  const nlohmann::json doc = nlohmann::json::parse(*text);
  for (const auto& c : doc.at("cases")) {
    for (const auto& v : c.at("variants")) {
      GoldenTorchVariant g;
      g.case_name = c.at("name").get<std::string>();
      g.protocol = v.at("protocol").get<int>();
      g.form = v.at("form").get<std::string>();
      g.pickle_file = v.at("pickle").get<std::string>();
      g.json_file = v.at("json").get<std::string>();
      g.byte_identical = v.at("byte_identical").get<bool>();
      out.push_back(std::move(g));
    }
  }
  return out;
}

}  // namespace serialcheck::test_support
