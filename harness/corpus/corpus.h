// Case files: each failing case, shrunk, is one JSON document (case.h,
// CaseRecord) at corpus/failing/<subject>/<property>/<fingerprint-slug>-<hash>.json,
// where the hash is of the case itself, so saving the same case twice writes
// one file.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/props/case.h"

namespace serialcheck {

// "exception:UnpicklingError@loads" -> "exception-unpicklingerror-loads".
std::string fingerprint_slug(std::string_view fingerprint);

// 8 hex digits of FNV-1a over the case's canonical JSON.
std::string case_hash(const CaseRecord& record);

// The path a record is saved at under `dir`.
std::filesystem::path case_path(const std::filesystem::path& dir, const CaseRecord& record);

// A file already saved under `dir` for the record's subject, property and
// fingerprint (the first in name order), or nullopt.
std::optional<std::filesystem::path> saved_case(const std::filesystem::path& dir,
                                                const CaseRecord& record);

// `text` with every path under `directory` made relative to it.
std::string relative_to_directory(std::string text, const std::filesystem::path& directory);

// Writes the record (pretty JSON); returns its path. Paths under the current
// directory in its message and explanation are written relative to it.
// Throws std::runtime_error.
std::filesystem::path save_case(const std::filesystem::path& dir, const CaseRecord& record);

// Reads and validates a case file. Throws std::runtime_error naming the file.
CaseRecord load_case(const std::filesystem::path& path);

// The case files named by `paths`: files as given, directories searched
// recursively for *.json; sorted within each directory, duplicates dropped.
// Throws std::runtime_error for a path that does not exist.
std::vector<std::filesystem::path> list_cases(const std::vector<std::filesystem::path>& paths);

}  // namespace serialcheck
