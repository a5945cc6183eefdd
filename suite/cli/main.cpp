// Entry point of the `serialcheck` command: a CLI11 app with one subcommand
// per tool. Usage errors exit 2, failed checks and bad input exit 1; every
// error is one line on stderr, `serialcheck: <what>` (docs/cli.md).
#include <algorithm>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "suite/cli/commands.h"

namespace {

using namespace serialcheck::cli;

// CLI11's messages may span lines; the promise is one line.
std::string one_line(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  std::replace(text.begin(), text.end(), '\n', ' ');
  return text;
}

// CLI11's PositiveNumber and NonNegativeNumber say "Value 0 not in range
// 0.000000 to 1797...(309 digits)"; say what the option wants instead.
void readable_range_messages(CLI::App& app) {
  for (CLI::App* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    for (CLI::Option* opt : sub->get_options()) {
      // CLI11 2.1 lists an option's validators only by index, throwing past the end.
      for (int i = 0;; ++i) {
        CLI::Validator* v = nullptr;
        try {
          v = opt->get_validator(i);
        } catch (const CLI::OptionNotFound&) {
          break;
        }
        // Range(min, max, name) files its name as the description.
        const std::string what = v->get_description();
        const bool positive = what == "POSITIVE";
        if (!positive && what != "NONNEGATIVE") continue;
        v->operation([positive](std::string& input) {
          double value = 0;
          if (CLI::detail::lexical_cast(input, value) && (positive ? value > 0 : value >= 0)) {
            return std::string();
          }
          return std::string(positive ? "must be a number greater than 0"
                                      : "must be a number of 0 or more") +
                 ", not " + input;
        });
      }
    }
  }
}

std::string command_list(const CLI::App& app) {
  std::string names;
  for (const CLI::App* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (!names.empty()) names += ", ";
    names += sub->get_name();
  }
  return names;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{
      "serialcheck: conformance and benchmarks for Python-style serialization\n"
      "(pickle protocols 0-5 with out-of-band buffers, dask.distributed frames)",
      "serialcheck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "serialcheck 0.1.0");
  app.footer("Exit codes: 0 success, 1 invalid input or failed check, 2 usage.\n"
             "Run `serialcheck COMMAND --help` for a command's options.");
  // One line, naming the help to read: the command's when one was chosen.
  app.failure_message([](const CLI::App* top, const CLI::Error& e) {
    std::string help = "serialcheck --help";
    for (const CLI::App* sub : top->get_subcommands()) {
      help = "serialcheck " + sub->get_name() + " --help";
    }
    return "serialcheck: " + one_line(e.what()) + " (see " + help + ")\n";
  });

  Action action;
  add_run(app, action);
  add_replay(app, action);
  add_campaign(app, action);
  add_findings(app, action);
  add_promote(app, action);
  add_bench(app, action);
  add_dis(app, action);
  add_decode(app, action);
  add_encode(app, action);
  add_scan(app, action);
  add_testee_check(app, action);
  add_interpreters(app, action);
  readable_range_messages(app);

  // CLI11 reads an unknown first word as a stray argument and then says "A
  // subcommand is required"; name the word instead.
  if (argc < 2) {
    std::cerr << "serialcheck: a command is required: " << command_list(app)
              << " (see serialcheck --help)\n";
    return kExitUsage;
  }
  if (const std::string_view first = argv[1];
      !first.empty() && first.front() != '-' &&
      app.get_subcommands([first](CLI::App* sub) { return sub->get_name() == first; })
          .empty()) {
    std::cerr << "serialcheck: unknown command '" << first << "'; the commands are "
              << command_list(app) << " (see serialcheck --help)\n";
    return kExitUsage;
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    app.exit(e);
    return kExitUsage;
  }
  try {
    return action ? action() : kExitUsage;
  } catch (const serialcheck::Error& e) {
    // Bad input of any kind (a file, a case, a subjects file...): its own words.
    return fail(e.what());
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what());
  }
}
