#include "harness/subjects/stdlib_runner.h"

#include <memory>
#include <utility>

namespace serialcheck {
namespace {

std::unique_ptr<StdlibRunner>& runner_slot() {
  static std::unique_ptr<StdlibRunner> slot;
  return slot;
}

}  // namespace

void set_stdlib_runner(StdlibRunner runner) {
  runner_slot() = std::make_unique<StdlibRunner>(std::move(runner));
}

const StdlibRunner* stdlib_runner() {
  return runner_slot().get();
}

}  // namespace serialcheck
