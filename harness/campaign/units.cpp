#include "harness/campaign/units.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <deque>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <thread>

namespace serialcheck::campaign {
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

std::string read_file(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

std::string replace_unit_dir(std::string arg, const std::string& dir) {
  for (std::size_t at = arg.find(kUnitDir); at != std::string::npos;
       at = arg.find(kUnitDir, at + dir.size())) {
    arg.replace(at, kUnitDir.size(), dir);
  }
  return arg;
}

std::string describe_status(int wait_status) {
  if (WIFSIGNALED(wait_status)) {
    const char* name = sigabbrev_np(WTERMSIG(wait_status));
    return fmt::format("killed by SIG{}",
                       name != nullptr ? name : std::to_string(WTERMSIG(wait_status)));
  }
  return fmt::format("exit status {}", WEXITSTATUS(wait_status));
}

}  // namespace

std::string file_tail(const fs::path& path, int lines) {
  std::string text = read_file(path);
  std::size_t at = text.size();
  if (at > 0 && text.back() == '\n') --at;
  for (int n = 0; n < lines && at != std::string::npos && at > 0; ++n) {
    at = text.rfind('\n', at - 1);
  }
  if (at == std::string::npos) at = 0;
  std::string tail = text.substr(at == 0 ? 0 : at + 1);
  if (tail.size() > 4000) tail = tail.substr(tail.size() - 4000);
  return tail;
}

json unit_document(const std::string& id, const fs::path& dir, int status, double seconds,
                   const std::string& why) {
  json doc = {{"id", id},          {"status", status},        {"seconds", seconds},
              {"report", nullptr}, {"cases", json::object()}, {"why", why}};
  const fs::path report = dir / "report" / "conformance.json";
  if (fs::exists(report)) {
    json r = json::parse(read_file(report), nullptr, false);
    if (!r.is_discarded()) {
      for (const json& cell : r.value("cells", json::array())) {
        const std::string file = cell.value("case_file", "");
        if (file.empty() || !fs::exists(file)) continue;
        json c = json::parse(read_file(file), nullptr, false);
        if (!c.is_discarded()) doc["cases"][file] = std::move(c);
      }
      doc["report"] = std::move(r);
    }
  }
  if (doc["report"].is_null()) doc["log_tail"] = file_tail(dir / "log.txt");
  return doc;
}

UnitOutcome read_unit_document(const json& doc) {
  UnitOutcome u;
  try {
    u.id = doc.value("id", "");
    u.seconds = doc.value("seconds", 0.0);
    const json& report = doc.at("report");
    if (!report.is_object()) {
      std::string why = doc.value("why", "");
      if (why.empty()) why = fmt::format("exit status {}", doc.value("status", -1));
      const std::string tail = doc.value("log_tail", "");
      u.why = tail.empty() ? why : why + "; it printed:\n" + tail;
      return u;
    }
    u.seed = report.at("seed").get<std::uint64_t>();
    const int cases = report.at("cases").get<int>();
    const int max_size = report.at("max_size").get<int>();
    const json& versions = report.value("python_versions", json::object());
    const json& saved = doc.value("cases", json::object());
    for (const json& cell : report.at("cells")) {
      const std::string verdict = cell.at("verdict").get<std::string>();
      if (verdict == "skip") continue;
      CellKey key;
      key.seed = u.seed;
      key.subject = cell.at("subject").get<std::string>();
      key.property = cell.at("property").get<std::string>();
      key.cases = cases;
      key.max_size = max_size;
      u.cases += cell.value("cases", 0);
      if (verdict == "fail" || verdict == "expected-fail") {
        CellFinding f;
        f.subject = key.subject;
        f.property = key.property;
        f.fingerprint = cell.value("fingerprint", "");
        f.message = cell.value("message", "");
        if (versions.contains(f.subject)) {
          f.version = versions[f.subject].value("version", "");
        }
        const std::string file = cell.value("case_file", "");
        if (!file.empty() && saved.contains(file)) {
          try {
            f.record = record_from_json(saved.at(file));
          } catch (const std::exception&) {
            // The finding stands without a case; the next hit may bring one.
          }
        }
        // An expected-fail cell that passed this time carries no
        // fingerprint: nothing was found.
        if (!f.fingerprint.empty()) u.failures.push_back(std::move(f));
      }
      // The listed failures the cell looked past: hits, without a case.
      const json passed_over = cell.value("passed_over", json::object());
      for (const auto& [fingerprint, count] : passed_over.items()) {
        if (!count.is_number_integer() || count.get<int>() <= 0) continue;
        CellFinding f;
        f.subject = key.subject;
        f.property = key.property;
        f.fingerprint = fingerprint;
        f.message = fmt::format("looked past as listed ({} of the cell's cases)", count.get<int>());
        if (versions.contains(f.subject)) f.version = versions[f.subject].value("version", "");
        u.failures.push_back(std::move(f));
      }
      u.cells.push_back(std::move(key));
    }
    u.ok = true;
  } catch (const json::exception& e) {
    u.ok = false;
    u.why = fmt::format("the unit's report cannot be read: {}", e.what());
  }
  return u;
}

// ---- local --------------------------------------------------------------------

LocalExecutor::LocalExecutor(int jobs, fs::path work_root, double unit_timeout_s)
    : jobs_(std::max(1, jobs)), work_root_(std::move(work_root)), unit_timeout_s_(unit_timeout_s) {
  fs::create_directories(work_root_);
}

LocalExecutor::~LocalExecutor() {
  stop();
  std::error_code ec;
  fs::remove_all(work_root_, ec);
}

void LocalExecutor::start(const UnitSpec& unit) {
  Running r;
  r.id = unit.id;
  r.dir = work_root_ / fmt::format("unit-{}", ++started_);
  fs::remove_all(r.dir);
  fs::create_directories(r.dir);
  for (const auto& [name, text] : unit.files) {
    std::ofstream out(r.dir / name, std::ios::binary);
    out << text;
    if (!out.flush()) {
      throw std::runtime_error(fmt::format("cannot write {}", (r.dir / name).string()));
    }
  }
  std::vector<std::string> args;
  for (const auto& a : unit.argv) args.push_back(replace_unit_dir(a, r.dir.string()));
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  const std::string log = (r.dir / "log.txt").string();
  r.started = std::chrono::steady_clock::now();
  r.pid = ::fork();
  if (r.pid < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (r.pid == 0) {
    ::setpgid(0, 0);
    int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    int in = ::open("/dev/null", O_RDONLY);
    if (out >= 0) {
      ::dup2(out, 1);
      ::dup2(out, 2);
    }
    if (in >= 0) ::dup2(in, 0);
    ::execv(argv[0], argv.data());
    const std::string msg = fmt::format("cannot run {}: {}\n", argv[0], std::strerror(errno));
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::setpgid(r.pid, r.pid);
  running_.push_back(std::move(r));
}

std::vector<json> LocalExecutor::poll(double seconds) {
  std::vector<json> done;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  while (true) {
    const auto now = std::chrono::steady_clock::now();
    for (auto it = running_.begin(); it != running_.end();) {
      int status = 0;
      const pid_t got = ::waitpid(it->pid, &status, WNOHANG);
      const double elapsed = std::chrono::duration<double>(now - it->started).count();
      if (got == it->pid) {
        ::kill(-it->pid, SIGKILL);  // what the run left behind, if anything
        std::string why;
        if (it->killed) {
          why =
              fmt::format("the unit ran past its {:.0f}-s timeout and was killed", unit_timeout_s_);
        } else if (!(WIFEXITED(status) && WEXITSTATUS(status) <= 1)) {
          why = "the run ended with " + describe_status(status);
        }
        int code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
        json doc = unit_document(it->id, it->dir, code, elapsed, why);
        if (!why.empty() && doc["report"].is_object()) doc["why"] = why;
        done.push_back(std::move(doc));
        std::error_code ec;
        fs::remove_all(it->dir, ec);
        it = running_.erase(it);
        continue;
      }
      if (!it->killed && unit_timeout_s_ > 0 && elapsed > unit_timeout_s_) {
        ::kill(-it->pid, SIGKILL);
        it->killed = true;
      }
      ++it;
    }
    if (!done.empty() || running_.empty() || std::chrono::steady_clock::now() >= deadline) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  return done;
}

void LocalExecutor::stop() {
  for (auto& r : running_) {
    ::kill(-r.pid, SIGKILL);
    int status = 0;
    ::waitpid(r.pid, &status, 0);
    std::error_code ec;
    fs::remove_all(r.dir, ec);
  }
  running_.clear();
}

// ---- dask ---------------------------------------------------------------------

DaskExecutor::DaskExecutor(std::vector<std::string> driver_argv, double unit_timeout_s) {
  driver_argv.push_back("--unit-timeout");
  driver_argv.push_back(fmt::format("{}", unit_timeout_s));
  int in_pipe[2];
  int out_pipe[2];
  if (::pipe2(in_pipe, O_CLOEXEC) != 0 || ::pipe2(out_pipe, O_CLOEXEC) != 0) {
    throw std::runtime_error(std::string("pipe: ") + std::strerror(errno));
  }
  stderr_path_ =
      (fs::temp_directory_path() / fmt::format("serialcheck-dask-{}.log", ::getpid())).string();
  std::vector<char*> argv;
  for (auto& a : driver_argv) argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_ = ::fork();
  if (pid_ < 0) throw std::runtime_error(std::string("fork: ") + std::strerror(errno));
  if (pid_ == 0) {
    ::setpgid(0, 0);
    ::dup2(in_pipe[0], 0);
    ::dup2(out_pipe[1], 1);
    int err = ::open(stderr_path_.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (err >= 0) ::dup2(err, 2);
    ::execv(argv[0], argv.data());
    const std::string msg = fmt::format("cannot run {}: {}\n", argv[0], std::strerror(errno));
    (void)!::write(2, msg.data(), msg.size());
    ::_exit(127);
  }
  ::close(in_pipe[0]);
  ::close(out_pipe[1]);
  to_driver_ = in_pipe[1];
  from_driver_ = out_pipe[0];
  ::signal(SIGPIPE, SIG_IGN);
  // The hello: how many units the cluster runs at once. A LocalCluster
  // takes seconds to start; a scheduler that does not answer, the driver's
  // own timeout.
  std::vector<json> lines;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(180);
  while (lines.empty() && std::chrono::steady_clock::now() < deadline) {
    if (!read_some(1.0, lines)) break;
  }
  if (lines.empty() || lines.front().value("t", "") != "hello") {
    stop();
    throw std::runtime_error("the dask driver did not start: " + file_tail(stderr_path_, 8));
  }
  slots_ = std::max(1, lines.front().value("slots", 1));
  cluster_ = lines.front().value("cluster", "");
}

DaskExecutor::~DaskExecutor() {
  stop();
  std::error_code ec;
  fs::remove(stderr_path_, ec);
}

bool DaskExecutor::has_room() const {
  return in_flight_ < 2 * slots_;
}

void DaskExecutor::start(const UnitSpec& unit) {
  json line = {{"t", "unit"},
               {"id", unit.id},
               {"argv", unit.argv},
               {"unit_dir", kUnitDir},
               {"files", unit.files}};
  std::string text = line.dump() + "\n";
  std::size_t off = 0;
  while (off < text.size()) {
    ssize_t n = ::write(to_driver_, text.data() + off, text.size() - off);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0)
      throw std::runtime_error("the dask driver stopped reading: " + file_tail(stderr_path_, 8));
    off += static_cast<std::size_t>(n);
  }
  ++in_flight_;
}

// Reads what the driver wrote within `seconds`; false when it has exited.
bool DaskExecutor::read_some(double seconds, std::vector<json>& out) {
  pollfd p{from_driver_, POLLIN, 0};
  int rc = ::poll(&p, 1, static_cast<int>(seconds * 1000));
  if (rc < 0 && errno == EINTR) return true;
  if (rc <= 0) return true;
  char buf[65536];
  ssize_t n = ::read(from_driver_, buf, sizeof buf);
  if (n < 0 && errno == EINTR) return true;
  if (n <= 0) return false;
  buffer_.append(buf, static_cast<std::size_t>(n));
  std::size_t start = 0;
  for (std::size_t nl = buffer_.find('\n'); nl != std::string::npos;
       nl = buffer_.find('\n', start)) {
    json j = json::parse(buffer_.substr(start, nl - start), nullptr, false);
    if (!j.is_discarded()) out.push_back(std::move(j));
    start = nl + 1;
  }
  buffer_.erase(0, start);
  return true;
}

std::vector<json> DaskExecutor::poll(double seconds) {
  std::vector<json> lines;
  std::vector<json> docs;
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
  do {
    if (!read_some(
            std::max(
                0.0,
                std::chrono::duration<double>(deadline - std::chrono::steady_clock::now()).count()),
            lines)) {
      throw std::runtime_error("the dask driver exited: " + file_tail(stderr_path_, 8));
    }
    for (json& l : lines) {
      if (l.value("t", "") == "result") {
        --in_flight_;
        docs.push_back(std::move(l["doc"]));
      }
    }
    lines.clear();
  } while (docs.empty() && in_flight_ > 0 && std::chrono::steady_clock::now() < deadline);
  return docs;
}

void DaskExecutor::stop() {
  if (pid_ <= 0) return;
  if (to_driver_ >= 0) ::close(to_driver_);
  to_driver_ = -1;
  ::kill(-pid_, SIGTERM);
  // The driver closes its client and cluster on SIGTERM; a few seconds, then
  // it is killed.
  for (int i = 0; i < 100; ++i) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  if (pid_ > 0) {
    ::kill(-pid_, SIGKILL);
    int status = 0;
    ::waitpid(pid_, &status, 0);
    pid_ = -1;
  }
  if (from_driver_ >= 0) ::close(from_driver_);
  from_driver_ = -1;
  in_flight_ = 0;
}

}  // namespace serialcheck::campaign
