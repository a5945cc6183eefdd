// conformance.json: the whole run as one JSON document (run parameters,
// every cell with its verdict and minimal case, coverage, known-failures
// changes, summary). The Markdown and JUnit files are views of the same data.
#pragma once

#include <nlohmann/json.hpp>

#include "harness/report/results.h"

namespace serialcheck {

nlohmann::json report_to_json(const RunReport& report);

}  // namespace serialcheck
