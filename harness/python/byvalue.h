// callable.by-value in the embedded interpreter: defines a generated
// function or class, dumps it with a pickler module, and loads it in a
// fresh process (harness/testees/python/serialcheck_byvalue.py).
#pragma once

#include <nlohmann/json.hpp>

namespace serialcheck::python {

// serialcheck_byvalue.check on `request` ({"pickler", "source", "inputs",
// "protocol"}). Takes the GIL; throws SubjectError when Python raises.
nlohmann::json run_by_value(const nlohmann::json& request);

// Installs run_by_value as the generator's by-value runner
// (harness/gen/function_gen.h), once per process.
void install_by_value_runner();

}  // namespace serialcheck::python
