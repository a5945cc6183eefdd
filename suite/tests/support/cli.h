// Test support: the serialcheck command run as a user runs it, through the
// shell, with its exit status and what it printed. Needs SERIALCHECK_CLI
// (the command's path, which the test executables are built with). Nothing
// here throws; a command that cannot start gives status -1.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

namespace serialcheck::test_support {

struct CliRun {
  int status = -1;  // the exit status; -1 when the command did not exit
  std::string out;
  std::string err;  // empty with Stderr::ToOut
};

enum class Stderr { Apart, ToOut };

// Runs a shell command line; stderr apart from stdout, or into it.
inline CliRun run_shell(const std::string& line, Stderr stderr_to = Stderr::Apart) {
  const std::filesystem::path err_file =
      std::filesystem::temp_directory_path() /
      ("serialcheck-cli-test-" + std::to_string(::getpid()) + ".err");
  const std::string cmd =
      line + (stderr_to == Stderr::ToOut ? " 2>&1" : " 2>'" + err_file.string() + "'");
  CliRun r;
  FILE* p = popen(cmd.c_str(), "r");
  if (p == nullptr) return r;
  char buf[4096];
  std::size_t n;
  while ((n = fread(buf, 1, sizeof buf, p)) > 0) r.out.append(buf, n);
  const int status = pclose(p);
  r.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  if (stderr_to == Stderr::Apart) {
    std::ifstream in(err_file);
    std::ostringstream e;
    e << in.rdbuf();
    r.err = e.str();
    std::filesystem::remove(err_file);
  }
  return r;
}

// `serialcheck ARGS` (ARGS as the shell reads them).
inline CliRun run_cli(const std::string& args, Stderr stderr_to = Stderr::Apart) {
  return run_shell(std::string("'") + SERIALCHECK_CLI + "' " + args, stderr_to);
}

}  // namespace serialcheck::test_support
