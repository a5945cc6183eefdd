// cross.stdlib in the embedded interpreter, for subjects that cannot link
// Python themselves (the negative controls of harness/subjects/
// mutant_subjects.h, test stand-ins): whoever embeds Python installs the
// runner (harness/python/stdlib.h), as callable.by-value's runner is
// installed (harness/gen/function_gen.h). The Python subjects call
// harness/python/stdlib.h directly.
#pragma once

#include <functional>
#include <string>
#include <string_view>

#include "harness/subjects/subject.h"

namespace serialcheck {

// `pickler` names the pickle of the embedded interpreter that dumps and
// loads: "c" (_pickle), "py" (pickle._Pickler and _Unpickler), "cloudpickle"
// (cloudpickle.dumps, loaded by _pickle). Both throw SubjectError as
// Subject::dumps_recipe and loads_recipe say.
struct StdlibRunner {
  std::function<std::string(const std::string& pickler, const std::string& recipe, int protocol)>
      dumps;
  std::function<RecipeLoad(const std::string& pickler, const std::string& recipe,
                           std::string_view pickle)>
      loads;
};

void set_stdlib_runner(StdlibRunner runner);
// nullptr when none is installed (no embedded interpreter in this program).
const StdlibRunner* stdlib_runner();

}  // namespace serialcheck
