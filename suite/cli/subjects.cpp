#include "suite/cli/subjects.h"

#include <algorithm>
#include <filesystem>
#include <sstream>

#include "harness/gen/stream_files.h"
#include "harness/subjects/reference_subject.h"
#include "harness/subjects/subjects_file.h"
#include "suite/cli/commands.h"

#ifdef SERIALCHECK_HAVE_PYTHON
#include "harness/subjects/python_subjects.h"
#endif

namespace serialcheck::cli {

constexpr const char* kDefaultSubjectsFile = "subjects.json";

void add_subject_options(CLI::App* cmd, SubjectArgs& args) {
  cmd->add_option("--testee", args.testees,
                  "NAME=COMMAND: an external subject speaking the testee protocol "
                  "(docs/testee-protocol.md); repeatable")
      ->type_name("NAME=COMMAND");
  cmd->add_option("--subjects-file", args.subjects_file,
                  "JSON file of external subjects (default: subjects.json here, if present)")
      ->type_name("FILE");
  cmd->add_flag("--no-subjects-file", args.no_subjects_file,
                "Ignore subjects.json; only built-in subjects and --testee ones");
  cmd->add_option("--python", args.pythons,
                  "PATH: a CPython interpreter to run as subjects (cpython-X.Y, pickle-py-X.Y, "
                  "...) beside those found (docs/versions.md); repeatable")
      ->type_name("PATH");
  cmd->add_flag("--no-interpreters", args.no_interpreters,
                "Find no Python interpreters: no cpython-X.Y subjects but --python ones");
  cmd->add_option("--interpreter-presets", args.interpreter_presets,
                  "A,B: run only these presets on each interpreter (e.g. cpython for the "
                  "version matrix alone; default: every preset of the subjects file)")
      ->type_name("A,B");
}

std::optional<InterpreterSettings> interpreter_settings(const SubjectArgs& args) {
  std::optional<InterpreterSettings> settings;
  if (!args.no_subjects_file) {
    std::string file = !args.subjects_file.empty()                     ? args.subjects_file
                       : std::filesystem::exists(kDefaultSubjectsFile) ? kDefaultSubjectsFile
                                                                       : "";
    if (!file.empty()) settings = read_subjects_document(file).interpreters;
  }
  if (!settings && !args.pythons.empty()) settings = default_interpreter_settings(".");
#ifdef SERIALCHECK_PYTHON_EXECUTABLE
  // The embedded interpreter is the cpython subject already.
  if (settings) settings->already_subjects.push_back(SERIALCHECK_PYTHON_EXECUTABLE);
#endif
  if (settings && args.no_interpreters) {
    settings->search_pyenv = settings->search_path = settings->search_pyodide = false;
  }
  if (settings && !args.interpreter_presets.empty()) {
    std::vector<std::string> wanted;
    std::stringstream in(args.interpreter_presets);
    for (std::string p; std::getline(in, p, ',');) {
      if (!p.empty()) wanted.push_back(p);
    }
    for (const auto& w : wanted) {
      if (std::none_of(settings->presets.begin(), settings->presets.end(),
                       [&](const InterpreterPreset& p) { return p.prefix == w; })) {
        std::string known;
        for (const auto& p : settings->presets) known += (known.empty() ? "" : ", ") + p.prefix;
        throw SubjectsFileError("--interpreter-presets: no preset \"" + w +
                                "\" (there are: " + known + ")");
      }
    }
    std::erase_if(settings->presets, [&](const InterpreterPreset& p) {
      return std::find(wanted.begin(), wanted.end(), p.prefix) == wanted.end();
    });
  }
  return settings;
}

void add_malformed_streams(CLI::App* cmd) {
  cmd->add_option_function<std::vector<std::string>>(
         "--malformed-streams",
         [](const std::vector<std::string>& dirs) {
           for (const std::string& dir : dirs) gen::add_stream_dir(dir);
         },
         "DIR: more malformed streams (its *.pickle files) for loads.rejects-malformed, beside "
         "corpus/malformed and the fuzz targets' finds; repeatable (docs/conformance.md)")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
}

void add_case_timeout(CLI::App* cmd, double& seconds, const std::string& help) {
  cmd->add_option("--case-timeout", seconds, help)
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
}

std::vector<TesteeConfig> testee_configs(const SubjectArgs& args) {
  // A malformed file or --testee throws SubjectsFileError, which the command
  // reports as bad input.
  std::vector<TesteeConfig> out;
  if (!args.no_subjects_file) {
    if (!args.subjects_file.empty()) {
      out = read_subjects_file(args.subjects_file);
    } else if (std::filesystem::exists(kDefaultSubjectsFile)) {
      out = read_subjects_file(kDefaultSubjectsFile);
    }
  }
  // The interpreters found (and --python ones), each preset a subject; a
  // testee the file names explicitly keeps its entry.
  if (auto settings = interpreter_settings(args)) {
    for (auto& c : interpreter_testees(*settings, find_interpreters(*settings, args.pythons))) {
      bool named = std::any_of(out.begin(), out.end(),
                               [&](const TesteeConfig& e) { return e.name == c.name; });
      if (!named) out.push_back(std::move(c));
    }
  }
  for (const auto& arg : args.testees) {
    TesteeConfig c = parse_testee_argument(arg);
    // A --testee of a name the file has replaces that entry: the user's
    // command line wins.
    std::erase_if(out, [&](const TesteeConfig& e) { return e.name == c.name; });
    out.push_back(std::move(c));
  }
  auto builtin = subject_names(builtin_subject_factories());
  for (const auto& c : out) {
    if (std::find(builtin.begin(), builtin.end(), c.name) != builtin.end()) {
      throw InputError("testee \"" + c.name + "\" (" + c.origin +
                       ") has the name of a built-in subject; choose another");
    }
  }
  return out;
}

std::vector<SubjectFactory> builtin_subject_factories() {
  std::vector<SubjectFactory> factories;
  factories.push_back({"reference", [] { return std::make_unique<ReferenceSubject>(); }});
  for (auto& factory : reference_subject_factories()) factories.push_back(std::move(factory));
#ifdef SERIALCHECK_HAVE_PYTHON
  for (auto& factory : python_subject_factories()) factories.push_back(std::move(factory));
#endif
  return factories;
}

std::vector<SubjectFactory> subject_factories(const SubjectArgs& args) {
  std::vector<SubjectFactory> factories = builtin_subject_factories();
  for (auto& config : testee_configs(args)) {
    std::string name = config.name;
    factories.push_back({name, [config]() -> std::unique_ptr<Subject> {
                           return std::make_unique<ExternalSubject>(config);
                         }});
  }
  return factories;
}

std::vector<std::string> subject_names(const std::vector<SubjectFactory>& factories) {
  std::vector<std::string> names;
  for (const auto& f : factories) names.push_back(f.name);
  return names;
}

std::string subject_origin(const SubjectArgs& args, const std::string& name) {
  for (const auto& c : testee_configs(args)) {
    if (c.name == name) return c.origin + ": " + c.command;
  }
  return "built in";
}

}  // namespace serialcheck::cli
