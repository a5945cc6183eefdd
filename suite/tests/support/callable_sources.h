// Test support for callable.by-value (byvalue_test.cpp and, in the embedded
// interpreter, byvalue_python_test.cpp): the sources the generator draws,
// as a run draws them. Nothing here throws.
#pragma once

#include <rapidcheck.h>

#include <cstdint>
#include <vector>

#include "harness/gen/function_gen.h"

namespace serialcheck::test_support {

// `n` draws at sizes 0..100, as a run makes them.
inline std::vector<gen::CallableSource> callable_draws(int n, std::uint64_t seed = 20261129) {
  rc::Gen<gen::CallableSource> gen = gen::callableSource();
  rc::Random random(seed);
  std::vector<gen::CallableSource> out;
  for (int i = 0; i < n; ++i) out.push_back(gen(random.split(), i % 101).value());
  return out;
}

}  // namespace serialcheck::test_support
