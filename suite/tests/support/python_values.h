// Test support for tests that embed Python (only built with
// SERIALCHECK_HAVE_PYTHON): what a Python expression evaluates to, as the
// bytes a C++ test compares with the reference's output.
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>

#include "harness/python/bridge.h"
#include "harness/python/interpreter.h"
#include "reference/value/value.h"

namespace serialcheck::test_support {

// The bytes object `expression` evaluates to (e.g. a pickle.dumps call);
// throws std::runtime_error when it is not bytes. Takes the GIL.
inline std::string python_bytes(std::string_view expression) {
  python::Gil gil;
  python::PyRef result = python::eval(expression);
  Graph g;
  Node* n = python::from_python(result.get(), g);
  if (n->kind != Kind::Bytes) throw std::runtime_error("not bytes: " + std::string(expression));
  return std::string(n->payload());
}

}  // namespace serialcheck::test_support
