#include "harness/gen/stream_files.h"

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <system_error>

namespace serialcheck::gen {
namespace {

#ifdef SERIALCHECK_CORPUS_DIR
const std::filesystem::path kCorpus = SERIALCHECK_CORPUS_DIR;
#else
const std::filesystem::path kCorpus;
#endif

std::vector<std::filesystem::path>& added() {
  static std::vector<std::filesystem::path> dirs;
  return dirs;
}

// MANIFEST.tsv: a header "# name\t...\twhat" and a line per file, named
// without its extension. Returns name -> "what" (with the offset, where the
// manifest has one).
std::map<std::string, std::string> manifest(const std::filesystem::path& dir) {
  std::map<std::string, std::string> out;
  std::ifstream in(dir / "MANIFEST.tsv");
  std::string line;
  std::vector<std::string> columns;
  auto split = [](const std::string& s) {
    std::vector<std::string> parts;
    std::stringstream ss(s);
    std::string part;
    while (std::getline(ss, part, '\t')) parts.push_back(part);
    return parts;
  };
  while (std::getline(in, line)) {
    if (line.rfind("# ", 0) == 0) {
      columns = split(line.substr(2));
      continue;
    }
    const std::vector<std::string> cells = split(line);
    if (cells.empty() || columns.empty()) continue;
    std::string what, offset;
    for (std::size_t i = 1; i < cells.size() && i < columns.size(); ++i) {
      if (columns[i] == "what") what = cells[i];
      if (columns[i] == "offset") offset = cells[i];
    }
    if (!offset.empty() && offset != "-") what += " (byte " + offset + ")";
    out[cells[0]] = what;
  }
  return out;
}

}  // namespace

std::vector<StreamFile> read_stream_files(const std::vector<std::filesystem::path>& dirs) {
  std::vector<StreamFile> out;
  for (const std::filesystem::path& dir : dirs) {
    std::error_code ec;
    if (!std::filesystem::is_directory(dir, ec)) continue;
    std::vector<std::filesystem::path> files;
    for (const auto& entry : std::filesystem::directory_iterator(dir, ec)) {
      if (entry.path().extension() != ".pickle" || !entry.is_regular_file(ec)) continue;
      if (entry.file_size(ec) > kLargestStreamFile || ec) continue;
      files.push_back(entry.path());
    }
    std::sort(files.begin(), files.end());
    const std::map<std::string, std::string> notes = manifest(dir);
    const std::string dir_name =
        dir.filename().empty() ? dir.parent_path().filename().string() : dir.filename().string();
    for (const std::filesystem::path& file : files) {
      std::ifstream in(file, std::ios::binary);
      std::stringstream bytes;
      bytes << in.rdbuf();
      if (!in && !in.eof()) continue;
      StreamFile f;
      f.name = dir_name + "/" + file.filename().string();
      auto note = notes.find(file.stem().string());
      if (note != notes.end()) f.what = note->second;
      f.bytes = bytes.str();
      f.protocol = declared_protocol(f.bytes);
      out.push_back(std::move(f));
    }
  }
  return out;
}

std::vector<std::filesystem::path> stream_dirs() {
  std::vector<std::filesystem::path> dirs;
  if (!kCorpus.empty()) {
    dirs.push_back(kCorpus / "malformed");
    dirs.push_back(kCorpus / "failing" / "fuzz");
  }
  dirs.insert(dirs.end(), added().begin(), added().end());
  return dirs;
}

void add_stream_dir(const std::filesystem::path& dir) {
  std::error_code ec;
  if (!std::filesystem::is_directory(dir, ec))
    throw std::invalid_argument("not a directory of malformed streams: " + dir.string());
  added().push_back(dir);
}

const std::vector<StreamFile>& stream_files() {
  static const std::vector<StreamFile> files = read_stream_files(stream_dirs());
  return files;
}

int declared_protocol(const std::string& bytes) {
  if (bytes.size() < 2 || static_cast<unsigned char>(bytes[0]) != 0x80) return 0;
  return std::min(static_cast<int>(static_cast<unsigned char>(bytes[1])), 5);
}

}  // namespace serialcheck::gen
