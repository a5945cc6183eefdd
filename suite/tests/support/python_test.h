// Test support for serialcheck_python_tests, the tests that embed CPython:
// a fixture that skips, with the reason, where the interpreter cannot
// start, and whether a Python expression is True. Only built where the
// embedded interpreter is (sc_python).
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <string_view>

#include "harness/python/bridge.h"
#include "harness/python/interpreter.h"
#include "reference/value/value.h"

namespace serialcheck::test_support {

// A test that needs the embedded interpreter. A fixture that adds to SetUp
// calls PythonTest::SetUp() first and returns when IsSkipped().
class PythonTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string reason;
    if (!python::python_available(&reason)) GTEST_SKIP() << "no embedded Python: " << reason;
  }
};

// Whether `expression` evaluates to True; an expression whose value is not
// a bool is a test failure. Takes the GIL; throws SubjectError on a Python
// exception.
inline bool python_truth(std::string_view expression) {
  python::Gil gil;
  python::PyRef result = python::eval(expression);
  Graph g;
  Node* n = python::from_python(result.get(), g);
  EXPECT_EQ(n->kind, Kind::Bool) << expression;
  return n->kind == Kind::Bool && n->flag;
}

}  // namespace serialcheck::test_support
