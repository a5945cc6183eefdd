// Entry point of the `serialcheck` command: a CLI11 app with one subcommand
// per tool. Usage errors exit 2, failed checks and bad input exit 1.
#include <exception>
#include <iostream>

#include "suite/cli/commands.h"

int main(int argc, char** argv) {
  using namespace serialcheck::cli;
  CLI::App app{
      "serialcheck: conformance and benchmarks for Python-style serialization\n"
      "(pickle protocols 0-5 with out-of-band buffers, dask.distributed frames)",
      "serialcheck"};
  app.require_subcommand(1);
  app.set_version_flag("--version", "serialcheck 0.1.0");
  app.footer("Exit codes: 0 success, 1 invalid input or failed check, 2 usage.\n"
             "Run `serialcheck COMMAND --help` for a command's options.");

  Action action;
  add_run(app, action);
  add_replay(app, action);
  add_promote(app, action);
  add_bench(app, action);
  add_dis(app, action);
  add_decode(app, action);
  add_encode(app, action);
  add_scan(app, action);
  add_testee_check(app, action);

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
  } catch (const InputError& e) {
    return fail(e.what());
  } catch (const std::exception& e) {
    return fail(std::string("internal error: ") + e.what());
  }
}
