// Writes a run's reports into one directory: conformance.json,
// conformance.md and junit.xml.
#pragma once

#include <filesystem>
#include <vector>

#include "harness/report/results.h"

namespace serialcheck {

// Creates `dir` when needed; returns the files written. Throws
// std::runtime_error when a file cannot be written.
std::vector<std::filesystem::path> write_reports(const std::filesystem::path& dir,
                                                 const RunReport& report);

}  // namespace serialcheck
