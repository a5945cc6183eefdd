// Test support: files of the source tree a test reads (the golden corpora,
// data tables). Nothing here throws.
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>

namespace serialcheck::test_support {

// `relative` (e.g. "corpus/golden") under the repository's root.
std::filesystem::path source_path(std::string_view relative);

// The whole file, bytes as they are; nullopt when it cannot be read.
std::optional<std::string> read_file(const std::filesystem::path& path);

// Writes `bytes` as the whole file; false when it cannot be written.
bool write_file(const std::filesystem::path& path, std::string_view bytes);

}  // namespace serialcheck::test_support
