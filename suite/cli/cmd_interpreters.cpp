// `serialcheck interpreters`: the Python interpreters the gate would run as
// subjects (docs/versions.md): where each was found, its exact version, and
// the subjects it gives. Starts nothing but each native interpreter once,
// to read its version.
#include <fmt/format.h>

#include <iostream>
#include <memory>

#include "suite/cli/commands.h"
#include "suite/cli/subjects.h"

namespace serialcheck::cli {
namespace {

struct InterpretersArgs {
  bool json = false;
  SubjectArgs sources;
};

int list_interpreters(const InterpretersArgs& a) {
  auto settings = interpreter_settings(a.sources);
  if (!settings) {
    std::cerr << "serialcheck interpreters: no \"interpreters\" in the subjects file and no "
                 "--python: no interpreter is run as a subject (docs/versions.md)\n";
    if (a.json)
      std::cout << nlohmann::json{{"interpreters", nlohmann::json::array()}}.dump(2) << "\n";
    return kExitOk;
  }
  auto found = find_interpreters(*settings, a.sources.pythons);
  auto testees = interpreter_testees(*settings, found);
  if (a.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& i : found) {
      nlohmann::json subjects = nlohmann::json::array();
      for (const auto& p : settings->presets) subjects.push_back(p.prefix + "-" + i.tag());
      list.push_back({{"kind", i.kind == Interpreter::Kind::Native ? "native" : "pyodide"},
                      {"series", i.series},
                      {"version", i.version},
                      {"path", i.path},
                      {"found_by", i.found_by},
                      {"detail", i.detail},
                      {"subjects", subjects}});
    }
    nlohmann::json commands = nlohmann::json::object();
    for (const auto& t : testees) commands[t.name] = t.command;
    std::cout << nlohmann::json{{"interpreters", list}, {"commands", commands}}.dump(2) << "\n";
    return kExitOk;
  }
  if (found.empty()) {
    std::cout << "no Python interpreter found (searched:"
              << (settings->search_pyenv ? " pyenv" : "") << (settings->search_path ? " PATH" : "")
              << (settings->search_pyodide ? " Pyodide" : "") << ")\n";
    return kExitOk;
  }
  std::cout << fmt::format("{:<10} {:<10} {:<9} {}\n", "series", "version", "found by", "where");
  for (const auto& i : found) {
    std::string where =
        i.kind == Interpreter::Kind::Native ? i.path : i.detail + " (" + i.path + ")";
    std::cout << fmt::format("{:<10} {:<10} {:<9} {}\n", i.tag(), i.version, i.found_by, where);
  }
  for (const auto& embedded : settings->already_subjects) {
    std::cout << "\n"
              << embedded
              << " is the interpreter this build embeds: it runs as the subject cpython (and in "
                 "the subjects file's testees), not again as cpython-X.Y; --python "
              << embedded << " adds it anyway\n";
  }
  std::cout << "\nsubjects:";
  for (const auto& p : settings->presets) std::cout << " " << p.prefix << "-X.Y";
  std::cout << fmt::format(" for each ({} in all); the {} form the version matrix\n",
                           testees.size(), [&] {
                             std::string m;
                             for (const auto& p : settings->presets) {
                               if (p.matrix) m += (m.empty() ? "" : ", ") + p.prefix + "-X.Y";
                             }
                             return m.empty() ? std::string("none") : m;
                           }());
  return kExitOk;
}

}  // namespace

void add_interpreters(CLI::App& app, Action& action) {
  auto* cmd = app.add_subcommand(
      "interpreters", "List the Python interpreters run as subjects, and how each was found");
  auto a = std::make_shared<InterpretersArgs>();
  cmd->add_flag("--json", a->json, "Print JSON: each interpreter, its subjects and their commands");
  add_subject_options(cmd, a->sources);
  cmd->footer(
      "Interpreters come from the subjects file's \"interpreters\" (pyenv, python3.X on\n"
      "PATH, Pyodide from npm) and --python. See docs/versions.md.");
  cmd->callback([&action, a] { action = [a] { return list_interpreters(*a); }; });
}

}  // namespace serialcheck::cli
