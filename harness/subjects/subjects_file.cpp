#include "harness/subjects/subjects_file.h"

#include <fmt/format.h>

#include <cctype>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace serialcheck {
namespace {

[[noreturn]] void bad(const std::filesystem::path& path, const std::string& where,
                      const std::string& what) {
  throw SubjectsFileError(fmt::format("{}: at {}: {}", path.string(), where, what));
}

double seconds(const nlohmann::json& entry, const char* key, double fallback,
               const std::filesystem::path& path, const std::string& where) {
  if (!entry.contains(key)) return fallback;
  const auto& v = entry[key];
  if (!v.is_number() || v.get<double>() <= 0 || v.get<double>() > 3600) {
    bad(path, where + "/" + key, "must be a number of seconds in (0, 3600]");
  }
  return v.get<double>();
}

}  // namespace

bool valid_subject_name(std::string_view name) {
  if (name.empty() || name.size() > 64) return false;
  if (!std::isalnum(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_' && c != '.' &&
        c != '@') {
      return false;
    }
  }
  return true;
}

std::vector<TesteeConfig> parse_subjects_file(std::string_view text,
                                              const std::filesystem::path& path) {
  return parse_subjects_document(text, path).testees;
}

SubjectsFile parse_subjects_document(std::string_view text, const std::filesystem::path& path) {
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    throw SubjectsFileError(fmt::format("{}: not JSON: {}", path.string(), e.what()));
  }
  if (!doc.is_object()) bad(path, "/", "the document must be an object with \"testees\"");
  for (const auto& [key, value] : doc.items()) {
    if (key != "testees" && key != "about" && key != "interpreters") {
      bad(path, "/" + key, "unknown member");
    }
  }
  if (!doc.contains("testees") || !doc["testees"].is_array()) {
    bad(path, "/testees", "must be an array of testees");
  }
  std::filesystem::path base = path.parent_path();
  if (base.empty()) base = ".";
  std::vector<TesteeConfig> out;
  const auto& list = doc["testees"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    std::string where = fmt::format("/testees/{}", i);
    const auto& e = list[i];
    if (!e.is_object()) bad(path, where, "a testee must be an object");
    for (const auto& [key, value] : e.items()) {
      static const char* const kKnown[] = {"name",      "command",         "cwd",  "env",
                                           "timeout_s", "start_timeout_s", "about"};
      if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown)) {
        bad(path, where + "/" + key, "unknown member");
      }
    }
    TesteeConfig c;
    if (!e.contains("name") || !e["name"].is_string() ||
        !valid_subject_name(e["name"].get<std::string>())) {
      bad(path, where + "/name",
          "must be a name of letters, digits, '-', '_', '.' and '@' (at most 64 characters)");
    }
    c.name = e["name"].get<std::string>();
    if (!e.contains("command") || !e["command"].is_string() ||
        e["command"].get<std::string>().empty()) {
      bad(path, where + "/command", "must be a non-empty shell command");
    }
    c.command = e["command"].get<std::string>();
    std::filesystem::path cwd = base;
    if (e.contains("cwd")) {
      if (!e["cwd"].is_string()) bad(path, where + "/cwd", "must be a string");
      std::filesystem::path given = e["cwd"].get<std::string>();
      cwd = given.is_absolute() ? given : base / given;
    }
    c.cwd = cwd.lexically_normal().string();
    if (e.contains("env")) {
      if (!e["env"].is_object()) bad(path, where + "/env", "must be an object of strings");
      for (const auto& [k, v] : e["env"].items()) {
        if (!v.is_string()) bad(path, where + "/env/" + k, "must be a string");
        c.env[k] = v.get<std::string>();
      }
    }
    c.timeout_s = seconds(e, "timeout_s", c.timeout_s, path, where);
    c.start_timeout_s = seconds(e, "start_timeout_s", c.start_timeout_s, path, where);
    c.origin = fmt::format("{} {}", path.string(), where);
    for (const auto& earlier : out) {
      if (earlier.name == c.name) bad(path, where + "/name", "\"" + c.name + "\" is named twice");
    }
    out.push_back(std::move(c));
  }
  SubjectsFile file;
  file.testees = std::move(out);
  if (doc.contains("interpreters")) {
    file.interpreters = parse_interpreter_settings(doc["interpreters"], path);
  }
  return file;
}

SubjectsFile read_subjects_document(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw SubjectsFileError(path.string() + ": cannot be read");
  std::ostringstream text;
  text << in.rdbuf();
  return parse_subjects_document(text.str(), path);
}

std::vector<TesteeConfig> read_subjects_file(const std::filesystem::path& path) {
  return read_subjects_document(path).testees;
}

TesteeConfig parse_testee_argument(std::string_view arg) {
  auto eq = arg.find('=');
  if (eq == std::string_view::npos) {
    throw SubjectsFileError(fmt::format("--testee \"{}\": expected NAME=COMMAND", arg));
  }
  TesteeConfig c;
  c.name = std::string(arg.substr(0, eq));
  c.command = std::string(arg.substr(eq + 1));
  if (!valid_subject_name(c.name)) {
    throw SubjectsFileError(fmt::format(
        "--testee \"{}\": the name must be letters, digits, '-', '_' and '.'", arg));
  }
  if (c.command.find_first_not_of(' ') == std::string::npos) {
    throw SubjectsFileError(fmt::format("--testee \"{}\": the command is empty", arg));
  }
  c.origin = "--testee " + c.name;
  return c;
}

}  // namespace serialcheck
