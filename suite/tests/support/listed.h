// Test support: whether the source tree's known-failures.txt lists a
// failure, for tests that run real interpreters, whose own defects the
// gate accepts there (each with its reason and minimal case). Needs
// SERIALCHECK_SOURCE_DIR.
#pragma once

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "harness/report/known_failures.h"

namespace serialcheck::test_support {

inline const std::vector<KnownFailure>& known_failures_file() {
  static const std::vector<KnownFailure> known = [] {
    std::ifstream in(std::filesystem::path(SERIALCHECK_SOURCE_DIR) / "known-failures.txt");
    std::stringstream text;
    text << in.rdbuf();
    return parse_known_failures(text.str());
  }();
  return known;
}

inline bool listed_failure(const std::string& subject, const std::string& property,
                           const std::string& fingerprint) {
  for (const KnownFailure& k : known_failures_file()) {
    if (k.matches(subject, property) && k.fingerprint == fingerprint) return true;
  }
  return false;
}

}  // namespace serialcheck::test_support
