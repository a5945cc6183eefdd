// Finding Python interpreters and making them subjects
// (harness/subjects/interpreters.h), on a fake pyenv, PATH and Pyodide
// folder made here: scripts that answer the version probe as an
// interpreter would.
#include "harness/subjects/interpreters.h"

#include <gtest/gtest.h>
#include <unistd.h>
#include <stdlib.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <string>

#include "harness/subjects/subjects_file.h"

namespace serialcheck {
namespace {
namespace fs = std::filesystem;

// An executable script that prints `answer` (the probe's "IMPL X.Y.Z").
void fake_python(const fs::path& path, const std::string& answer, int status = 0) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << "#!/bin/sh\nprintf '%s' '" << answer << "'\nexit " << status << "\n";
  fs::permissions(path, fs::perms::owner_all);
}

class Interpreters : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per process: the cases of this fixture may run at once in
    // several test processes (ctest -j, shards).
    root_ = fs::path(::testing::TempDir()) / ("interpreters_test-" + std::to_string(::getpid()));
    fs::remove_all(root_);
    fake_python(root_ / "pyenv/versions/3.9.1/bin/python", "CPython 3.9.1");
    fake_python(root_ / "pyenv/versions/2.7.18/bin/python", "CPython 2.7.18");
    fake_python(root_ / "pyenv/versions/pypy3.9/bin/python", "PyPy 3.9.16");
    fake_python(root_ / "pyenv/versions/broken/bin/python", "", 1);
    fake_python(root_ / "bin/python3.12", "CPython 3.12.1");
    fake_python(root_ / "bin/python3.12-config", "CPython 3.12.1");
    fake_python(root_ / "bin/python3.9", "CPython 3.9.18");  // pyenv's 3.9 comes first
    fake_python(root_ / "pyenv/shims/python3.13", "CPython 3.13.0");
    fake_python(root_ / "bin/node", "");
    fs::create_directories(root_ / "host/node_modules/pyodide-3.14");
    std::ofstream(root_ / "host/host.js") << "// stand-in\n";
    std::ofstream(root_ / "host/node_modules/pyodide-3.14/package.json")
        << R"({"name": "pyodide", "version": "314.0.8"})";
    fs::create_directories(root_ / "host/node_modules/pyodide-next");  // not a series
    saved_path_ = std::getenv("PATH") ? std::getenv("PATH") : "";
    saved_pyenv_ = std::getenv("PYENV_ROOT") ? std::getenv("PYENV_ROOT") : "";
    ::setenv("PYENV_ROOT", (root_ / "pyenv").c_str(), 1);
    ::setenv("PATH",
             ((root_ / "pyenv/shims").string() + ":" + (root_ / "bin").string() + ":/usr/bin:/bin")
                 .c_str(),
             1);
    settings_ = default_interpreter_settings(root_);
    settings_.pyodide_host = "host/host.js";
  }
  void TearDown() override {
    ::setenv("PATH", saved_path_.c_str(), 1);
    if (saved_pyenv_.empty()) {
      ::unsetenv("PYENV_ROOT");
    } else {
      ::setenv("PYENV_ROOT", saved_pyenv_.c_str(), 1);
    }
    fs::remove_all(root_);
  }

  const Interpreter* find(const std::vector<Interpreter>& found, const std::string& tag) {
    auto it = std::find_if(found.begin(), found.end(),
                           [&](const Interpreter& i) { return i.tag() == tag; });
    return it == found.end() ? nullptr : &*it;
  }

  fs::path root_;
  std::string saved_path_, saved_pyenv_;
  InterpreterSettings settings_;
};

TEST_F(Interpreters, FindsPyenvPathAndPyodideOncePerSeries) {
  auto found = find_interpreters(settings_);
  const Interpreter* py39 = find(found, "3.9");
  ASSERT_NE(py39, nullptr);
  EXPECT_EQ(py39->version, "3.9.1");  // pyenv's, not PATH's 3.9.18
  EXPECT_EQ(py39->found_by, "pyenv");
  ASSERT_NE(find(found, "2.7"), nullptr);
  const Interpreter* py312 = find(found, "3.12");
  ASSERT_NE(py312, nullptr);
  EXPECT_EQ(py312->found_by, "PATH");
  EXPECT_EQ(py312->version, "3.12.1");
  const Interpreter* wasm = find(found, "3.14-wasm");
  ASSERT_NE(wasm, nullptr);
  EXPECT_EQ(wasm->kind, Interpreter::Kind::Pyodide);
  EXPECT_EQ(wasm->detail, "Pyodide 314.0.8");
  // Negative controls: no PyPy, no interpreter that fails its probe, no
  // pyenv shim, no -config script, no Pyodide folder that is not a series.
  EXPECT_EQ(find(found, "3.13"), nullptr);
  for (const auto& i : found) {
    EXPECT_EQ(i.path.find("pypy"), std::string::npos) << i.path;
    EXPECT_EQ(i.path.find("broken"), std::string::npos) << i.path;
    EXPECT_EQ(i.path.find("-config"), std::string::npos) << i.path;
  }
  // Natives first, each kind by version.
  EXPECT_EQ(found.back().kind, Interpreter::Kind::Pyodide);
  EXPECT_LT(std::find_if(found.begin(), found.end(),
                         [](const Interpreter& i) { return i.series == "2.7"; }) -
                found.begin(),
            std::find_if(found.begin(), found.end(), [](const Interpreter& i) {
              return i.series == "3.9";
            }) - found.begin());
}

TEST_F(Interpreters, SearchPlacesCanBeTurnedOff) {
  settings_.search_pyenv = settings_.search_path = false;
  auto found = find_interpreters(settings_);
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].tag(), "3.14-wasm");
  settings_.search_pyodide = false;
  EXPECT_TRUE(find_interpreters(settings_).empty());
}

TEST_F(Interpreters, APythonGivenByPathComesFirstAndMustBeCPython) {
  settings_.search_pyenv = settings_.search_path = settings_.search_pyodide = false;
  fake_python(root_ / "mine/python", "CPython 3.9.7");
  auto found = find_interpreters(settings_, {(root_ / "mine/python").string()});
  ASSERT_EQ(found.size(), 1u);
  EXPECT_EQ(found[0].found_by, "--python");
  EXPECT_EQ(found[0].version, "3.9.7");
  EXPECT_THROW(
      find_interpreters(settings_, {(root_ / "pyenv/versions/pypy3.9/bin/python").string()}),
      SubjectsFileError);
  EXPECT_THROW(find_interpreters(settings_, {(root_ / "no/such/python").string()}),
               SubjectsFileError);
}

TEST_F(Interpreters, EachPresetIsASubjectNamedAfterItAndTheSeries) {
  auto testees = interpreter_testees(settings_, find_interpreters(settings_));
  auto named = [&](const std::string& name) -> const TesteeConfig* {
    auto it = std::find_if(testees.begin(), testees.end(),
                           [&](const TesteeConfig& c) { return c.name == name; });
    return it == testees.end() ? nullptr : &*it;
  };
  const TesteeConfig* c39 = named("cpython-3.9");
  ASSERT_NE(c39, nullptr);
  EXPECT_NE(c39->command.find("--preset pickle --name cpython-3.9"), std::string::npos)
      << c39->command;
  EXPECT_EQ(c39->group, kVersionGroup);
  const TesteeConfig* dill = named("dill-3.12");
  ASSERT_NE(dill, nullptr);
  EXPECT_NE(dill->command.find("--package-dir /usr/lib/python3/dist-packages"), std::string::npos)
      << dill->command;
  EXPECT_EQ(dill->group, kInterpreterGroup);
  const TesteeConfig* wasm = named("cloudpickle-3.14-wasm");
  ASSERT_NE(wasm, nullptr);
  // The host mounts the package folder where the adapter is told to look.
  EXPECT_NE(wasm->command.find("--python 3.14 --mount /usr/lib/python3/dist-packages="),
            std::string::npos)
      << wasm->command;
  EXPECT_NE(wasm->command.find("--package-dir /sc-packages"), std::string::npos) << wasm->command;
  for (const auto& t : testees) EXPECT_TRUE(valid_subject_name(t.name)) << t.name;
  EXPECT_EQ(named("pickle-py-3.13"), nullptr);
}

TEST(InterpreterSettings, TheSubjectsFileSaysWhatToRunAndMistakesAreNamed) {
  auto file = parse_subjects_document(R"({"testees": [], "interpreters": {
      "search": ["pyodide"], "package_dir": "/opt/pkgs",
      "presets": [{"prefix": "c", "args": "--preset pickle", "matrix": true}]}})",
                                      "dir/subjects.json");
  ASSERT_TRUE(file.interpreters.has_value());
  EXPECT_FALSE(file.interpreters->search_pyenv);
  EXPECT_TRUE(file.interpreters->search_pyodide);
  EXPECT_EQ(file.interpreters->package_dir, "/opt/pkgs");
  ASSERT_EQ(file.interpreters->presets.size(), 1u);
  EXPECT_TRUE(file.interpreters->presets[0].matrix);
  EXPECT_EQ(file.interpreters->base, fs::path("dir"));
  EXPECT_FALSE(parse_subjects_document(R"({"testees": []})", "s.json").interpreters.has_value());
  for (const char* bad : {R"({"testees": [], "interpreters": {"serach": []}})",
                          R"({"testees": [], "interpreters": {"search": ["conda"]}})",
                          R"({"testees": [], "interpreters": {"presets": [{"prefix": "x"}]}})",
                          R"({"testees": [], "interpreters": {"timeout_s": -1}})"}) {
    try {
      parse_subjects_document(bad, "s.json");
      ADD_FAILURE() << "accepted " << bad;
    } catch (const SubjectsFileError& e) {
      EXPECT_NE(std::string(e.what()).find("s.json: at /interpreters/"), std::string::npos)
          << e.what();
    }
  }
}

TEST(InterpreterSettings, SeriesAreReadAndOrderedAsNumbers) {
  EXPECT_EQ(python_series("3.12.1"), "3.12");
  EXPECT_EQ(python_series("2.7"), "2.7");
  EXPECT_EQ(python_series("3.15.0rc1"), "3.15");
  EXPECT_EQ(python_series("3"), std::nullopt);
  EXPECT_EQ(python_series("3.12-config"), std::nullopt);
  EXPECT_TRUE(series_less("3.9", "3.10"));
  EXPECT_TRUE(series_less("2.7", "3.6"));
  EXPECT_FALSE(series_less("3.10", "3.9"));
}

}  // namespace
}  // namespace serialcheck
