// conformance.md and the terminal matrix: the subjects x properties table,
// the producer x consumer table and, for two CPython versions or more, the
// version matrix (version_matrix.h), the cells' discarded cases by reason, then each failure with its minimal
// case (canonical JSON), the explanation and the command that replays it;
// then skips, known-failures changes and the reference encoder's opcode
// coverage.
#pragma once

#include <string>
#include <vector>

#include "harness/report/results.h"

namespace serialcheck {

std::string markdown_report(const RunReport& report);

// The matrix as plain aligned text, one row per subject, for the terminal,
// then the cells that discarded cases (discards_text).
std::string matrix_text(const RunReport& report);

// One aligned line per cell that discarded cases: subject, property, cases
// checked, discards by reason; "" when no cell discarded any.
std::string discards_text(const RunReport& report);

// A cell's short form: "pass 100", "FAIL 3", "xfail 3", "XPASS 100", "skip",
// "-", with " (N discarded)" when the cell discarded N cases.
std::string cell_label(const CellResult* cell);

// The producers of the cross.matrix cells in the run, in property order.
std::vector<std::string> matrix_producers(const RunReport& report);

}  // namespace serialcheck
