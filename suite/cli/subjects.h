// The subjects this build of `serialcheck` can run: the reference always,
// the Python subjects when the build has the embedded interpreter. Only the
// names are known in the calling process; the subjects themselves are made
// in worker processes (so the command's own process never starts Python).
#pragma once

#include <string>
#include <vector>

#include "harness/props/runner.h"

namespace serialcheck::cli {

std::vector<SubjectFactory> subject_factories();

std::vector<std::string> subject_names(const std::vector<SubjectFactory>& factories);

}  // namespace serialcheck::cli
