// The runner's side of the testee protocol (docs/testee-protocol.md): the
// testee process, its pipes, and the requests the Subject calls become.
#include "harness/subjects/external_subject.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <poll.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <set>
#include <stdexcept>
#include <thread>
#include <utility>

#include "harness/subjects/phase_clock.h"
#include "reference/value/json.h"

extern char** environ;

namespace serialcheck {
namespace {

constexpr int kProtocolVersion = 1;
constexpr const char* kProtocolError = "testee-protocol";

using Clock = std::chrono::steady_clock;

std::string seconds_text(double s) {
  return fmt::format("{:g}s", s);
}

std::string signal_text(int sig) {
  if (const char* abbrev = sigabbrev_np(sig)) return std::string("SIG") + abbrev;
  return "signal " + std::to_string(sig);
}

// How a process ended, as a wait status says it. `sh -c` reports a command
// killed by a signal as 128 + the signal when it did not exec the command.
std::string status_text(int status) {
  if (WIFSIGNALED(status)) return "was killed by " + signal_text(WTERMSIG(status));
  if (WIFEXITED(status)) {
    const int code = WEXITSTATUS(status);
    std::string text = "exited with status " + std::to_string(code);
    if (code > 128 && code < 128 + 65) text += " (killed by " + signal_text(code - 128) + "?)";
    return text;
  }
  return "ended with wait status " + std::to_string(status);
}

// The message of a SubjectError without its "kind: " prefix.
std::string message_of(const SubjectError& e) {
  return std::string(e.what()).substr(e.kind().size() + 2);
}

std::string last_line(std::string_view text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == '\r' || text.back() == ' ')) {
    text.remove_suffix(1);
  }
  const auto nl = text.find_last_of('\n');
  if (nl != std::string_view::npos) text.remove_prefix(nl + 1);
  return std::string(text.substr(0, 300));
}

struct Deadline {
  Clock::time_point at;
  explicit Deadline(double seconds)
      : at(Clock::now() + std::chrono::duration_cast<Clock::duration>(
                              std::chrono::duration<double>(std::max(seconds, 0.0)))) {}
  // Milliseconds left, rounded up; 0 once passed.
  int poll_ms() const {
    const auto left = at - Clock::now();
    if (left <= Clock::duration::zero()) return 0;
    const auto ms = std::chrono::ceil<std::chrono::milliseconds>(left).count();
    return static_cast<int>(std::min<long long>(ms, 1 << 30));
  }
  bool passed() const { return Clock::now() >= at; }
};

// What went wrong talking to the testee; turned into a SubjectError (with
// the operation's name and the standard error) by request().
struct Failure {
  enum Kind { Timeout, Crash, Protocol } kind;
  std::string message;  // without the operation's name
};

// Blocks SIGPIPE in this thread while writing to the testee, so a testee
// that closed its input gives EPIPE instead of killing us; a SIGPIPE that
// the writes raised is consumed before the old mask comes back.
class SigpipeBlock {
 public:
  SigpipeBlock() {
    sigemptyset(&pipe_);
    sigaddset(&pipe_, SIGPIPE);
    sigset_t pending;
    sigpending(&pending);
    was_pending_ = sigismember(&pending, SIGPIPE) == 1;
    pthread_sigmask(SIG_BLOCK, &pipe_, &old_);
  }
  ~SigpipeBlock() {
    if (!was_pending_) {
      sigset_t pending;
      sigpending(&pending);
      if (sigismember(&pending, SIGPIPE) == 1) {
        const timespec zero{0, 0};
        while (sigtimedwait(&pipe_, nullptr, &zero) < 0 && errno == EINTR) {
        }
      }
    }
    pthread_sigmask(SIG_SETMASK, &old_, nullptr);
  }
  SigpipeBlock(const SigpipeBlock&) = delete;
  SigpipeBlock& operator=(const SigpipeBlock&) = delete;

 private:
  sigset_t pipe_{};
  sigset_t old_{};
  bool was_pending_ = false;
};

void close_fd(int& fd) {
  if (fd >= 0) ::close(fd);
  fd = -1;
}

void set_nonblocking(int fd) {
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK);
}

// Where the raw text of the top-level member "value" lies in a document that
// is known to be valid JSON: found by skipping, not parsing, so a value
// nested 100,000 deep costs no stack. npos when there is none.
std::pair<std::size_t, std::size_t> find_value_member(std::string_view doc) {
  std::size_t i = 0;
  const auto skip_ws = [&] {
    while (i < doc.size() &&
           (doc[i] == ' ' || doc[i] == '\t' || doc[i] == '\n' || doc[i] == '\r')) {
      ++i;
    }
  };
  // Past a string starting at i (a quote); returns its raw inside.
  const auto skip_string = [&] {
    const std::size_t start = ++i;
    while (i < doc.size() && doc[i] != '"') i += doc[i] == '\\' ? 2 : 1;
    const std::string_view inside = doc.substr(start, i - start);
    ++i;
    return inside;
  };
  const auto skip_value = [&] {
    int depth = 0;
    do {
      skip_ws();
      if (i >= doc.size()) return;
      const char c = doc[i];
      if (c == '"') {
        skip_string();
      } else if (c == '{' || c == '[') {
        ++depth;
        ++i;
      } else if (c == '}' || c == ']') {
        --depth;
        ++i;
      } else if (c == ',' || c == ':') {
        ++i;
      } else {
        while (i < doc.size() && std::strchr(",]} \t\r\n", doc[i]) == nullptr) ++i;
      }
    } while (depth > 0);
  };
  std::pair<std::size_t, std::size_t> found{std::string_view::npos, 0};
  skip_ws();
  if (i >= doc.size() || doc[i] != '{') return found;
  ++i;
  for (;;) {
    skip_ws();
    if (i >= doc.size() || doc[i] != '"') return found;
    const std::string_view key = skip_string();
    skip_ws();
    ++i;  // ':'
    skip_ws();
    const std::size_t start = i;
    skip_value();
    if (key == "value") found = {start, i - start};  // the last one, as the parser keeps
    skip_ws();
    if (i >= doc.size() || doc[i] != ',') return found;
    ++i;
  }
}

const char* json_type(const nlohmann::json& j) {
  return j.type_name();
}

bool is_count(const nlohmann::json& j) {
  return j.is_number_unsigned() || (j.is_number_integer() && j.get<std::int64_t>() >= 0);
}

}  // namespace

// ---- the process --------------------------------------------------------------------

struct ExternalSubject::Process {
  const ExternalSubject* subject = nullptr;
  pid_t pid = -1;
  pid_t owner = -1;  // the process that started it (see fork in the header)
  int in = -1, out = -1, err = -1;
  bool reaped = false;
  int status = 0;
  bool greeted = false;
  bool exited_on_own = false;    // set by ended(): it exited, we did not kill it
  std::uint64_t spawn_mark = 0;  // stderr_total_ when started

  ~Process() {
    if (owner == ::getpid()) kill_and_reap();
    close_fds();
  }

  void close_fds() {
    close_fd(in);
    close_fd(out);
    close_fd(err);
  }

  // Called in a forked child: lets go of the parent's testee untouched.
  void abandon() {
    close_fds();
    owner = -1;
  }

  // Starts `/bin/sh -c command`; nullptr with `why` when it cannot run.
  static std::unique_ptr<Process> spawn(const ExternalSubject& subject, std::string* why) {
    const TesteeConfig& config = subject.config_;
    // Everything the child needs is made before fork: after it, only
    // async-signal-safe calls.
    std::vector<std::string> env;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
      const std::string_view entry(*e);
      const std::string key(entry.substr(0, entry.find('=')));
      if (config.env.count(key) == 0) env.emplace_back(entry);
    }
    for (const auto& [key, value] : config.env) {
      if (key.empty() || key.find('=') != std::string::npos ||
          key.find('\0') != std::string::npos) {
        *why = "bad environment variable name \"" + key + "\"";
        return nullptr;
      }
      env.push_back(key + "=" + value);
    }
    std::vector<char*> envp;
    for (auto& s : env) envp.push_back(s.data());
    envp.push_back(nullptr);
    std::string shell = "/bin/sh", dash_c = "-c", command = config.command;
    char* argv[] = {shell.data(), dash_c.data(), command.data(), nullptr};
    const char* cwd = config.cwd.empty() ? nullptr : config.cwd.c_str();

    int pipes[4][2] = {{-1, -1}, {-1, -1}, {-1, -1}, {-1, -1}};  // in, out, err, exec report
    const auto close_all = [&] {
      for (auto& p : pipes) {
        close_fd(p[0]);
        close_fd(p[1]);
      }
    };
    for (auto& p : pipes) {
      if (::pipe2(p, O_CLOEXEC) != 0) {
        *why = std::string("pipe: ") + std::strerror(errno);
        close_all();
        return nullptr;
      }
    }
    const pid_t pid = ::fork();
    if (pid < 0) {
      *why = std::string("fork: ") + std::strerror(errno);
      close_all();
      return nullptr;
    }
    if (pid == 0) {
      const int report = pipes[3][1];
      const auto fail = [report](char what) {
        const int e = errno;
        char buf[1 + sizeof e];
        buf[0] = what;
        std::memcpy(buf + 1, &e, sizeof e);
        [[maybe_unused]] auto n = ::write(report, buf, sizeof buf);
        ::_exit(127);
      };
      ::setpgid(0, 0);
      sigset_t none;
      sigemptyset(&none);
      ::sigprocmask(SIG_SETMASK, &none, nullptr);
      struct sigaction dfl {};
      dfl.sa_handler = SIG_DFL;
      ::sigaction(SIGPIPE, &dfl, nullptr);
      // Above 2 first, so that no end already sitting on 0-2 is overwritten.
      const int ends[3] = {::fcntl(pipes[0][0], F_DUPFD_CLOEXEC, 3),
                           ::fcntl(pipes[1][1], F_DUPFD_CLOEXEC, 3),
                           ::fcntl(pipes[2][1], F_DUPFD_CLOEXEC, 3)};
      for (int target = 0; target < 3; ++target) {
        if (ends[target] < 0 || ::dup2(ends[target], target) < 0) fail('d');
      }
      if (cwd != nullptr && ::chdir(cwd) != 0) fail('c');
      // Descriptors this process holds without close-on-exec stay out of the testee.
      ::syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */);
      ::execve(argv[0], argv, envp.data());
      fail('e');
    }
    ::setpgid(pid, pid);  // as the child does: whichever runs first
    auto process = std::make_unique<Process>();
    process->subject = &subject;
    process->pid = pid;
    process->owner = ::getpid();
    process->in = std::exchange(pipes[0][1], -1);
    process->out = std::exchange(pipes[1][0], -1);
    process->err = std::exchange(pipes[2][0], -1);
    const int report = std::exchange(pipes[3][0], -1);
    close_all();
    // The report pipe closes at exec; bytes on it say why the child gave up.
    char buf[1 + sizeof(int)] = {};
    std::size_t got = 0;
    while (got < sizeof buf) {
      const ssize_t n = ::read(report, buf + got, sizeof buf - got);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) break;
      got += static_cast<std::size_t>(n);
    }
    ::close(report);
    if (got > 0) {
      int e = 0;
      std::memcpy(&e, buf + 1, sizeof e);
      *why = buf[0] == 'c'   ? "cannot change to directory " + config.cwd + ": " + std::strerror(e)
             : buf[0] == 'e' ? std::string("cannot run /bin/sh: ") + std::strerror(e)
                             : std::string("cannot set up the testee's pipes: ") + std::strerror(e);
      return nullptr;  // the destructor reaps it
    }
    for (int fd : {process->in, process->out, process->err}) set_nonblocking(fd);
    // Bigger pipes, fewer wake-ups for large frames; the default is fine too.
    ::fcntl(process->in, F_SETPIPE_SZ, 1 << 20);
    ::fcntl(process->out, F_SETPIPE_SZ, 1 << 20);
    return process;
  }

  // Reads what standard error holds now, a bounded amount per call so that
  // a flooding testee cannot keep us here.
  void drain_stderr() {
    char buf[65536];
    for (int round = 0; round < 16 && err >= 0; ++round) {
      const ssize_t n = ::read(err, buf, sizeof buf);
      if (n > 0) {
        subject->add_stderr(std::string_view(buf, static_cast<std::size_t>(n)));
      } else if (n == 0) {
        close_fd(err);
      } else if (errno != EINTR) {
        return;  // EAGAIN: nothing more for now
      }
    }
  }

  // Waits until `fd` is ready for `events` (or has hung up), reading
  // standard error meanwhile. Throws a timeout at the deadline.
  void wait_for(int fd, short events, const Deadline& deadline) {
    for (;;) {
      pollfd fds[2] = {{fd, events, 0}, {err, POLLIN, 0}};
      const int n = ::poll(fds, err >= 0 ? 2 : 1, deadline.poll_ms());
      if (n < 0) {
        if (errno == EINTR) continue;
        throw Failure{Failure::Crash, std::string("poll: ") + std::strerror(errno)};
      }
      if (n == 0) {
        if (deadline.passed()) throw Failure{Failure::Timeout, {}};
        continue;
      }
      if (err >= 0 && fds[1].revents != 0) drain_stderr();
      if (fds[0].revents != 0) return;
    }
  }

  // Writes all pieces; throws a timeout when the testee does not take them
  // in time, a crash when it closed its input.
  void write_all(const std::vector<std::string_view>& pieces, const Deadline& deadline) {
    SigpipeBlock block;
    for (std::string_view piece : pieces) {
      while (!piece.empty()) {
        const ssize_t n = ::write(in, piece.data(), piece.size());
        if (n > 0) {
          piece.remove_prefix(static_cast<std::size_t>(n));
        } else if (n < 0 && errno == EINTR) {
          continue;
        } else if (n < 0 && errno == EAGAIN) {
          wait_for(in, POLLOUT, deadline);
        } else if (n < 0 && errno == EPIPE) {
          throw Failure{Failure::Crash, ended("closed its standard input")};
        } else {
          throw Failure{Failure::Crash,
                        std::string("writing to the testee: ") + std::strerror(errno)};
        }
      }
    }
  }

  // Reads exactly `n` bytes; false at end of output (what came is in `got`).
  bool read_exact(char* dst, std::size_t n, const Deadline& deadline, std::size_t* got) {
    *got = 0;
    while (*got < n) {
      const ssize_t r = ::read(out, dst + *got, n - *got);
      if (r > 0) {
        *got += static_cast<std::size_t>(r);
      } else if (r == 0) {
        return false;
      } else if (errno == EINTR) {
        continue;
      } else if (errno == EAGAIN) {
        wait_for(out, POLLIN, deadline);
      } else {
        throw Failure{Failure::Crash,
                      std::string("reading from the testee: ") + std::strerror(errno)};
      }
    }
    return true;
  }

  // Whether the testee has exited (not reaped yet: its process group stays
  // reserved until then). Waits up to `seconds`.
  bool wait_exit(double seconds) {
    if (reaped) return true;
    const Deadline deadline(seconds);
    for (;;) {
      siginfo_t info{};
      if (::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) == 0 &&
          info.si_pid == pid) {
        return true;
      }
      if (deadline.passed()) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
      drain_stderr();
    }
  }

  // Kills the whole process group (stragglers of an exited testee too),
  // then reaps the testee.
  void kill_and_reap() {
    if (pid <= 0 || reaped) return;
    ::kill(-pid, SIGKILL);
    ::kill(pid, SIGKILL);  // in case it left its group
    int s = 0;
    while (::waitpid(pid, &s, 0) < 0 && errno == EINTR) {
    }
    status = s;
    reaped = true;
  }

  // "the testee exited with status 1" after its output or input ended:
  // waits a second for the exit, kills it when it is still running.
  std::string ended(const char* what_if_alive) {
    exited_on_own = wait_exit(1.0);
    if (!exited_on_own) {
      kill_and_reap();
      drain_stderr();
      return std::string("the testee ") + what_if_alive;
    }
    kill_and_reap();
    drain_stderr();
    return "the testee " + status_text(status);
  }
  bool ended_cleanly() const { return reaped && WIFEXITED(status) && WEXITSTATUS(status) == 0; }
};

// A response: its document, the raw text (for "value"), and the frames in
// one buffer they share.
struct ExternalSubject::Reply {
  std::string op;
  std::uint64_t stderr_mark = 0;
  std::string text;
  nlohmann::json doc;
  std::shared_ptr<std::uint8_t[]> buffer;
  std::vector<std::pair<std::size_t, std::size_t>> frames;  // offset, size in buffer

  Frame frame(std::size_t i, bool readonly) const {
    Frame f;
    f.data = buffer.get() + frames[i].first;
    f.size = frames[i].second;
    f.readonly = readonly;
    f.owner = std::shared_ptr<const void>(buffer, buffer.get());
    return f;
  }
};

// ---- stderr -------------------------------------------------------------------------

void ExternalSubject::add_stderr(std::string_view bytes) const {
  stderr_total_ += bytes.size();
  const std::size_t limit = limits_.stderr_tail;
  if (bytes.size() >= limit) {
    stderr_.assign(bytes.substr(bytes.size() - limit));
    return;
  }
  stderr_.append(bytes);
  if (stderr_.size() > 2 * limit) stderr_.erase(0, stderr_.size() - limit);
}

std::string ExternalSubject::stderr_tail() const {
  if (process_ && process_->owner == ::getpid()) process_->drain_stderr();
  const std::size_t limit = limits_.stderr_tail;
  return stderr_.size() > limit ? stderr_.substr(stderr_.size() - limit) : stderr_;
}

std::string ExternalSubject::stderr_since(std::uint64_t mark) const {
  const std::uint64_t wrote = stderr_total_ - mark;
  const std::size_t keep = static_cast<std::size_t>(
      std::min<std::uint64_t>({wrote, limits_.stderr_tail, stderr_.size()}));
  return stderr_.substr(stderr_.size() - keep);
}

// ---- the subject --------------------------------------------------------------------

ExternalSubject::ExternalSubject(TesteeConfig config, TesteeLimits limits)
    : config_(std::move(config)), limits_(limits) {}

ExternalSubject::~ExternalSubject() {
  try {
    shutdown();
  } catch (...) {
    // A destructor must not throw; the Process destructor still kills and reaps.
  }
  process_.reset();
}

int ExternalSubject::starts() const {
  return starts_;
}

void ExternalSubject::discard() const {
  if (!process_) return;
  if (process_->owner == ::getpid()) {
    process_->kill_and_reap();
    process_->drain_stderr();
  } else {
    process_->abandon();
  }
  process_.reset();
}

std::optional<std::string> ExternalSubject::shutdown() {
  if (process_ && process_->owner != ::getpid()) {
    process_->abandon();
    process_.reset();
  }
  if (!process_) return std::nullopt;
  std::optional<std::string> problem;
  try {
    Reply reply = request("shutdown", R"({"op":"shutdown"})", {}, 1.0);
    if (!reply.doc["ok"].get<bool>()) problem = "shutdown was answered with an error";
  } catch (const SubjectError& e) {
    problem = e.what();
  }
  if (process_) {
    if (!process_->wait_exit(1.0)) {
      problem = problem.value_or("the testee did not exit within 1s of shutdown");
    }
    process_->kill_and_reap();
    process_->drain_stderr();
    if (!problem && !process_->ended_cleanly()) {
      problem = "after shutdown the testee " + status_text(process_->status);
    }
    process_.reset();
  }
  return problem;
}

ExternalSubject::Reply ExternalSubject::request(const char* op, const std::string& document,
                                                const std::vector<std::string_view>& frames,
                                                double timeout_s, std::string* error_stage) const {
  Process& p = *process_;
  std::uint64_t mark = p.spawn_mark;
  if (p.greeted) {
    p.drain_stderr();  // what came between requests is not this request's
    mark = stderr_total_;
  }
  p.greeted = true;
  Reply reply;
  reply.op = op;
  reply.stderr_mark = mark;
  const Deadline deadline(timeout_s);
  try {
    // Writing, then waiting for and reading the answer; the parse is Bridge.
    phase::Scope waiting(phase::Phase::Testee);
    const auto n = static_cast<std::uint32_t>(document.size());
    const char length[4] = {static_cast<char>(n & 0xff), static_cast<char>((n >> 8) & 0xff),
                            static_cast<char>((n >> 16) & 0xff), static_cast<char>(n >> 24)};
    std::vector<std::string_view> pieces{std::string_view(length, 4), document};
    pieces.insert(pieces.end(), frames.begin(), frames.end());
    p.write_all(pieces, deadline);

    // A response ended early: a crash when the testee died or ended at a
    // message boundary, a protocol error when it ended a message short.
    const auto ended = [&](bool inside, const std::string& short_what) -> Failure {
      std::string how = p.ended("closed its standard output");
      const bool died = p.exited_on_own && !p.ended_cleanly();
      if (inside && !died) return Failure{Failure::Protocol, short_what + " (" + how + ")"};
      return Failure{Failure::Crash, how};
    };

    unsigned char len_bytes[4];
    std::size_t got = 0;
    if (!p.read_exact(reinterpret_cast<char*>(len_bytes), 4, deadline, &got)) {
      throw ended(got > 0,
                  fmt::format("the response ended inside its length ({} of 4 bytes)", got));
    }
    const std::uint32_t len = len_bytes[0] | (len_bytes[1] << 8) | (len_bytes[2] << 16) |
                              (static_cast<std::uint32_t>(len_bytes[3]) << 24);
    if (len > limits_.max_document) {
      std::string msg =
          fmt::format("the response's document length {} is over the limit of {} bytes", len,
                      limits_.max_document);
      if (std::all_of(len_bytes, len_bytes + 4,
                      [](unsigned char c) { return c >= 0x20 && c < 0x7f; })) {
        msg += fmt::format(" (its bytes read \"{}\": is the testee printing to standard output?)",
                           std::string_view(reinterpret_cast<const char*>(len_bytes), 4));
      }
      throw Failure{Failure::Protocol, msg};
    }
    reply.text.resize(len);
    if (!p.read_exact(reply.text.data(), len, deadline, &got)) {
      throw ended(true,
                  fmt::format("the response ended inside its document ({} of {} bytes)", got, len));
    }
    // A callback keeps "value" out of the tree: it is read from the text by
    // from_json, which does not recurse (the tree's dump() would).
    try {
      phase::Scope parsing(phase::Phase::Bridge);
      reply.doc = nlohmann::json::parse(
          reply.text, [](int depth, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
            return !(depth == 1 && event == nlohmann::json::parse_event_t::key &&
                     parsed == "value");
          });
    } catch (const nlohmann::json::exception& e) {
      throw Failure{Failure::Protocol, std::string("the document is not JSON: ") + e.what()};
    }
    if (!reply.doc.is_object()) {
      throw Failure{Failure::Protocol,
                    std::string("the document is not a JSON object but ") + json_type(reply.doc)};
    }
    if (!reply.doc.contains("ok")) throw Failure{Failure::Protocol, "the response has no \"ok\""};
    if (!reply.doc["ok"].is_boolean()) {
      throw Failure{Failure::Protocol, "\"ok\" is not true or false"};
    }
    if (reply.doc.contains("frame_lengths")) {
      const auto& lengths = reply.doc["frame_lengths"];
      if (!lengths.is_array())
        throw Failure{Failure::Protocol, "\"frame_lengths\" is not an array"};
      std::uint64_t total = 0;
      for (std::size_t i = 0; i < lengths.size(); ++i) {
        if (!is_count(lengths[i])) {
          throw Failure{
              Failure::Protocol,
              fmt::format("\"frame_lengths\"[{}] is not a byte count: {}", i, lengths[i].dump())};
        }
        const std::uint64_t l = lengths[i].get<std::uint64_t>();
        if (l > limits_.max_frames - std::min(total, limits_.max_frames)) {
          throw Failure{
              Failure::Protocol,
              fmt::format("the frames announced add up to more than the limit of {} bytes",
                          limits_.max_frames)};
        }
        total += l;
        reply.frames.emplace_back(total - l, l);
      }
      reply.buffer =
          std::make_shared_for_overwrite<std::uint8_t[]>(std::max<std::uint64_t>(total, 1));
      for (std::size_t i = 0; i < reply.frames.size(); ++i) {
        auto [offset, size] = reply.frames[i];
        if (!p.read_exact(reinterpret_cast<char*>(reply.buffer.get() + offset), size, deadline,
                          &got)) {
          throw ended(true, fmt::format("frame {} is shorter than announced: {} of {} bytes came",
                                        i, got, size));
        }
      }
    }
  } catch (const Failure& f) {
    discard();
    const std::string detail = stderr_since(mark);
    switch (f.kind) {
      case Failure::Timeout:
        throw SubjectError("testee-timeout",
                           fmt::format("no answer to {} within {}", op, seconds_text(timeout_s)),
                           detail);
      case Failure::Crash:
        throw SubjectError("testee-crash", std::string(op) + ": " + f.message, detail);
      case Failure::Protocol:
        throw SubjectError(kProtocolError, std::string(op) + ": " + f.message, detail);
    }
  }
  if (!reply.doc["ok"].get<bool>()) {
    const auto& error = reply.doc.contains("error") ? reply.doc["error"] : nlohmann::json();
    if (!error.is_object() || !error.contains("kind") || !error["kind"].is_string() ||
        error["kind"].get<std::string>().empty() || !error.contains("message") ||
        !error["message"].is_string()) {
      protocol_failure(reply,
                       "an error response needs \"error\": {\"kind\": ..., \"message\": ...}");
    }
    // Kinds become part of fingerprints and messages one line of a report:
    // both are kept short whatever the testee sends.
    std::string kind = error["kind"].get<std::string>();
    if (kind.size() > 64) kind = kind.substr(0, 64);
    std::string message = error["message"].get<std::string>();
    constexpr std::size_t kMaxMessage = 400;
    if (message.size() > kMaxMessage) {
      message = message.substr(0, kMaxMessage) + fmt::format("... ({} bytes)", message.size());
    }
    std::replace(message.begin(), message.end(), '\n', ' ');
    // What the testee wrote to stderr before it answered is in the pipe by
    // now, but the answer may have been read first: take it in.
    if (process_ && process_->owner == ::getpid()) process_->drain_stderr();
    const std::string detail = stderr_since(mark);
    if (error_stage != nullptr) {
      *error_stage = error.contains("stage") && error["stage"].is_string()
                         ? error["stage"].get<std::string>()
                         : std::string();
    }
    if (kind == "bad-request") {
      // The stream is still in step: the testee is kept.
      throw SubjectError(
          kProtocolError,
          std::string(op) + ": the testee did not understand the request: " + message, detail);
    }
    throw SubjectError(kind, message, detail);
  }
  return reply;
}

void ExternalSubject::protocol_failure(const Reply& reply, const std::string& what) const {
  discard();
  throw SubjectError(kProtocolError, reply.op + ": " + what, stderr_since(reply.stderr_mark));
}

ExternalSubject::Process& ExternalSubject::live() const {
  if (process_ && process_->owner != ::getpid()) {
    process_->abandon();
    process_.reset();
  }
  if (unavailable_) throw SubjectError("unavailable", *unavailable_);
  if (process_) return *process_;
  tried_ = true;
  ++starts_;
  phase::Scope timed(phase::Phase::Start);  // through the hello
  const std::uint64_t mark = stderr_total_;
  std::string why;
  process_ = Process::spawn(*this, &why);
  if (!process_) {
    unavailable_ = "cannot start `" + config_.command + "`: " + why;
    throw SubjectError("unavailable", *unavailable_);
  }
  process_->spawn_mark = mark;
  try {
    const char* hello = load_call_only_ ? R"({"op":"hello","protocol":1,"only":"load-call"})"
                                        : R"({"op":"hello","protocol":1})";
    const Reply reply = request("hello", hello, {}, config_.start_timeout_s);
    const auto& d = reply.doc;
    if (!d.contains("protocol") || !d["protocol"].is_number_integer()) {
      protocol_failure(reply, "the response has no \"protocol\" (the version it speaks)");
    }
    if (d["protocol"].get<std::int64_t>() != kProtocolVersion) {
      protocol_failure(reply,
                       fmt::format("the testee speaks protocol version {}; this runner speaks {}",
                                   d["protocol"].dump(), kProtocolVersion));
    }
    TesteeInfo info;
    info.protocol = kProtocolVersion;
    for (auto [field, target] : {std::pair{"name", &info.name}, std::pair{"version", &info.version},
                                 std::pair{"implementation", &info.implementation}}) {
      if (!d.contains(field) || !d[field].is_string()) {
        protocol_failure(reply, fmt::format("\"{}\" is missing or not a string", field));
      }
      *target = d[field].get<std::string>();
    }
    if (!d.contains("capabilities") || !d["capabilities"].is_object()) {
      protocol_failure(reply, "\"capabilities\" is missing or not an object");
    }
    try {
      info.capabilities = capabilities_from_json(d["capabilities"]);
    } catch (const SubjectError& e) {
      protocol_failure(reply, message_of(e));
    }
    const auto& caps = d["capabilities"];
    for (auto [field, target] : {std::pair{"write_protocols", &info.write_protocols},
                                 std::pair{"read_protocols", &info.read_protocols}}) {
      if (caps.contains(field)) {
        *target = caps[field].get<std::vector<int>>();
      } else {
        *target = {0, 1, 2, 3, 4, 5};
      }
    }
    info_ = std::move(info);
    return *process_;
  } catch (const SubjectError& e) {
    discard();
    const bool no_answer = e.kind() == "testee-crash" || e.kind() == "testee-timeout";
    if (e.kind() == "unavailable" || (no_answer && !info_)) {
      // A testee that never said hello cannot be tested here: kept for good.
      std::string reason;
      if (e.kind() == "unavailable") {
        reason = "the testee is unavailable: " + message_of(e);
      } else if (e.kind() == "testee-timeout") {
        reason = "`" + config_.command + "` gave " + message_of(e);
      } else {
        reason = "`" + config_.command + "` did not answer hello: " +
                 message_of(e).substr(std::string_view("hello: ").size());
      }
      const std::string line = last_line(e.detail());
      if (!line.empty()) reason += " (standard error: " + line + ")";
      unavailable_ = reason;
      throw SubjectError("unavailable", reason, e.detail());
    }
    if (e.kind() != kProtocolError && !no_answer) {
      throw SubjectError(kProtocolError,
                         "hello: answered an error (" + std::string(e.what()) +
                             "); a testee that cannot run answers kind \"unavailable\"",
                         e.detail());
    }
    throw;
  }
}

void ExternalSubject::try_start() const {
  if (tried_ || info_ || unavailable_) return;
  try {
    live();
  } catch (const SubjectError&) {
    // Kept in unavailable_, or raised again by the next dumps/loads.
  }
}

Capabilities ExternalSubject::capabilities() const {
  try_start();
  if (info_) return info_->capabilities;
  Capabilities caps;
  caps.families = {"pickle"};
  if (unavailable_) {
    caps.can_dump = false;
    caps.can_load = false;
  }
  // Otherwise the hello was malformed: the protocol's defaults, so that the
  // calls are made and each fails with the testee's protocol error.
  return caps;
}

std::optional<std::string> ExternalSubject::unavailable_reason() const {
  try_start();
  return unavailable_;
}

std::string ExternalSubject::description() const {
  try_start();
  if (!info_) return {};
  return fmt::format("{} {} ({})", info_->name, info_->version, info_->implementation);
}

const TesteeInfo& ExternalSubject::info() const {
  if (!info_) live();  // throws why there is none
  return *info_;
}

namespace {

// The options of cross.py2 go only to a testee that takes them: another one
// would ignore them and answer as if they were the defaults.
void require_python2_choices(const TesteeInfo& info, const std::string& option) {
  if (!info.capabilities.python2_choices) {
    throw SubjectError(kUnsupported, "the testee takes no " + option +
                                         " (its hello lists no \"python2_choices\")");
  }
}

// The "value" member of a request, which the callers write as text.
std::string dumps_fields(const Node* value, const DumpOptions& options) {
  std::string json;
  try {
    json = to_json(value);
  } catch (const std::exception& e) {
    throw SubjectError(kUnsupported,
                       std::string("the value has no canonical JSON form: ") + e.what());
  }
  return "\"value\":" + json +
         fmt::format(",\"protocol\":{},\"out_of_band\":{}", options.protocol,
                     options.out_of_band ? "true" : "false");
}

// The loads request's fields and its frames (device frames copied to the host).
struct LoadsParts {
  nlohmann::json fields;
  std::vector<Frame> host;  // keeps copied frames alive
  std::vector<std::string_view> frames;
};

LoadsParts loads_parts(const Message& message, const LoadOptions& options) {
  if (message.frames.empty()) throw SubjectError("bad-message", "no pickle frame");
  const auto& header = message.header;
  if (header.is_object() && header.contains("serializer") && header["serializer"] != "pickle") {
    throw SubjectError("bad-message",
                       "serializer " + header["serializer"].dump() + " is not pickle");
  }
  const nlohmann::json* writeable = nullptr;
  if (header.is_object() && header.contains("writeable") && header["writeable"].is_array()) {
    writeable = &header["writeable"];
  }
  LoadsParts parts;
  nlohmann::json lengths = nlohmann::json::array();
  nlohmann::json flags = nlohmann::json::array();
  for (std::size_t i = 0; i < message.frames.size(); ++i) {
    parts.host.push_back(to_host(message.frames[i]));
    const Frame& f = parts.host.back();
    lengths.push_back(f.size);
    parts.frames.push_back(f.view());
    if (i == 0) continue;
    bool readonly = f.readonly;
    // The header travels with the frames and says what each buffer was.
    if (writeable != nullptr && i - 1 < writeable->size() && (*writeable)[i - 1].is_boolean()) {
      readonly = !(*writeable)[i - 1].get<bool>();
    }
    flags.push_back(!readonly);
  }
  parts.fields = {{"frame_lengths", std::move(lengths)},
                  {"max_protocol", options.max_protocol},
                  {"writeable", std::move(flags)}};
  return parts;
}

}  // namespace

Message ExternalSubject::dumps(const Node* value, const DumpOptions& options) {
  live();
  if (!info_->capabilities.can_dump) {
    throw SubjectError(kUnsupported, "the testee does not dump (its hello says \"dumps\": false)");
  }
  std::string document = "{\"op\":\"dumps\",";
  {
    phase::Scope timed(phase::Phase::Bridge);
    document += dumps_fields(value, options);
  }
  // cross.py2's choices (docs/testee-protocol.md): the writer's fix_imports
  // only to a testee that takes it; the reader's choice to any writer.
  if (!options.fix_imports) {
    require_python2_choices(*info_, "fix_imports=False");
    document += ",\"fix_imports\":false";
  }
  if (options.reader_chooses_encoding) document += ",\"reader_chooses_encoding\":true";
  document += "}";
  const Reply reply = request("dumps", document, {}, config_.timeout_s);
  const auto& d = reply.doc;
  if (!d.contains("frame_lengths"))
    protocol_failure(reply, "the response has no \"frame_lengths\"");
  if (reply.frames.empty())
    protocol_failure(reply, "the response has no frame (frame 0 is the pickle)");
  const std::size_t buffers = reply.frames.size() - 1;
  if (buffers > 0 && !options.out_of_band) {
    protocol_failure(reply,
                     fmt::format("{} out-of-band frames for a dump without out_of_band", buffers));
  }
  std::vector<bool> writeable(buffers, false);
  if (d.contains("writeable")) {
    const auto& w = d["writeable"];
    if (!w.is_array() || w.size() != buffers ||
        !std::all_of(w.begin(), w.end(), [](const nlohmann::json& b) { return b.is_boolean(); })) {
      protocol_failure(reply, fmt::format("\"writeable\" is not an array of {} booleans (one per "
                                          "out-of-band frame)",
                                          buffers));
    }
    for (std::size_t i = 0; i < buffers; ++i) writeable[i] = w[i].get<bool>();
  }
  Message message;
  nlohmann::json flags = nlohmann::json::array();
  message.frames.push_back(reply.frame(0, true));
  for (std::size_t i = 0; i < buffers; ++i) {
    message.frames.push_back(reply.frame(i + 1, !writeable[i]));
    flags.push_back(writeable[i]);
  }
  message.header = {
      {"serializer", "pickle"}, {"protocol", options.protocol}, {"writeable", std::move(flags)}};
  return message;
}

Node* ExternalSubject::loads(const Message& message, Graph& graph, const LoadOptions& options) {
  live();
  if (!info_->capabilities.can_load) {
    throw SubjectError(kUnsupported, "the testee does not load (its hello says \"loads\": false)");
  }
  LoadsParts parts = loads_parts(message, options);
  nlohmann::json fields = std::move(parts.fields);
  fields["op"] = "loads";
  if (!options.encoding.empty()) {
    require_python2_choices(*info_, "encoding=" + options.encoding);
    fields["encoding"] = options.encoding;
  }
  if (!options.fix_imports) {
    require_python2_choices(*info_, "fix_imports=False");
    fields["fix_imports"] = false;
  }
  const Reply reply = request("loads", fields.dump(), parts.frames, config_.timeout_s);
  const auto [offset, size] = find_value_member(reply.text);
  if (offset == std::string_view::npos) protocol_failure(reply, "the response has no \"value\"");
  try {
    phase::Scope timed(phase::Phase::Bridge);
    Node* root = from_json(std::string_view(reply.text).substr(offset, size), graph);
    graph.root = root;
    return root;
  } catch (const JsonFormError& e) {
    const std::string where = e.where().empty() ? "the top" : e.where();
    const std::string what = std::string(e.what()).substr(
        (e.where().empty() ? std::string("(document)") : e.where()).size() + 2);
    discard();
    throw SubjectError(
        kProtocolError,
        "loads answered a value that is not canonical JSON at " + where + ": " + what,
        stderr_since(reply.stderr_mark));
  }
}

std::vector<LoadAttempt> ExternalSubject::try_loads_request(const std::vector<std::string>& streams,
                                                            const LoadOptions& options) {
  live();
  nlohmann::json fields = {{"op", "try-loads"}, {"max_protocol", options.max_protocol}};
  nlohmann::json lengths = nlohmann::json::array();
  std::vector<std::string_view> frames;
  for (const std::string& s : streams) {
    lengths.push_back(s.size());
    frames.emplace_back(s);
  }
  fields["frame_lengths"] = std::move(lengths);
  // Half the time a request may take: a batch that hangs is tried again a
  // stream at a time, and the stream that hangs takes the whole timeout
  // again, so both fit in the worker's case timeout (twice this testee's,
  // by default) and the hang is charged to its stream, not to the case.
  const Reply reply = request("try-loads", fields.dump(), frames, config_.timeout_s / 2);
  const nlohmann::json& results =
      reply.doc.contains("results") ? reply.doc["results"] : nlohmann::json();
  if (!results.is_array() || results.size() != streams.size()) {
    protocol_failure(reply, fmt::format("try-loads answered {} results for {} streams",
                                        results.is_array() ? results.size() : 0, streams.size()));
  }
  std::vector<LoadAttempt> out;
  out.reserve(results.size());
  for (std::size_t i = 0; i < results.size(); ++i) {
    const nlohmann::json& r = results[i];
    if (!r.is_object() || !r.contains("ok") || !r["ok"].is_boolean()) {
      protocol_failure(reply, fmt::format("try-loads result {} has no \"ok\": true or false", i));
    }
    LoadAttempt a;
    a.loaded = r["ok"].get<bool>();
    if (!a.loaded) {
      const nlohmann::json& error = r.contains("error") ? r["error"] : nlohmann::json();
      if (!error.is_object() || !error.contains("kind") || !error["kind"].is_string() ||
          error["kind"].get<std::string>().empty() || !error.contains("message") ||
          !error["message"].is_string()) {
        protocol_failure(reply, fmt::format("try-loads result {} is an error without "
                                            "\"error\": {{\"kind\": ..., \"message\": ...}}",
                                            i));
      }
      a.kind = error["kind"].get<std::string>().substr(0, 64);
      a.message = error["message"].get<std::string>().substr(0, 400);
      std::replace(a.message.begin(), a.message.end(), '\n', ' ');
      // Only the runner says that a testee misbehaved.
      if (testee_misbehaved(a.kind)) a.kind = "error";
    }
    out.push_back(std::move(a));
  }
  return out;
}

std::vector<LoadAttempt> ExternalSubject::try_loads(const std::vector<std::string>& streams,
                                                    int protocol, const LoadOptions& options) {
  live();
  if (!info_->capabilities.try_loads || !options.encoding.empty() || !options.fix_imports) {
    return Subject::try_loads(streams, protocol, options);
  }
  // Batches of at most 256 streams and 16 MiB (one stream alone when it is
  // larger).
  constexpr std::size_t kMaxStreams = 256;
  constexpr std::size_t kMaxBytes = std::size_t{16} << 20;
  std::vector<LoadAttempt> out;
  out.reserve(streams.size());
  for (std::size_t begin = 0; begin < streams.size();) {
    std::size_t end = begin;
    std::size_t bytes = 0;
    while (end < streams.size() && end - begin < kMaxStreams &&
           (end == begin || bytes + streams[end].size() <= kMaxBytes)) {
      bytes += streams[end++].size();
    }
    const std::vector<std::string> batch(streams.begin() + static_cast<std::ptrdiff_t>(begin),
                                         streams.begin() + static_cast<std::ptrdiff_t>(end));
    begin = end;
    std::vector<LoadAttempt> got;
    try {
      got = try_loads_request(batch, options);
    } catch (const SubjectError& e) {
      // A malformed answer is the testee's, whatever the streams.
      if (e.kind() == kProtocolError) throw;
      // A crash or a hang belongs to one stream of the batch, and an error
      // answer to the whole request says nothing of each: each stream is
      // tried again alone, so that it is charged to its own.
      got = Subject::try_loads(batch, protocol, options);
    }
    out.insert(out.end(), std::make_move_iterator(got.begin()), std::make_move_iterator(got.end()));
  }
  return out;
}

namespace {

TesteeTiming timing_from(const nlohmann::json& d, long iterations, std::string* problem) {
  TesteeTiming t;
  if (!d.contains("iterations") || !d["iterations"].is_number_integer() ||
      d["iterations"].get<std::int64_t>() != iterations) {
    *problem = fmt::format("\"iterations\" is not the {} asked for", iterations);
    return t;
  }
  if (!d.contains("seconds") || !d["seconds"].is_number() ||
      !std::isfinite(d["seconds"].get<double>()) || d["seconds"].get<double>() < 0) {
    *problem = "\"seconds\" is not a number of seconds";
    return t;
  }
  t.iterations = iterations;
  t.seconds = d["seconds"].get<double>();
  return t;
}

void check_iterations(long iterations) {
  if (iterations < 1) throw std::invalid_argument("bench: iterations must be at least 1");
}

}  // namespace

TesteeTiming ExternalSubject::bench_dumps(const Node* value, const DumpOptions& options,
                                          long iterations) {
  check_iterations(iterations);
  live();
  const std::string document =
      fmt::format("{{\"op\":\"bench\",\"operation\":\"dumps\",\"iterations\":{},", iterations) +
      dumps_fields(value, options) + "}";
  const Reply reply = request("bench", document, {}, config_.timeout_s);
  std::string problem;
  TesteeTiming t = timing_from(reply.doc, iterations, &problem);
  if (!problem.empty()) protocol_failure(reply, problem);
  return t;
}

TesteeTiming ExternalSubject::bench_loads(const Message& message, const LoadOptions& options,
                                          long iterations) {
  check_iterations(iterations);
  live();
  LoadsParts parts = loads_parts(message, options);
  nlohmann::json fields = std::move(parts.fields);
  fields["op"] = "bench";
  fields["operation"] = "loads";
  fields["iterations"] = iterations;
  const Reply reply = request("bench", fields.dump(), parts.frames, config_.timeout_s);
  std::string problem;
  TesteeTiming t = timing_from(reply.doc, iterations, &problem);
  if (!problem.empty()) protocol_failure(reply, problem);
  return t;
}

// ---- callable.by-value -----------------------------------------------------------

namespace {

// A results array as serialcheck_byvalue.results writes it: one
// ["value", repr] or ["raises", type name] per input; else what is wrong.
std::string results_problem(const nlohmann::json& d, std::size_t inputs) {
  if (!d.contains("results")) return "the response has no \"results\"";
  const auto& r = d["results"];
  if (!r.is_array()) return "\"results\" is not an array";
  if (r.size() != inputs) {
    return fmt::format("\"results\" has {} entries for {} inputs", r.size(), inputs);
  }
  for (std::size_t i = 0; i < r.size(); ++i) {
    const auto& e = r[i];
    if (!e.is_array() || e.size() != 2 || !(e[0] == "value" || e[0] == "raises") ||
        !e[1].is_string()) {
      return fmt::format("\"results\"[{}] is not [\"value\", repr] or [\"raises\", type]: {}", i,
                         e.dump());
    }
  }
  return {};
}

ByValueOutcome failed_at(const char* stage, const SubjectError& e) {
  ByValueOutcome out;
  out.stage = stage;
  out.kind = e.kind();
  out.error = message_of(e);
  out.detail = e.detail();
  return out;
}

void require_by_value(const TesteeInfo& info) {
  if (!info.capabilities.by_value) {
    throw SubjectError(
        kUnsupported,
        "the testee does not pickle functions and classes by value (its hello has no "
        "\"by_value\": true)");
  }
}

}  // namespace

ByValueOutcome ExternalSubject::define_dumps(const ByValueCase& c, std::string* pickle) {
  try {
    live();
    require_by_value(*info_);
    const nlohmann::json document = {{"op", "define-dumps"},
                                     {"source", c.source},
                                     {"inputs", c.inputs},
                                     {"protocol", c.protocol}};
    std::string stage;
    Reply reply;
    try {
      reply = request("define-dumps", document.dump(), {}, config_.timeout_s, &stage);
    } catch (const SubjectError& e) {
      if (e.kind() == kUnsupported) throw;
      return failed_at(stage == "define" ? "define" : "dumps", e);
    }
    const std::string problem = results_problem(reply.doc, c.inputs.size());
    if (!problem.empty()) protocol_failure(reply, problem);
    if (reply.frames.size() != 1) {
      protocol_failure(reply, fmt::format("{} frames, not one (the pickle)", reply.frames.size()));
    }
    const Frame f = reply.frame(0, true);
    pickle->assign(reinterpret_cast<const char*>(f.data), f.size);
    ByValueOutcome out;
    out.original = reply.doc["results"];
    return out;
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) throw;
    return failed_at("dumps", e);
  }
}

ByValueOutcome ExternalSubject::load_call(std::string_view pickle, const nlohmann::json& inputs) {
  try {
    live();
    require_by_value(*info_);
    const nlohmann::json document = {{"op", "load-call"},
                                     {"inputs", inputs},
                                     {"frame_lengths", nlohmann::json::array({pickle.size()})}};
    const Reply reply = request("load-call", document.dump(), {pickle}, config_.timeout_s);
    const std::string problem = results_problem(reply.doc, inputs.size());
    if (!problem.empty()) protocol_failure(reply, problem);
    ByValueOutcome out;
    out.loaded = reply.doc["results"];
    return out;
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) throw;
    return failed_at("load", e);
  }
}

std::unique_ptr<ExternalSubject> ExternalSubject::fresh_instance() const {
  auto fresh = std::make_unique<ExternalSubject>(config_, limits_);
  fresh->load_call_only_ = true;
  return fresh;
}

ByValueOutcome ExternalSubject::by_value(const ByValueCase& c) {
  std::string pickle;
  ByValueOutcome out = define_dumps(c, &pickle);
  if (!out.stage.empty()) return out;
  std::unique_ptr<ExternalSubject> fresh = fresh_instance();
  ByValueOutcome loaded = fresh->load_call(pickle, c.inputs);
  fresh->shutdown();  // how it ends is not this case's concern
  loaded.original = std::move(out.original);
  return loaded;
}

// ---- callable.class-life -----------------------------------------------------------

namespace {

ClassLifeOutcome life_failed(const std::string& stage, const SubjectError& e) {
  ClassLifeOutcome out;
  out.stage = stage;
  out.kind = e.kind();
  out.error = message_of(e);
  out.detail = e.detail();
  return out;
}

// A stage a life-here or life-fresh error may name; anything else is `fallback`.
std::string life_stage(const std::string& named, const char* fallback) {
  for (const char* s : {"define", "dumps", "load", "no-instance"}) {
    if (named == s) return named;
  }
  return fallback;
}

}  // namespace

ClassLifeOutcome ExternalSubject::class_life(const ClassLifeCase& c) {
  ClassLifeOutcome out;
  std::vector<std::string> pickles;
  try {
    live();
    require_by_value(*info_);
    if (!info_->capabilities.class_life) {
      throw SubjectError(kUnsupported,
                         "the testee does not run class-life situations (its hello has no "
                         "\"class_life\": true)");
    }
    const nlohmann::json document = {{"op", "life-here"},
                                     {"source", c.source},
                                     {"inputs", c.inputs},
                                     {"situation", c.situation},
                                     {"protocol", c.protocol}};
    std::string stage;
    Reply reply;
    try {
      reply = request("life-here", document.dump(), {}, config_.timeout_s, &stage);
    } catch (const SubjectError& e) {
      if (e.kind() == kUnsupported) throw;
      return life_failed(life_stage(stage, "dumps"), e);
    }
    if (!reply.doc.contains("expect") || !reply.doc["expect"].is_object() ||
        !reply.doc.contains("observed") || !reply.doc["observed"].is_object()) {
      protocol_failure(reply, "no \"expect\" and \"observed\" objects");
    }
    if (reply.frames.empty()) protocol_failure(reply, "no frames (the pickles)");
    for (std::size_t i = 0; i < reply.frames.size(); ++i) {
      const Frame f = reply.frame(i, true);
      pickles.emplace_back(reinterpret_cast<const char*>(f.data), f.size);
    }
    out.expect = reply.doc["expect"];
    out.observed = reply.doc["observed"];
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) throw;
    return life_failed("dumps", e);
  }
  if (c.situation == "changed-here") return out;  // no fresh half
  std::unique_ptr<ExternalSubject> fresh = fresh_instance();
  try {
    fresh->live();
    nlohmann::json lengths = nlohmann::json::array();
    std::vector<std::string_view> frames;
    for (const std::string& p : pickles) {
      lengths.push_back(p.size());
      frames.emplace_back(p);
    }
    const nlohmann::json document = {{"op", "life-fresh"},
                                     {"inputs", c.inputs},
                                     {"situation", c.situation},
                                     {"frame_lengths", lengths}};
    std::string stage;
    Reply reply;
    try {
      reply = fresh->request("life-fresh", document.dump(), frames, config_.timeout_s, &stage);
    } catch (const SubjectError& e) {
      if (e.kind() == kUnsupported) throw;
      fresh->shutdown();
      return life_failed(life_stage(stage, "load"), e);
    }
    if (!reply.doc.contains("observed") || !reply.doc["observed"].is_object()) {
      fresh->protocol_failure(reply, "no \"observed\" object");
    }
    out.observed.update(reply.doc["observed"]);
  } catch (const SubjectError& e) {
    if (e.kind() == kUnsupported) throw;
    fresh->shutdown();
    return life_failed("load", e);
  }
  fresh->shutdown();  // how it ends is not this case's concern
  return out;
}

// ---- cross.stdlib ------------------------------------------------------------------

namespace {

void require_recipes(const TesteeInfo& info) {
  if (!info.capabilities.stdlib_recipes) {
    throw SubjectError(kUnsupported,
                       "the testee builds no stdlib values (its hello has no \"stdlib_recipes\": "
                       "true)");
  }
}

}  // namespace

std::string ExternalSubject::dumps_recipe(const std::string& recipe, int protocol) {
  live();
  require_recipes(*info_);
  const nlohmann::json document = {
      {"op", "dumps-recipe"}, {"recipe", recipe}, {"protocol", protocol}};
  const Reply reply = request("dumps-recipe", document.dump(), {}, config_.timeout_s);
  if (reply.frames.size() != 1) {
    protocol_failure(reply, fmt::format("{} frames, not one (the pickle)", reply.frames.size()));
  }
  const Frame f = reply.frame(0, true);
  return std::string(reinterpret_cast<const char*>(f.data), f.size);
}

RecipeLoad ExternalSubject::loads_recipe(const std::string& recipe, std::string_view pickle) {
  live();
  require_recipes(*info_);
  const nlohmann::json document = {{"op", "loads-recipe"},
                                   {"recipe", recipe},
                                   {"frame_lengths", nlohmann::json::array({pickle.size()})}};
  const Reply reply = request("loads-recipe", document.dump(), {pickle}, config_.timeout_s);
  const auto& d = reply.doc;
  if (!d.contains("equal") || !d["equal"].is_boolean()) {
    protocol_failure(reply, "the response has no \"equal\": true or false");
  }
  for (const char* field : {"loaded", "expected"}) {
    if (!d.contains(field) || !d[field].is_string()) {
      protocol_failure(reply, fmt::format("the response has no \"{}\" string (a repr)", field));
    }
  }
  RecipeLoad out;
  out.equal = d["equal"].get<bool>();
  out.loaded = d["loaded"].get<std::string>();
  out.expected = d["expected"].get<std::string>();
  return out;
}

// ---- capabilities -------------------------------------------------------------------

namespace {

[[noreturn]] void bad_capability(const std::string& field, const std::string& what) {
  throw SubjectError(kProtocolError, "capabilities." + field + ": " + what);
}

bool capability_flag(const nlohmann::json& j, const char* field, bool fallback) {
  if (!j.contains(field)) return fallback;
  if (!j[field].is_boolean()) bad_capability(field, "not true or false but " + j[field].dump());
  return j[field].get<bool>();
}

// A consecutive, ascending run of protocols 0-5 (empty when `may_be_empty`).
std::vector<int> capability_protocols(const nlohmann::json& j, const char* field,
                                      bool may_be_empty) {
  if (!j.contains(field)) return {0, 1, 2, 3, 4, 5};
  const auto& list = j[field];
  if (!list.is_array()) bad_capability(field, "not an array but " + list.dump());
  std::vector<int> protocols;
  for (const auto& p : list) {
    if (!p.is_number_integer() || p.get<std::int64_t>() < 0 || p.get<std::int64_t>() > 5) {
      bad_capability(field, "not a pickle protocol (0 to 5): " + p.dump());
    }
    const int v = p.get<int>();
    if (!protocols.empty() && v != protocols.back() + 1) {
      bad_capability(field, "the protocols must be consecutive and ascending: " + list.dump());
    }
    protocols.push_back(v);
  }
  if (protocols.empty() && !may_be_empty) {
    bad_capability(field, "empty, but the testee says it does this operation");
  }
  return protocols;
}

std::vector<std::string> capability_names(const nlohmann::json& j, const char* field,
                                          const std::set<std::string>& known) {
  std::vector<std::string> names;
  if (!j.contains(field)) return names;
  const auto& list = j[field];
  if (!list.is_array()) bad_capability(field, "not an array but " + list.dump());
  for (const auto& n : list) {
    if (!n.is_string()) bad_capability(field, "not a string: " + n.dump());
    if (known.count(n.get<std::string>()) == 0) bad_capability(field, "unknown name " + n.dump());
    names.push_back(n.get<std::string>());
  }
  return names;
}

}  // namespace

Capabilities capabilities_from_json(const nlohmann::json& j) {
  if (!j.is_object())
    throw SubjectError(kProtocolError, "capabilities: not an object but " + j.dump());
  Capabilities caps;
  caps.pickle_format = true;
  caps.families = {"pickle"};
  caps.can_dump = capability_flag(j, "dumps", true);
  caps.can_load = capability_flag(j, "loads", true);
  if (!caps.can_dump && !caps.can_load) {
    throw SubjectError(kProtocolError, "capabilities: the testee says it neither dumps nor loads");
  }
  const auto write = capability_protocols(j, "write_protocols", !caps.can_dump);
  const auto read = capability_protocols(j, "read_protocols", !caps.can_load);
  caps.out_of_band = capability_flag(j, "out_of_band", false);
  caps.limit_loader = capability_flag(j, "limit_loader", false);
  caps.cpython_bytes = capability_flag(j, "cpython_bytes", false);
  caps.c_pickler = capability_flag(j, "c_pickler", false);
  caps.python_values = capability_flag(j, "python_values", false);
  // "python_version": "3.7.16" from a testee that is a CPython interpreter;
  // absent from others and from testees older than the field.
  if (j.contains("python_version")) {
    if (!j["python_version"].is_string()) {
      bad_capability("python_version", "not a string but " + j["python_version"].dump());
    }
    caps.python_version = j["python_version"].get<std::string>();
  }
  if (j.contains("default_protocol")) {
    const auto& d = j["default_protocol"];
    if (!d.is_number_integer() || d.get<int>() < 0 || d.get<int>() > 5) {
      bad_capability("default_protocol", "not a protocol 0-5 but " + d.dump());
    }
    caps.default_protocol = d.get<int>();
  }
  // callable.by-value goes through define-dumps and load-call, in the
  // testee's own interpreter; "by_value_pickler", which an earlier version
  // of the protocol read, is not used: the runner's Python is not the testee's.
  caps.by_value = capability_flag(j, "by_value", false);
  caps.class_life = capability_flag(j, "class_life", false);
  caps.python2_choices = capability_flag(j, "python2_choices", false);
  if (caps.by_value && !(caps.can_dump && caps.can_load)) {
    bad_capability("by_value", "a testee that does not both dump and load cannot pickle by value");
  }
  if (caps.class_life && !caps.by_value) {
    bad_capability("class_life", "class-life situations need \"by_value\" as well");
  }
  // cross.stdlib goes through dumps-recipe and loads-recipe.
  caps.stdlib_recipes = capability_flag(j, "stdlib_recipes", false);
  caps.try_loads = capability_flag(j, "try_loads", false) && caps.can_load;
  caps.cannot_express = capability_names(
      j, "cannot_express", std::set<std::string>(kFidelityNames.begin(), kFidelityNames.end()));
  std::set<std::string> kinds = {"null", "buffer"};  // the JSON form's tags beside the kind names
  for (int k = 0; k <= static_cast<int>(kLastKind); ++k) {
    kinds.insert(std::string(kind_name(static_cast<Kind>(k))));
  }
  caps.kinds = capability_names(j, "kinds", kinds);
  // One range for both directions: the protocols the testee writes and
  // reads; a one-way testee's own; two disjoint ranges, the reading one.
  int lo = 0, hi = 5;
  if (caps.can_dump && caps.can_load) {
    lo = std::max(write.front(), read.front());
    hi = std::min(write.back(), read.back());
    if (lo > hi) {
      lo = read.front();
      hi = read.back();
    }
  } else {
    const auto& one = caps.can_dump ? write : read;
    lo = one.front();
    hi = one.back();
  }
  caps.min_protocol = lo;
  caps.max_protocol = hi;
  return caps;
}

}  // namespace serialcheck
