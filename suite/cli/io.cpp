#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>

#include <sys/wait.h>
#include <unistd.h>

#include "suite/cli/commands.h"

namespace serialcheck::cli {

std::string read_input(const std::string& path) {
  if (path == "-") {
    std::ostringstream ss;
    ss << std::cin.rdbuf();
    return ss.str();
  }
  // Every failure names its reason: a directory opens as a stream and reads
  // as nothing, so it is refused by name.
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    throw InputError("cannot read " + path + ": " + std::strerror(EISDIR));
  }
  errno = 0;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    throw InputError("cannot read " + path + ": " +
                     (errno != 0 ? std::strerror(errno) : "cannot open it"));
  }
  std::string data(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>{});
  if (in.bad()) throw InputError("cannot read " + path + ": " + std::strerror(EIO));
  return data;
}

int fail(const std::string& what) {
  std::cerr << "serialcheck: " << what << "\n";
  return kExitFailed;
}

std::string at_byte(std::string_view kind, std::size_t offset, std::string_view detail) {
  std::string out(kind);
  out.append(" at byte ").append(std::to_string(offset)).append(": ").append(detail);
  return out;
}

std::string at_byte(const Error& e) {
  return at_byte(e.kind_name(), e.location().offset, e.detail());
}

int run_program(const std::vector<std::string>& argv) {
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  std::cout.flush();
  pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    ::execv(args[0], args.data());
    std::cerr << "serialcheck: cannot run " << argv[0] << ": " << std::strerror(errno) << "\n";
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0) {
    if (errno != EINTR) return -1;
  }
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace serialcheck::cli
