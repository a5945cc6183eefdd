// Functions and classes as Python source, for callable.by-value
// (docs/conformance.md): what cloudpickle and dill exist to pickle.
//
// A generated source binds the name `subject` to a function or a class:
// functions with positional and keyword-only parameters, defaults,
// keyword defaults and annotations, written as `def` or `lambda`, at module
// level or made by a function whose locals they close over (the function's
// own name among them: a cell that refers to the function itself), reading
// module globals, recursive, with a nested function or lambda inside; and
// classes with class attributes, __init__ and a method `run`, on `object`
// or a base from the Python fixtures module. Values are small ints, so
// every result has one repr in every process; an input may raise (division
// by zero, a missing argument), and the exception's type is then the
// result.
//
// A case's value is the list [source, inputs], both strings; inputs is the
// JSON array of calls, each [positional_args, keyword_args]. Shrinking
// shrinks the drawn structure, so a failing case ends at a small source.
#pragma once

#include <rapidcheck.h>

#include <functional>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "harness/gen/value.h"

namespace serialcheck::gen {

struct CallableSource {
  std::string source;     // binds `subject`
  nlohmann::json inputs;  // [[args, kwargs], ...]
};

rc::Gen<CallableSource> callableSource();
rc::Gen<GeneratedValue> callableValue();
void showValue(const CallableSource& c, std::ostream& os);

// What the embedded interpreter does for one case (installed by whoever
// embeds Python; harness/python/byvalue.h): the request is {"pickler":
// module, "source", "inputs", "protocol"}, the answer the JSON that
// serialcheck_byvalue.check returns (harness/testees/python/).
using ByValueRunner = std::function<nlohmann::json(const nlohmann::json& request)>;
void set_by_value_runner(ByValueRunner runner);
// nullptr when none is installed.
const ByValueRunner* by_value_runner();

}  // namespace serialcheck::gen
