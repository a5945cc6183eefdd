// Python interpreters as subjects (docs/versions.md): every CPython found
// on this machine, native (pyenv, `python3.X` on PATH, --python PATH) or
// compiled to WebAssembly (Pyodide under Node, from npm), runs the Python
// testee adapter once per preset (the C pickler, the pure-Python pickler,
// cloudpickle, dill), each as an external subject named after the preset
// and the version: `cpython-3.7`, `pickle-py-3.12`, `cpython-3.14-wasm`.
// Interpreters are found, never required: one that is missing is simply
// not a subject, and a preset whose package does not import there is
// skipped by its own hello, with the reason.
#pragma once

#include <filesystem>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/subjects/external_subject.h"

namespace serialcheck {

// TesteeConfig::group of the matrix presets' subjects (the version matrix),
// and of the other presets' (in no producer x consumer matrix).
inline constexpr const char* kVersionGroup = "versions";
inline constexpr const char* kInterpreterGroup = "interpreters";

// One interpreter found.
struct Interpreter {
  enum class Kind { Native, Pyodide };
  Kind kind = Kind::Native;
  std::string version;   // exact, "3.12.1" (Pyodide: as its host lists it)
  std::string series;    // "3.12"
  std::string path;      // the executable (native); the package folder (Pyodide)
  std::string found_by;  // "pyenv", "PATH", "--python", "npm"
  std::string detail;    // e.g. the Pyodide release
  // The suffix of its subjects' names: "3.12" native, "3.12-wasm" Pyodide.
  std::string tag() const { return kind == Kind::Pyodide ? series + "-wasm" : series; }
};

// One preset of the adapter that every interpreter runs: the subject name's
// prefix and the adapter's arguments ("{package_dir}" stands for where the
// interpreter sees the package folder).
struct InterpreterPreset {
  std::string prefix;  // "cpython"
  std::string args;    // "--preset pickle"
  // This preset's subjects form the version matrix (cross.matrix among
  // the interpreters); the others take part in the per-subject properties.
  bool matrix = false;
};

// The subjects file's "interpreters" member (docs/cli.md, "Subjects file").
struct InterpreterSettings {
  std::string adapter;       // the Python adapter, relative to `base`
  std::string pyodide_host;  // the Node host of the Pyodide interpreters
  std::string package_dir;   // lent to the cloudpickle and dill presets
  // Appended to every Pyodide subject's adapter arguments. By default
  // "--no-by-value": callable.by-value loads each case in a fresh process,
  // and a fresh Pyodide takes seconds to start.
  std::string pyodide_args = "--no-by-value";
  bool search_pyenv = true, search_path = true, search_pyodide = true;
  // Executables that are subjects already (the interpreter this build
  // embeds: the in-process cpython, and the subjects file's testees that
  // run Debian's python3): pyenv and PATH do not find them again, so that
  // one interpreter is not two subjects whose verdicts depend on whether
  // another of its series was found first. --python still adds one.
  std::vector<std::string> already_subjects;
  std::vector<InterpreterPreset> presets;
  double timeout_s = 20, start_timeout_s = 60;
  std::filesystem::path base = ".";  // where relative paths start
  std::string origin;                // "subjects.json /interpreters"
};

// The settings this repository ships when a subjects file has none: the
// adapter and the Pyodide host under harness/testees/, Debian's
// dist-packages for cloudpickle and dill, every preset.
InterpreterSettings default_interpreter_settings(const std::filesystem::path& base);

// Parses the "interpreters" member; throws SubjectsFileError naming the
// file and the key that is wrong.
InterpreterSettings parse_interpreter_settings(const nlohmann::json& j,
                                               const std::filesystem::path& file);

// Finds the interpreters the settings search, plus `extra` executables
// (--python PATH; an extra path that does not run is an InputError). One
// interpreter per kind and series: --python first, then pyenv, then PATH.
// Each native candidate is run once (`-c` printing its version), with a
// time limit; results are cached for the process.
std::vector<Interpreter> find_interpreters(const InterpreterSettings& settings,
                                           const std::vector<std::string>& extra = {});

// The testees of every interpreter and preset, sorted by preset, then
// native before Pyodide, then version.
std::vector<TesteeConfig> interpreter_testees(const InterpreterSettings& settings,
                                              const std::vector<Interpreter>& found);

// "3.12" from "3.12.1"; nullopt when `version` is not MAJOR.MINOR[.more].
std::optional<std::string> python_series(std::string_view version);

// Orders two series numerically ("3.9" < "3.10"); for sorting and matrices.
bool series_less(std::string_view a, std::string_view b);

}  // namespace serialcheck
