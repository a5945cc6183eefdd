#include "harness/corpus/corpus.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <iterator>
#include <set>
#include <stdexcept>

namespace serialcheck {

std::string fingerprint_slug(std::string_view fingerprint) {
  std::string out;
  for (char c : fingerprint) {
    unsigned char u = static_cast<unsigned char>(c);
    if (std::isalnum(u)) {
      out.push_back(static_cast<char>(std::tolower(u)));
    } else if (!out.empty() && out.back() != '-') {
      out.push_back('-');
    }
  }
  // File names stay short; the file records the whole fingerprint.
  if (out.size() > 96) out.resize(96);
  while (!out.empty() && out.back() == '-') out.pop_back();
  return out.empty() ? "failure" : out;
}

std::string case_hash(const CaseRecord& record) {
  std::string text =
      case_to_json(record.test).dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  text += "\n" + record.subject + "\n" + record.property;
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return fmt::format("{:08x}", static_cast<std::uint32_t>(h ^ (h >> 32)));
}

std::filesystem::path case_path(const std::filesystem::path& dir, const CaseRecord& record) {
  return dir / record.subject / record.property /
         (fingerprint_slug(record.fingerprint) + "-" + case_hash(record) + ".json");
}

std::optional<std::filesystem::path> saved_case(const std::filesystem::path& dir,
                                                const CaseRecord& record) {
  auto folder = case_path(dir, record).parent_path();
  std::string prefix = fingerprint_slug(record.fingerprint) + "-";
  std::error_code ec;
  std::optional<std::filesystem::path> found;
  for (auto it = std::filesystem::directory_iterator(folder, ec);
       !ec && it != std::filesystem::directory_iterator(); it.increment(ec)) {
    std::string name = it->path().filename().string();
    // The slug is followed by exactly the 8-digit hash and ".json".
    if (name.size() == prefix.size() + 13 && name.rfind(prefix, 0) == 0 &&
        it->path().extension() == ".json" && (!found || it->path() < *found)) {
      found = it->path();
    }
  }
  return found;
}

std::string relative_to_directory(std::string text, const std::filesystem::path& directory) {
  std::string prefix = directory.lexically_normal().string();
  if (prefix.empty() || prefix == "/") return text;
  if (prefix.back() != '/') prefix.push_back('/');
  for (std::size_t at = text.find(prefix); at != std::string::npos; at = text.find(prefix, at)) {
    text.erase(at, prefix.size());
  }
  return text;
}

std::filesystem::path save_case(const std::filesystem::path& dir, const CaseRecord& record) {
  auto path = case_path(dir, record);
  // A testee's traceback names its files by absolute path; a case committed
  // to a repository names them relative to where the run started, so the
  // file is the same on every machine.
  std::error_code cwd_error;
  const std::filesystem::path cwd = std::filesystem::current_path(cwd_error);
  CaseRecord written = record;
  if (!cwd_error) {
    written.message = relative_to_directory(std::move(written.message), cwd);
    written.explanation = relative_to_directory(std::move(written.explanation), cwd);
  }
  std::error_code ec;
  std::filesystem::create_directories(path.parent_path(), ec);
  if (ec) throw std::runtime_error("cannot create " + path.parent_path().string());
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << record_to_json(written).dump(2, ' ', false, nlohmann::json::error_handler_t::replace)
      << "\n";
  out.close();
  if (!out) throw std::runtime_error("cannot write " + path.string());
  return path;
}

CaseRecord load_case(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot read " + path.string() + ": " + std::strerror(errno));
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  try {
    return record_from_json(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

std::vector<std::filesystem::path> list_cases(const std::vector<std::filesystem::path>& paths) {
  std::vector<std::filesystem::path> out;
  std::set<std::filesystem::path> seen;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      std::vector<std::filesystem::path> found;
      for (auto it = std::filesystem::recursive_directory_iterator(p, ec);
           !ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec)) {
        if (it->is_regular_file() && it->path().extension() == ".json") found.push_back(it->path());
      }
      std::sort(found.begin(), found.end());
      for (auto& f : found) {
        if (seen.insert(f.lexically_normal()).second) out.push_back(f);
      }
    } else if (std::filesystem::exists(p, ec)) {
      if (seen.insert(p.lexically_normal()).second) out.push_back(p);
    } else {
      throw std::runtime_error("no such file or directory: " + p.string());
    }
  }
  return out;
}

}  // namespace serialcheck
