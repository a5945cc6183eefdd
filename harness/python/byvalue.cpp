#define PY_SSIZE_T_CLEAN
#include "harness/python/byvalue.h"

#include <Python.h>

#include <mutex>

#include "harness/gen/function_gen.h"
#include "harness/python/interpreter.h"
#include "harness/subjects/subject.h"

namespace serialcheck::python {

nlohmann::json run_by_value(const nlohmann::json& request) {
  Gil gil;
  PyRef check_json = get_attr(import_module("serialcheck_byvalue").get(), "check_json");
  PyRef text = make_str(request.dump());
  PyRef answer = check(PyObject_CallOneArg(check_json.get(), text.get()));
  nlohmann::json out = nlohmann::json::parse(str_of(answer.get()), nullptr, false);
  if (out.is_discarded() || !out.is_object()) {
    throw SubjectError("harness", "serialcheck_byvalue.check answered something other than a JSON object");
  }
  return out;
}

void install_by_value_runner() {
  static std::once_flag once;
  std::call_once(once, [] { gen::set_by_value_runner(run_by_value); });
}

}  // namespace serialcheck::python
