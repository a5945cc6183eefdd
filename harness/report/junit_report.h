// junit.xml: one <testcase> per cell (classname "serialcheck.SUBJECT", name
// PROPERTY) so CI systems show the gate like any test suite. Skips become
// <skipped message=...>; failures and unexpected passes become <failure>;
// expected failures pass, with the known reason in <system-out>.
#pragma once

#include <string>
#include <string_view>

#include "harness/report/results.h"

namespace serialcheck {

std::string junit_report(const RunReport& report);

// Escapes text for XML content and attribute values; drops characters XML 1.0
// cannot hold (control characters other than tab, newline, return).
std::string xml_escape(std::string_view text);

}  // namespace serialcheck
