#include "suite/tests/support/files.h"

#include <fstream>
#include <iterator>

namespace serialcheck::test_support {

std::filesystem::path source_path(std::string_view relative) {
  return std::filesystem::path(SERIALCHECK_SOURCE_DIR) / std::filesystem::path(relative);
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

bool write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  return static_cast<bool>(out.flush());
}

}  // namespace serialcheck::test_support
