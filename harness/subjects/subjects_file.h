// The subjects file: the external subjects (testees) a repository runs the
// gate against, so that `run`, `replay`, `promote` and `bench` all see the
// same ones. A JSON document (docs/cli.md, "Subjects file"):
//
//   {"testees": [{"name": "pypy-pickle",
//                 "command": "pypy3 harness/testees/python/serialcheck_testee.py --preset pickle",
//                 "cwd": ".", "env": {"PYTHONPATH": "src"}, "timeout_s": 10,
//                 "start_timeout_s": 30, "about": "PyPy's pickle module"}]}
//
// A relative "cwd" is taken from the file's own folder (default: that
// folder), so a file works from wherever serialcheck is started.
#pragma once

#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/subjects/external_subject.h"
#include "harness/subjects/interpreters.h"
#include "reference/common/error.h"

namespace serialcheck {

// A malformed subjects file or --testee argument; the message names the
// file and the JSON pointer (or the argument) that is wrong.
// A serialcheck::Error of kind "subjects-file"; what() is the message.
struct SubjectsFileError : Error {
  explicit SubjectsFileError(std::string message) : Error("subjects-file", std::move(message)) {}
};

// Parses the text of a subjects file found at `path` (used for messages and
// to resolve relative working directories).
std::vector<TesteeConfig> parse_subjects_file(std::string_view text,
                                              const std::filesystem::path& path);
std::vector<TesteeConfig> read_subjects_file(const std::filesystem::path& path);

// The whole file: its testees, and its "interpreters" member when it has
// one (the Python interpreters to find and run as subjects,
// harness/subjects/interpreters.h).
struct SubjectsFile {
  std::vector<TesteeConfig> testees;
  std::optional<InterpreterSettings> interpreters;
};
SubjectsFile parse_subjects_document(std::string_view text, const std::filesystem::path& path);
SubjectsFile read_subjects_document(const std::filesystem::path& path);

// "NAME=COMMAND" as given to --testee; the working directory is the
// current one.
TesteeConfig parse_testee_argument(std::string_view arg);

// Whether `name` can name a subject: letters, digits, '-', '_', '.' and '@'
// (reference@3.7), starting with a letter or digit (it becomes part of file
// names).
bool valid_subject_name(std::string_view name);

}  // namespace serialcheck
