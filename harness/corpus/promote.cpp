#include "harness/corpus/promote.h"

#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>

#include "harness/corpus/corpus.h"
#include "harness/gen/module_gen.h"
#include "harness/props/value_tools.h"
#include "reference/pickle/decoder.h"
#include "reference/pickle/encoder.h"
#include "reference/pickle/errors.h"
#include "reference/value/json.h"

namespace serialcheck {
namespace {

constexpr const char* kOracle = "cpython";

std::string read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw PromoteError("cannot read " + path.string() + ": " + std::strerror(errno));
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

void write_file(const std::filesystem::path& path, std::string_view bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) throw PromoteError("cannot write " + path.string());
}

// The pickle frames of the case's value, from the oracle when it can.
Message golden_bytes(const CaseRecord& record, const std::vector<SubjectFactory>& factories,
                     double timeout_s, PromoteResult& result) {
  std::string why;
  auto m = dump_in_worker(factories, kOracle, record.test, timeout_s, &why);
  if (m) {
    result.source = kOracle;
    return *m;
  }
  result.source_note = "the cpython subject could not pickle it (" + why + ")";
  auto reference = dump_in_worker(factories, "reference", record.test, timeout_s, &why);
  if (!reference)
    throw PromoteError("neither cpython nor the reference can pickle the value: " + why);
  result.source = "reference";
  return *reference;
}

// The manifest's layout, as scripts/make-golden writes it: a node on one
// line (Python's json.dumps with ", " and ": ") when it fits in the width,
// else its members one per line. The manifest is a few levels deep, so the
// recursion is shallow.
std::string compact(const nlohmann::ordered_json& j) {
  if (j.is_object()) {
    std::string out = "{";
    bool first = true;
    for (const auto& [key, value] : j.items()) {
      out += (first ? "" : ", ") + nlohmann::ordered_json(key).dump() + ": " + compact(value);
      first = false;
    }
    return out + "}";
  }
  if (j.is_array()) {
    std::string out = "[";
    for (std::size_t i = 0; i < j.size(); ++i) out += (i ? ", " : "") + compact(j[i]);
    return out + "]";
  }
  return j.dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::size_t code_points(const std::string& s) {
  std::size_t n = 0;
  for (unsigned char c : s) n += (c & 0xC0) != 0x80 ? 1 : 0;
  return n;
}

std::string layout(const nlohmann::ordered_json& j, std::size_t indent, std::size_t width) {
  std::string one_line = compact(j);
  if (indent + code_points(one_line) <= width || !j.is_structured() || j.empty()) return one_line;
  std::string pad(indent + 2, ' ');
  std::string out;
  if (j.is_object()) {
    for (const auto& [key, value] : j.items()) {
      out += (out.empty() ? "" : ",\n") + pad + nlohmann::ordered_json(key).dump() + ": " +
             layout(value, indent + 2, width);
    }
    return "{\n" + out + "\n" + std::string(indent, ' ') + "}";
  }
  for (const auto& value : j) {
    out += (out.empty() ? "" : ",\n") + pad + layout(value, indent + 2, width);
  }
  return "[\n" + out + "\n" + std::string(indent, ' ') + "]";
}

// A golden vector is loaded by anyone's Python; a value that names a module
// only the harness defines (generated ModuleType subclasses, the fixtures
// module's classes) cannot load there, and renaming it would make another case. Refused, with the name.
void refuse_harness_only_modules(const CaseRecord& record) {
  for (const Node* n : reachable(record.test.value)) {
    std::string_view module;
    if (n->kind == Kind::Module) module = n->name();
    if (n->kind == Kind::Global) module = n->payload();
    if (!module.empty() && gen::harness_only_module(module)) {
      throw PromoteError("the value names module " + std::string(module) +
                         ", which only the harness defines (a generated module or its fixtures), so no golden "
                         "vector user can import it; keep the case in corpus/failing");
    }
  }
}

constexpr std::size_t kManifestWidth = 150;  // scripts/make-golden's width for MANIFEST.json

}  // namespace

std::string promoted_name(const CaseRecord& record) {
  std::string raw = "promoted_" + record.subject + "_" + record.property + "_" + case_hash(record);
  std::string name;
  for (char c : raw) {
    unsigned char u = static_cast<unsigned char>(c);
    name.push_back(std::isalnum(u) ? static_cast<char>(std::tolower(u)) : '_');
  }
  return name;
}

PromoteResult promote_case(const std::filesystem::path& case_file,
                           const std::filesystem::path& golden_dir,
                           const std::vector<SubjectFactory>& factories, double timeout_s,
                           const std::optional<std::string>& name) {
  CaseRecord record;
  try {
    record = load_case(case_file);
  } catch (const std::exception& e) {
    throw PromoteError(e.what());
  }
  refuse_harness_only_modules(record);
  auto manifest_path = golden_dir / "MANIFEST.json";
  // Ordered and laid out as the generator lays it out, so that only the new
  // entry shows in a diff.
  nlohmann::ordered_json manifest;
  try {
    manifest = nlohmann::ordered_json::parse(read_file(manifest_path));
  } catch (const nlohmann::json::exception& e) {
    throw PromoteError(manifest_path.string() + " is not valid JSON: " + e.what());
  }
  if (!manifest.is_object() || !manifest.contains("cases") || !manifest["cases"].is_array()) {
    throw PromoteError(manifest_path.string() + " has no \"cases\" list");
  }

  PromoteResult result;
  result.name = name.value_or(promoted_name(record));
  for (const auto& c : manifest["cases"]) {
    if (c.value("name", "") == result.name) {
      throw PromoteError("the manifest already has a case named \"" + result.name + "\"");
    }
  }

  const TestCase& test = record.test;
  Message m = golden_bytes(record, factories, timeout_s, result);
  if (m.frames.empty()) throw PromoteError("the dump has no pickle frame");

  // The golden JSON is what the reference decodes from those bytes.
  std::vector<pickle::BufferView> views;
  for (std::size_t i = 1; i < m.frames.size(); ++i) {
    bool readonly = m.frames[i].readonly;
    const auto& w = m.header.contains("writeable") ? m.header["writeable"] : nlohmann::json();
    if (w.is_array() && i - 1 < w.size() && w[i - 1].is_boolean()) readonly = !w[i - 1].get<bool>();
    views.push_back({m.frames[i].data, m.frames[i].size, readonly});
  }
  Graph decoded;
  pickle::DecodeOptions options;
  options.buffers = views;
  std::string json_text;
  try {
    auto d = pickle::decode(m.frames[0].view(), decoded, options);
    json_text = to_json(d.root);
    pickle::EncodeOptions enc;
    enc.protocol = test.protocol;
    if (test.out_of_band && test.protocol >= 5) {
      enc.buffer_callback = [](const Node&) { return false; };
    }
    result.byte_identical = pickle::encode(d.root, enc).bytes == m.frames[0].view();
  } catch (const pickle::PickleError& e) {
    throw PromoteError(std::string("the reference cannot decode the ") + result.source +
                       " pickle: " + e.what());
  }

  std::string variant = "p" + std::to_string(test.protocol) + (test.out_of_band ? "oob" : "");
  std::string stem = result.name + "." + variant;
  nlohmann::ordered_json v = {{"protocol", test.protocol},
                              {"out_of_band", test.out_of_band},
                              {"pickle", stem + ".pickle"},
                              {"json", stem + ".json"},
                              {"byte_identical", result.byte_identical}};
  if (!result.byte_identical) {
    v["not_identical_reason"] =
        "promoted from a failing case: the reference encoder does not write these " +
        result.source + " bytes for the decoded value";
  }
  std::filesystem::create_directories(golden_dir);
  auto put = [&](const std::string& file, std::string_view bytes) {
    write_file(golden_dir / file, bytes);
    result.files.push_back(golden_dir / file);
  };
  put(stem + ".pickle", m.frames[0].view());
  put(stem + ".json", json_text + "\n");
  if (m.frames.size() > 1) {
    nlohmann::ordered_json buffers = nlohmann::ordered_json::array();
    for (std::size_t i = 1; i < m.frames.size(); ++i) {
      std::string file = stem + ".buf" + std::to_string(i - 1);
      put(file, m.frames[i].view());
      buffers.push_back({{"file", file}, {"readonly", views[i - 1].readonly}});
    }
    v["buffers"] = std::move(buffers);
  }
  std::string description = "promoted from " + case_file.filename().string() + ": " +
                            record.subject + " " + record.property + " " + record.fingerprint;
  nlohmann::ordered_json entry;
  entry["name"] = result.name;
  entry["description"] = description;
  entry["protocols"] = nlohmann::ordered_json::array({variant});
  entry["variants"] = nlohmann::ordered_json::array({v});
  manifest["cases"].push_back(std::move(entry));
  put("MANIFEST.json", layout(manifest, 0, kManifestWidth) + "\n");
  return result;
}

}  // namespace serialcheck
