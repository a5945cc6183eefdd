// Test support for serialcheck_python_tests, the tests that embed CPython:
// a fixture that skips, with the reason, where the interpreter cannot
// start, whether a Python expression is True, and bytes.match-cpython with
// its helper subjects. Only built where the
// embedded interpreter is (sc_python).
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <string>
#include <string_view>

#include "harness/props/case.h"
#include "harness/props/gate_props.h"
#include "harness/python/bridge.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/python_subjects.h"
#include "harness/subjects/reference_subject.h"
#include "reference/value/value.h"
#include "suite/tests/support/env.h"

namespace serialcheck::test_support {

// bytes.match-cpython as a test runs it on cases of its own, with the
// helper subjects it consults: the reference and the embedded CPython.
struct BytesMatchCpython {
  ReferenceSubject reference;
  std::unique_ptr<PythonSubject> cpython = make_cpython_subject();
  PropertyEnv env = env_with({{"reference", &reference}, {"cpython", cpython.get()}});
  const GateProperty* property = find_property("bytes.match-cpython");

  BytesMatchCpython() = default;
  BytesMatchCpython(const BytesMatchCpython&) = delete;
  BytesMatchCpython& operator=(const BytesMatchCpython&) = delete;

  // The property's outcome for `c` on `subject` (the reference by default).
  Outcome check(const TestCase& c, Subject* subject = nullptr) {
    return check_case(*property, subject != nullptr ? *subject : reference, c, env);
  }
};

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
