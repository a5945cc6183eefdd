// Test support: scratch directories for tests that write files (case files,
// pickles for the command line). scratch_dir and FilesTest throw
// std::filesystem's errors when the directory cannot be made.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <system_error>

namespace serialcheck::test_support {

// An empty directory serialcheck-<name>-<pid> under the system's temporary
// directory (emptied first if it is there); the caller removes it.
inline std::filesystem::path scratch_dir(const std::string& name) {
  auto dir = std::filesystem::temp_directory_path() /
             ("serialcheck-" + name + "-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  return dir;
}

// A fixture with a scratch directory of its own (named after the test
// suite), removed after each test. A fixture that adds to SetUp calls
// FilesTest::SetUp() first.
class FilesTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = scratch_dir(::testing::UnitTest::GetInstance()->current_test_info()->test_suite_name());
  }
  void TearDown() override {
    std::error_code ignored;
    std::filesystem::remove_all(dir_, ignored);
  }

  // Writes `bytes` to the file `name` in the directory; its path quoted for
  // a shell, as path() gives it.
  std::string write(const std::string& name, std::string_view bytes) const {
    std::ofstream out(dir_ / name, std::ios::binary);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    return path(name);
  }
  // The path of `name` in the directory, single-quoted for a shell.
  std::string path(const std::string& name) const { return "'" + (dir_ / name).string() + "'"; }

  std::filesystem::path dir_;
};

}  // namespace serialcheck::test_support
