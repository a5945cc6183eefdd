#include "harness/subjects/interpreters.h"

#include <fmt/format.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>

#include "harness/subjects/subjects_file.h"

namespace serialcheck {
namespace fs = std::filesystem;
namespace {

// What the subjects of each preset are named after, and how the adapter is
// told to be that preset. The C pickler's subjects form the version matrix.
std::vector<InterpreterPreset> default_presets() {
  return {{"cpython", "--preset pickle", true},
          {"pickle-py", "--preset pickle-py", false},
          {"cloudpickle", "--preset cloudpickle --package-dir {package_dir}", false},
          {"dill", "--preset dill --package-dir {package_dir}", false}};
}

// Where a Pyodide interpreter sees the package folder its host mounts.
constexpr const char* kPyodidePackageMount = "/sc-packages";

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
                                        "0123456789-_./=:@+") == std::string::npos) {
    return s;
  }
  std::string out = "'";
  for (char c : s) {
    if (c == '\'') {
      out += "'\\''";
    } else {
      out += c;
    }
  }
  return out + "'";
}

std::string replace_all(std::string text, std::string_view what, const std::string& with) {
  for (std::size_t at = text.find(what); at != std::string::npos;
       at = text.find(what, at + with.size())) {
    text.replace(at, what.size(), with);
  }
  return text;
}

bool is_executable_file(const fs::path& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISREG(st.st_mode) && ::access(p.c_str(), X_OK) == 0;
}

std::optional<fs::path> on_path(const std::string& program) {
  const char* path = std::getenv("PATH");
  if (path == nullptr) return std::nullopt;
  std::stringstream in(path);
  std::string dir;
  while (std::getline(in, dir, ':')) {
    if (dir.empty()) continue;
    fs::path p = fs::path(dir) / program;
    if (is_executable_file(p)) return p;
  }
  return std::nullopt;
}

// Runs `exe -c ...` (at most 15 s) and reads "IMPLEMENTATION X.Y.Z".
// nullopt when it does not run or is not CPython.
struct Probe {
  std::string implementation, version;
};
std::optional<Probe> probe_python(const std::string& exe) {
  static std::mutex lock;
  static std::map<std::string, std::optional<Probe>> cache;
  std::lock_guard<std::mutex> hold(lock);
  if (auto it = cache.find(exe); it != cache.end()) return it->second;
  std::string cmd = "timeout 15 " + shell_quote(exe) +
                    " -c 'import sys, platform; sys.stdout.write(\"%s %d.%d.%d\" % "
                    "((platform.python_implementation(),) + tuple(sys.version_info[:3])))' "
                    "2>/dev/null </dev/null";
  std::optional<Probe> result;
  if (FILE* p = ::popen(cmd.c_str(), "r")) {
    char buf[256];
    std::string out;
    while (std::fgets(buf, sizeof buf, p) != nullptr) out += buf;
    int status = ::pclose(p);
    std::istringstream words(out);
    Probe probe;
    if (status == 0 && (words >> probe.implementation >> probe.version) &&
        python_series(probe.version)) {
      result = probe;
    }
  }
  cache[exe] = result;
  return result;
}

fs::path resolve(const fs::path& base, const std::string& p) {
  fs::path given(p);
  return given.is_absolute() ? given : (base / given).lexically_normal();
}

// pyenv's interpreters: $PYENV_ROOT/versions/*/bin/python (not its shims,
// which pick a version by the current folder's settings).
std::vector<fs::path> pyenv_candidates() {
  std::vector<fs::path> out;
  fs::path root;
  if (const char* r = std::getenv("PYENV_ROOT"); r != nullptr && *r != '\0') {
    root = r;
  } else if (const char* home = std::getenv("HOME"); home != nullptr && *home != '\0') {
    root = fs::path(home) / ".pyenv";
  } else {
    return out;
  }
  std::error_code ec;
  if (!fs::is_directory(root / "versions", ec)) return out;
  for (const auto& e : fs::directory_iterator(root / "versions", ec)) {
    fs::path exe = e.path() / "bin" / "python";
    if (is_executable_file(exe)) out.push_back(exe);
  }
  std::sort(out.begin(), out.end());
  return out;
}

// `python2.7`, `python3.N` in each PATH folder (not pyenv's shims).
std::vector<fs::path> path_candidates() {
  std::vector<fs::path> out;
  const char* path = std::getenv("PATH");
  if (path == nullptr) return out;
  std::stringstream in(path);
  std::string dir;
  std::set<std::string> seen;
  while (std::getline(in, dir, ':')) {
    if (dir.empty() || dir.find("/shims") != std::string::npos) continue;
    std::error_code ec;
    if (!fs::is_directory(dir, ec)) continue;
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      std::string name = e.path().filename().string();
      if (name.rfind("python", 0) != 0) continue;
      auto series = python_series(name.substr(6));
      if (!series || *series != name.substr(6)) continue;  // python3.12, not python3.12-config
      if (!is_executable_file(e.path())) continue;
      if (!seen.insert(name).second) continue;  // the first on PATH wins
      out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

// node_modules/pyodide-X.Y/package.json beside the host.
std::vector<Interpreter> pyodide_interpreters(const fs::path& host) {
  std::vector<Interpreter> out;
  std::error_code ec;
  fs::path modules = host.parent_path() / "node_modules";
  if (!fs::is_regular_file(host, ec) || !fs::is_directory(modules, ec)) return out;
  if (!on_path("node")) return out;
  for (const auto& e : fs::directory_iterator(modules, ec)) {
    std::string name = e.path().filename().string();
    if (name.rfind("pyodide-", 0) != 0) continue;
    auto series = python_series(name.substr(8));
    if (!series || *series != name.substr(8)) continue;
    std::ifstream in(e.path() / "package.json");
    if (!in) continue;
    nlohmann::json pkg = nlohmann::json::parse(in, nullptr, false);
    if (pkg.is_discarded() || !pkg.is_object()) continue;
    Interpreter i;
    i.kind = Interpreter::Kind::Pyodide;
    i.series = *series;
    i.version = *series;
    i.path = e.path().string();
    i.found_by = "npm";
    i.detail = "Pyodide " + pkg.value("version", std::string("?"));
    out.push_back(std::move(i));
  }
  return out;
}

[[noreturn]] void bad(const InterpreterSettings& s, const std::string& key,
                      const std::string& what) {
  throw SubjectsFileError(fmt::format("{}/{}: {}", s.origin, key, what));
}

}  // namespace

std::optional<std::string> python_series(std::string_view version) {
  std::size_t i = 0;
  auto digits = [&] {
    std::size_t start = i;
    while (i < version.size() && version[i] >= '0' && version[i] <= '9') ++i;
    return i > start && i - start <= 4;
  };
  if (!digits() || i >= version.size() || version[i] != '.') return std::nullopt;
  ++i;
  if (!digits()) return std::nullopt;
  if (i < version.size() && version[i] != '.') return std::nullopt;
  return std::string(version.substr(0, i));
}

bool series_less(std::string_view a, std::string_view b) {
  auto parts = [](std::string_view s) {
    int major = 0, minor = 0;
    std::size_t dot = s.find('.');
    for (char c : s.substr(0, dot)) major = major * 10 + (c - '0');
    if (dot != std::string_view::npos) {
      for (char c : s.substr(dot + 1)) {
        if (c < '0' || c > '9') break;
        minor = minor * 10 + (c - '0');
      }
    }
    return std::pair{major, minor};
  };
  return parts(a) < parts(b);
}

InterpreterSettings default_interpreter_settings(const fs::path& base) {
  InterpreterSettings s;
  s.adapter = "harness/testees/python/serialcheck_testee.py";
  s.pyodide_host = "harness/testees/pyodide/host.js";
  s.package_dir = "/usr/lib/python3/dist-packages";
  s.presets = default_presets();
  s.base = base.empty() ? fs::path(".") : base;
  s.origin = "built-in interpreter settings";
  return s;
}

InterpreterSettings parse_interpreter_settings(const nlohmann::json& j, const fs::path& file) {
  fs::path base = file.parent_path();
  InterpreterSettings s = default_interpreter_settings(base.empty() ? "." : base);
  s.origin = file.string() + ": at /interpreters";
  if (!j.is_object()) bad(s, "", "must be an object");
  static const char* const kKnown[] = {"about",       "adapter",      "pyodide_host",
                                       "package_dir", "pyodide_args", "search",
                                       "presets",     "timeout_s",    "start_timeout_s"};
  for (const auto& [key, value] : j.items()) {
    if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) {
      bad(s, key, "unknown member");
    }
  }
  for (const char* key : {"adapter", "pyodide_host", "package_dir"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_string() || j[key].get<std::string>().empty()) {
      bad(s, key, "must be a non-empty path");
    }
  }
  s.adapter = j.value("adapter", s.adapter);
  s.pyodide_host = j.value("pyodide_host", s.pyodide_host);
  s.package_dir = j.value("package_dir", s.package_dir);
  if (j.contains("pyodide_args") && !j["pyodide_args"].is_string()) {
    bad(s, "pyodide_args", "must be a string of adapter arguments");
  }
  s.pyodide_args = j.value("pyodide_args", s.pyodide_args);
  if (j.contains("search")) {
    if (!j["search"].is_array())
      bad(s, "search", "must be an array of \"pyenv\", \"path\", \"pyodide\"");
    s.search_pyenv = s.search_path = s.search_pyodide = false;
    for (const auto& w : j["search"]) {
      std::string where = w.is_string() ? w.get<std::string>() : "";
      if (where == "pyenv") {
        s.search_pyenv = true;
      } else if (where == "path") {
        s.search_path = true;
      } else if (where == "pyodide") {
        s.search_pyodide = true;
      } else {
        bad(s, "search", "unknown place " + w.dump() + " (pyenv, path or pyodide)");
      }
    }
  }
  if (j.contains("presets")) {
    if (!j["presets"].is_array()) bad(s, "presets", "must be an array of presets");
    s.presets.clear();
    for (std::size_t i = 0; i < j["presets"].size(); ++i) {
      const auto& p = j["presets"][i];
      std::string where = fmt::format("presets/{}", i);
      if (!p.is_object() || !p.contains("prefix") || !p["prefix"].is_string() ||
          !p.contains("args") || !p["args"].is_string()) {
        bad(s, where,
            "must be {\"prefix\": NAME, \"args\": ADAPTER-ARGUMENTS[, \"matrix\": BOOL]}");
      }
      InterpreterPreset preset{p["prefix"].get<std::string>(), p["args"].get<std::string>(),
                               p.value("matrix", false)};
      if (!valid_subject_name(preset.prefix + "-3.10-wasm")) {
        bad(s, where + "/prefix", "must be letters, digits, '-', '_' and '.'");
      }
      s.presets.push_back(std::move(preset));
    }
  }
  for (const char* key : {"timeout_s", "start_timeout_s"}) {
    if (!j.contains(key)) continue;
    if (!j[key].is_number() || j[key].get<double>() <= 0 || j[key].get<double>() > 3600) {
      bad(s, key, "must be a number of seconds in (0, 3600]");
    }
  }
  s.timeout_s = j.value("timeout_s", s.timeout_s);
  s.start_timeout_s = j.value("start_timeout_s", s.start_timeout_s);
  return s;
}

std::vector<Interpreter> find_interpreters(const InterpreterSettings& settings,
                                           const std::vector<std::string>& extra) {
  std::vector<Interpreter> out;
  std::set<std::string> series_seen, real_seen, skipped;
  for (const auto& a : settings.already_subjects) {
    std::error_code ec;
    fs::path real = fs::canonical(a, ec);
    skipped.insert(ec ? a : real.string());
  }
  auto add_native = [&](const fs::path& exe, const std::string& found_by, bool required) {
    std::error_code ec;
    fs::path real = fs::canonical(exe, ec);
    std::string key = ec ? exe.string() : real.string();
    if (!required && skipped.count(key) != 0) return;
    auto probe = probe_python(exe.string());
    if (!probe || probe->implementation != "CPython") {
      if (required) {
        throw SubjectsFileError("--python " + exe.string() +
                                (probe ? ": not CPython (" + probe->implementation + ")"
                                       : ": does not run as a Python interpreter"));
      }
      return;
    }
    std::string series = *python_series(probe->version);
    if (real_seen.count(key) != 0 || series_seen.count(series) != 0) return;
    real_seen.insert(key);
    series_seen.insert(series);
    Interpreter i;
    i.kind = Interpreter::Kind::Native;
    i.version = probe->version;
    i.series = series;
    i.path = exe.string();
    i.found_by = found_by;
    out.push_back(std::move(i));
  };
  for (const auto& e : extra) add_native(e, "--python", true);
  if (settings.search_pyenv) {
    for (const auto& exe : pyenv_candidates()) add_native(exe, "pyenv", false);
  }
  if (settings.search_path) {
    for (const auto& exe : path_candidates()) add_native(exe, "PATH", false);
  }
  if (settings.search_pyodide) {
    for (auto& i : pyodide_interpreters(resolve(settings.base, settings.pyodide_host))) {
      out.push_back(std::move(i));
    }
  }
  std::stable_sort(out.begin(), out.end(), [](const Interpreter& a, const Interpreter& b) {
    if (a.kind != b.kind) return a.kind == Interpreter::Kind::Native;
    return series_less(a.series, b.series);
  });
  return out;
}

std::vector<TesteeConfig> interpreter_testees(const InterpreterSettings& settings,
                                              const std::vector<Interpreter>& found) {
  std::vector<TesteeConfig> out;
  const fs::path adapter = resolve(settings.base, settings.adapter);
  const fs::path host = resolve(settings.base, settings.pyodide_host);
  for (const auto& preset : settings.presets) {
    for (const auto& i : found) {
      TesteeConfig c;
      c.name = preset.prefix + "-" + i.tag();
      std::string name_arg = " --name " + shell_quote(c.name);
      if (i.kind == Interpreter::Kind::Native) {
        std::string args =
            replace_all(preset.args, "{package_dir}", shell_quote(settings.package_dir));
        c.command =
            shell_quote(i.path) + " " + shell_quote(adapter.string()) + " " + args + name_arg;
      } else {
        std::string args = replace_all(preset.args, "{package_dir}", kPyodidePackageMount);
        if (!settings.pyodide_args.empty()) args += " " + settings.pyodide_args;
        std::string mount;
        if (preset.args.find("{package_dir}") != std::string::npos) {
          mount = " --mount " + shell_quote(settings.package_dir + "=" + kPyodidePackageMount);
        }
        c.command = "node " + shell_quote(host.string()) + " --python " + i.series + mount +
                    " -- " + args + name_arg;
      }
      c.cwd = settings.base.string();
      c.timeout_s = settings.timeout_s;
      c.start_timeout_s = settings.start_timeout_s;
      c.origin = fmt::format("{} ({} {}, found by {})", settings.origin,
                             i.kind == Interpreter::Kind::Native ? "CPython" : i.detail, i.version,
                             i.found_by);
      c.group = preset.matrix ? kVersionGroup : kInterpreterGroup;
      out.push_back(std::move(c));
    }
  }
  return out;
}

}  // namespace serialcheck
