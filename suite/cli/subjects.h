// The one registry of subjects every command uses (run, replay, promote,
// bench): the reference always, the Python subjects when the build has the
// embedded interpreter, and the external testees named by the subjects file
// and by --testee. Only the names are known in the calling process; the
// subjects themselves are made in worker processes (so the command's own
// process never starts Python or a testee).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>

#include "harness/props/runner.h"
#include "harness/subjects/external_subject.h"
#include "harness/subjects/interpreters.h"

namespace serialcheck::cli {

// Where external subjects come from, as the command line says.
struct SubjectArgs {
  std::vector<std::string> testees;  // "NAME=COMMAND"
  std::string subjects_file;         // empty: subjects.json in the current folder, if any
  bool no_subjects_file = false;
  std::vector<std::string> pythons;  // --python PATH: more interpreters to run as subjects
  bool no_interpreters = false;      // --no-interpreters: none found, none given
  std::string interpreter_presets;   // --interpreter-presets A,B: only these prefixes
};

// --testee, --subjects-file, --no-subjects-file, --python and
// --no-interpreters on `cmd`.
void add_subject_options(CLI::App* cmd, SubjectArgs& args);

// --malformed-streams DIR (repeatable): a directory whose *.pickle files
// loads.rejects-malformed tries beside corpus/malformed and the fuzz
// targets' finds (harness/gen/stream_files.h).
void add_malformed_streams(CLI::App* cmd);

// --case-timeout SECONDS (a positive number; the default is shown in --help):
// how long a subject may take in its worker process. `help` says for what.
void add_case_timeout(CLI::App* cmd, double& seconds, const std::string& help);

// The testees `args` name, subjects file first. Throws SubjectsFileError on
// a bad file or argument (a name used twice among them too), InputError on
// a name a built-in subject has.
std::vector<TesteeConfig> testee_configs(const SubjectArgs& args);

// The interpreter settings `args` use: the subjects file's "interpreters",
// or the built-in ones when --python is given without them; nullopt when
// no interpreter is to be run.
std::optional<InterpreterSettings> interpreter_settings(const SubjectArgs& args);

// Built-in subjects, then the testees of `args`.
std::vector<SubjectFactory> subject_factories(const SubjectArgs& args = {});
std::vector<SubjectFactory> builtin_subject_factories();

std::vector<std::string> subject_names(const std::vector<SubjectFactory>& factories);

// Where each subject comes from, for reports: "built in" or the testee's
// command and origin.
std::string subject_origin(const SubjectArgs& args, const std::string& name);

}  // namespace serialcheck::cli
