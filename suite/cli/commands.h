// The `serialcheck` subcommands. Each registers itself on the CLI11 app and
// sets the action to run when it is chosen; exit codes follow one rule:
// 0 success, 1 invalid input or failed check, 2 usage error.
#pragma once

#include <CLI/CLI.hpp>
#include <cstddef>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "reference/common/error.h"

namespace serialcheck::cli {

using Action = std::function<int()>;

constexpr int kExitOk = 0;
constexpr int kExitFailed = 1;
constexpr int kExitUsage = 2;

void add_dis(CLI::App& app, Action& action);
void add_decode(CLI::App& app, Action& action);
void add_encode(CLI::App& app, Action& action);
void add_scan(CLI::App& app, Action& action);
void add_run(CLI::App& app, Action& action);
void add_replay(CLI::App& app, Action& action);
void add_promote(CLI::App& app, Action& action);
void add_bench(CLI::App& app, Action& action);
void add_testee_check(CLI::App& app, Action& action);
void add_interpreters(CLI::App& app, Action& action);

void add_campaign(CLI::App& app, Action& action);
void add_findings(CLI::App& app, Action& action);

// A mistake on the command line: the command prints it and exits 2.
struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// "a, b,c" -> {"a", "b", "c"} (blanks around items dropped, empty items too).
std::vector<std::string> split_commas(const std::string& text);

// The subjects --subjects names (all of `all` when empty), each once.
// Throws UsageError naming an unknown one and what the build has.
std::vector<std::string> pick_subjects(const std::string& arg, const std::vector<std::string>& all);

// The property ids --properties names (ids or globs; a pair family's id
// stands for its properties), for a run whose matrix producers are
// `subjects`. Throws UsageError for a pattern that matches nothing.
std::vector<std::string> pick_properties(const std::string& arg,
                                         const std::vector<std::string>& subjects);

// Reads a whole file ("-" is stdin) as bytes. Throws InputError.
std::string read_input(const std::string& path);

// A serialcheck::Error of kind "input"; what() is the message.
struct InputError : Error {
  explicit InputError(std::string message) : Error("input", std::move(message)) {}
};

// Prints "serialcheck: <what>" on one line of stderr and returns kExitFailed.
int fail(const std::string& what);

// "<kind> at byte <offset>: <detail>": how the commands name an error in a
// pickle (a pickle::PickleError, or a disassembly's error).
std::string at_byte(std::string_view kind, std::size_t offset, std::string_view detail);
std::string at_byte(const Error& e);

// Runs argv[0] with argv and waits: its exit status, or -1 when it could not
// start or was killed.
int run_program(const std::vector<std::string>& argv);

}  // namespace serialcheck::cli
