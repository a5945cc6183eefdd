#include "harness/campaign/findings_db.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/file.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "harness/corpus/corpus.h"

namespace serialcheck::campaign {
namespace fs = std::filesystem;

namespace {

// flock(2) on DIR/lock for as long as it lives.
class Lock {
 public:
  explicit Lock(const fs::path& dir) {
    const fs::path path = dir / "lock";
    fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd_ < 0) {
      throw DatabaseError(fmt::format("{}: cannot open: {}", path.string(), std::strerror(errno)));
    }
    while (::flock(fd_, LOCK_EX) != 0) {
      if (errno != EINTR) {
        int e = errno;
        ::close(fd_);
        throw DatabaseError(fmt::format("{}: cannot lock: {}", path.string(), std::strerror(e)));
      }
    }
  }
  ~Lock() { ::close(fd_); }  // closing releases the lock
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;

 private:
  int fd_ = -1;
};

std::string read_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

// Writes `text` to a temporary file beside `path`, then renames it over
// `path`: a reader sees the old file or the new one, never half of one.
void write_whole(const fs::path& path, const std::string& text) {
  const fs::path tmp = path.string() + fmt::format(".tmp{}", ::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    out.flush();
    if (!out) throw DatabaseError(tmp.string() + ": cannot write");
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec)
    throw DatabaseError(
        fmt::format("{}: cannot rename into place: {}", path.string(), ec.message()));
}

std::size_t case_size(const CaseRecord& r) {
  return case_to_json(r.test)["value"]
      .dump(-1, ' ', false, nlohmann::json::error_handler_t::replace)
      .size();
}

}  // namespace

std::string utc_now() {
  std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return buf;
}

std::string finding_id(std::string_view subject, std::string_view property,
                       std::string_view fingerprint) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a, as corpus.h's case hash
  auto feed = [&h](std::string_view s) {
    for (unsigned char c : s) {
      h ^= c;
      h *= 1099511628211ull;
    }
    h ^= 0xff;  // a separator no UTF-8 text holds
    h *= 1099511628211ull;
  };
  feed(subject);
  feed(property);
  feed(fingerprint);
  return fmt::format("{:012x}", h & 0xffffffffffffull);
}

bool Finding::listed(const std::vector<KnownFailure>& known) const {
  return std::any_of(known.begin(), known.end(), [&](const KnownFailure& k) {
    return k.fingerprint == fingerprint && k.matches(subject, property);
  });
}

std::string Finding::status(const std::vector<KnownFailure>& known) const {
  if (gone) return "gone";
  return listed(known) ? "known" : "new";
}

std::string CellKey::text() const {
  return fmt::format("{}\t{}\t{}\t{}", subject, property, cases, max_size);
}

nlohmann::json finding_to_json(const Finding& f) {
  return {{"format", kFindingFormat},
          {"id", f.id},
          {"subject", f.subject},
          {"property", f.property},
          {"fingerprint", f.fingerprint},
          {"message", f.message},
          {"first_seed", f.first_seed},
          {"first_seen", f.first_seen},
          {"last_seen", f.last_seen},
          {"hits", f.hits},
          {"seeds", f.seeds},
          {"versions", f.versions},
          {"case_file", f.case_file},
          {"case_size", f.case_size},
          {"gone", f.gone},
          {"checked", f.checked}};
}

Finding finding_from_json(const nlohmann::json& j) {
  try {
    if (!j.is_object()) throw DatabaseError("not a JSON object");
    if (j.value("format", "") != kFindingFormat) {
      throw DatabaseError(fmt::format("\"format\" is not \"{}\"", kFindingFormat));
    }
    Finding f;
    f.subject = j.at("subject").get<std::string>();
    f.property = j.at("property").get<std::string>();
    f.fingerprint = j.at("fingerprint").get<std::string>();
    f.id = finding_id(f.subject, f.property, f.fingerprint);
    if (j.value("id", "") != f.id)
      throw DatabaseError("\"id\" is not its subject, property and fingerprint's");
    f.message = j.value("message", "");
    f.first_seed = j.at("first_seed").get<std::uint64_t>();
    f.first_seen = j.value("first_seen", "");
    f.last_seen = j.value("last_seen", "");
    f.hits = j.at("hits").get<int>();
    f.seeds = j.value("seeds", std::vector<std::uint64_t>{});
    f.versions = j.value("versions", std::vector<std::string>{});
    f.case_file = j.value("case_file", "");
    f.case_size = j.value("case_size", std::size_t{0});
    f.gone = j.value("gone", false);
    f.checked = j.value("checked", "");
    return f;
  } catch (const nlohmann::json::exception& e) {
    throw DatabaseError(e.what());
  }
}

FindingsDb::FindingsDb(fs::path dir) : dir_(std::move(dir)) {
  std::error_code ec;
  if (fs::exists(dir_, ec) && !fs::is_directory(dir_, ec)) {
    throw DatabaseError(dir_.string() + ": not a directory");
  }
  for (const char* sub : {"findings", "cases", "seeds"}) {
    fs::create_directories(dir_ / sub, ec);
    if (ec)
      throw DatabaseError(
          fmt::format("{}: cannot create: {}", (dir_ / sub).string(), ec.message()));
  }
}

fs::path FindingsDb::finding_path(const std::string& id) const {
  return dir_ / "findings" / (id + ".json");
}

std::optional<Finding> FindingsDb::read_finding(const fs::path& path) const {
  if (!fs::exists(path)) return std::nullopt;
  nlohmann::json j = nlohmann::json::parse(read_text(path), nullptr, false);
  if (j.is_discarded()) throw DatabaseError(path.string() + ": not JSON");
  try {
    return finding_from_json(j);
  } catch (const DatabaseError& e) {
    throw DatabaseError(path.string() + ": " + e.what());
  }
}

void FindingsDb::write_finding(const Finding& f) const {
  write_whole(finding_path(f.id), finding_to_json(f).dump(2) + "\n");
}

MergeResult FindingsDb::merge(std::uint64_t seed, const std::vector<CellKey>& cells,
                              const std::vector<CellFinding>& failures) {
  Lock lock(dir_);
  MergeResult result;
  const fs::path seeds_file = dir_ / "seeds" / fmt::format("{}.tsv", seed);
  std::set<std::string> merged;
  {
    std::istringstream in(read_text(seeds_file));
    for (std::string line; std::getline(in, line);) merged.insert(line);
  }
  std::set<std::string> fresh;  // keys of cells this merge counts
  std::string append;
  for (const CellKey& c : cells) {
    std::string key = c.text();
    if (merged.count(key) != 0) {
      ++result.cells_repeated;
      continue;
    }
    if (!fresh.insert(key).second) continue;
    append += key + "\n";
    ++result.cells_merged;
  }
  const std::string now = utc_now();
  for (const CellFinding& cf : failures) {
    // A failure counts once, with the cell it failed in; a cell merged
    // before (or not among `cells`) adds nothing.
    auto it = std::find_if(cells.begin(), cells.end(), [&](const CellKey& c) {
      return c.subject == cf.subject && c.property == cf.property;
    });
    if (it == cells.end() || fresh.count(it->text()) == 0) continue;
    const std::string id = finding_id(cf.subject, cf.property, cf.fingerprint);
    std::optional<Finding> old = read_finding(finding_path(id));
    Finding f;
    if (old) {
      f = *old;
    } else {
      f.id = id;
      f.subject = cf.subject;
      f.property = cf.property;
      f.fingerprint = cf.fingerprint;
      f.message = cf.message;
      f.first_seed = seed;
      f.first_seen = now;
    }
    ++f.hits;
    f.first_seed = std::min(f.first_seed, seed);
    f.last_seen = now;
    f.gone = false;  // it failed again
    if (f.seeds.size() < Finding::kMaxSeeds &&
        std::find(f.seeds.begin(), f.seeds.end(), seed) == f.seeds.end()) {
      f.seeds.push_back(seed);
    }
    if (!cf.version.empty() &&
        std::find(f.versions.begin(), f.versions.end(), cf.version) == f.versions.end()) {
      f.versions.push_back(cf.version);
      std::sort(f.versions.begin(), f.versions.end());
    }
    if (cf.record) {
      const std::size_t size = case_size(*cf.record);
      if (f.case_file.empty() || size < f.case_size) {
        const fs::path saved = save_case(dir_ / "cases", *cf.record);
        const std::string rel = fs::relative(saved, dir_).string();
        if (!f.case_file.empty() && f.case_file != rel) {
          std::error_code ec;
          fs::remove(dir_ / f.case_file, ec);
        }
        f.case_file = rel;
        f.case_size = size;
        f.message = cf.message;
      }
    }
    write_finding(f);
    if (!old) result.created.push_back(f);
  }
  if (!append.empty()) {
    // The seed's keys are written last: a merge cut short before here is
    // merged again whole next time, and the findings it wrote stand.
    write_whole(seeds_file, read_text(seeds_file) + append);
  }
  return result;
}

std::vector<Finding> FindingsDb::findings(std::vector<std::string>* problems) const {
  std::vector<Finding> out;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir_ / "findings", ec);
       !ec && it != fs::directory_iterator(); it.increment(ec)) {
    if (it->path().extension() != ".json") continue;
    try {
      if (auto f = read_finding(it->path())) out.push_back(std::move(*f));
    } catch (const DatabaseError& e) {
      if (problems != nullptr) problems->push_back(e.what());
    }
  }
  std::sort(out.begin(), out.end(), [](const Finding& a, const Finding& b) {
    return std::tie(a.subject, a.property, a.fingerprint) <
           std::tie(b.subject, b.property, b.fingerprint);
  });
  return out;
}

Finding FindingsDb::find(std::string_view prefix) const {
  if (prefix.size() < 4) {
    throw DatabaseError(fmt::format("\"{}\": give at least 4 digits of a finding's id", prefix));
  }
  std::vector<Finding> hits;
  for (Finding& f : findings()) {
    if (f.id.rfind(prefix, 0) == 0) hits.push_back(std::move(f));
  }
  if (hits.empty()) {
    throw DatabaseError(
        fmt::format("no finding's id starts with \"{}\" in {}", prefix, dir_.string()));
  }
  if (hits.size() > 1) {
    throw DatabaseError(
        fmt::format("{} findings' ids start with \"{}\"; give more digits", hits.size(), prefix));
  }
  return hits.front();
}

void FindingsDb::set_checked(const std::string& id, bool still_fails) {
  Lock lock(dir_);
  std::optional<Finding> f = read_finding(finding_path(id));
  if (!f) throw DatabaseError(fmt::format("no finding {} in {}", id, dir_.string()));
  f->gone = !still_fails;
  f->checked = utc_now();
  write_finding(*f);
}

FindingsDb::Totals FindingsDb::totals() const {
  Totals t;
  std::error_code ec;
  for (auto it = fs::directory_iterator(dir_ / "seeds", ec); !ec && it != fs::directory_iterator();
       it.increment(ec)) {
    if (it->path().extension() != ".tsv") continue;
    ++t.seeds;
    const std::string text = read_text(it->path());
    t.cells += static_cast<int>(std::count(text.begin(), text.end(), '\n'));
  }
  return t;
}

}  // namespace serialcheck::campaign
