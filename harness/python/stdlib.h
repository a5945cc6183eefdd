// cross.stdlib in the embedded interpreter: stdlib values built by
// harness/testees/python/serialcheck_stdlib.py, dumped and loaded with one
// of this interpreter's picklers (docs/versions.md, "Stdlib values across
// versions").
#pragma once

#include <string>
#include <string_view>

#include "harness/subjects/subject.h"

namespace serialcheck::python {

// `pickler`: "c" (_pickle.dumps and loads), "py" (pickle._dumps and
// _loads), "cloudpickle" (cloudpickle.dumps, loaded by _pickle.loads). Both
// take the GIL and throw SubjectError: "inexpressible" where this version
// cannot build (or write at `protocol`) the recipe, the exception's type
// for any other failure (a load's error), "harness" for an unknown pickler.
std::string dumps_recipe(const std::string& pickler, const std::string& recipe, int protocol);
RecipeLoad loads_recipe(const std::string& pickler, const std::string& recipe,
                        std::string_view pickle);

// Installs the two as the stdlib runner (harness/subjects/stdlib_runner.h),
// once per process.
void install_stdlib_runner();

}  // namespace serialcheck::python
