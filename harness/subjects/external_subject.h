// A subject outside this process: a testee program that speaks the testee
// protocol (docs/testee-protocol.md) over its standard input and output.
// The subject starts the testee on first use, says hello, and sends one
// request per dumps/loads/bench call. A testee that crashes, hangs past the
// request timeout, or answers with a malformed message is charged with a
// SubjectError ("testee-crash", "testee-timeout", "testee-protocol") whose
// detail holds the tail of its standard error, and is started again on the
// next call. Nothing a testee sends can make this process read without
// bound: documents and frames are checked against limits before they are
// read.
//
// Processes: the testee runs in a process group of its own (so `sh -c`
// grandchildren are killed with it), its pipes are close-on-exec, and every
// process started is reaped. A process that forks (the gate's workers) may
// hold an ExternalSubject whose testee the parent started: the child never
// writes to, signals or waits for that testee; it closes its copies of the
// pipes and starts a testee of its own on first use.
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "harness/subjects/subject.h"

namespace serialcheck {

// How to run one testee: what `--testee NAME=COMMAND` and an entry of the
// subjects file say.
struct TesteeConfig {
  std::string name;                        // the subject's name in the gate
  std::string command;                     // run with /bin/sh -c, so arguments and quoting work
  std::string cwd;                         // working directory; empty: this process's
  std::map<std::string, std::string> env;  // added to this process's environment
  double timeout_s = 10;                   // per request
  double start_timeout_s = 30;             // for the hello
  std::string origin;                      // where it was named ("--testee", "subjects.json #3")
  // The matrix group of an interpreter found by the subjects file's
  // "interpreters" (harness/subjects/interpreters.h): "versions" for the
  // presets that form the version matrix; empty for every other testee.
  std::string group;
};

// Bounds on what the runner reads from a testee (docs/testee-protocol.md).
struct TesteeLimits {
  std::uint32_t max_document = 64u << 20;
  std::uint64_t max_frames = 1ull << 30;  // bytes of frames in one response
  std::size_t stderr_tail = 64u << 10;
};

// What the testee said in its hello. `capabilities` holds one protocol
// range for both directions (the protocols it both writes and reads, or the
// one direction it has); the two lists keep what it said for each.
struct TesteeInfo {
  std::string name, version, implementation;
  int protocol = 0;
  Capabilities capabilities;
  std::vector<int> write_protocols, read_protocols;
};

// One bench request's answer: the testee's own time for its loop.
struct TesteeTiming {
  long iterations = 0;
  double seconds = 0;
};

class ExternalSubject : public Subject {
 public:
  explicit ExternalSubject(TesteeConfig config, TesteeLimits limits = {});
  ~ExternalSubject() override;  // sends shutdown, then kills after a second

  std::string name() const override { return config_.name; }
  // From the hello (starting the testee if needed). An unavailable testee
  // has no capabilities: dumps and loads both false. A testee whose first
  // hello was malformed gets the protocol's defaults, so that each call is
  // made and fails with that testee-protocol error (the testee is started
  // again for each).
  Capabilities capabilities() const override;
  // Why the testee cannot run, for good: the command does not start (exit
  // 127, a missing directory), it exits or times out before its first hello
  // is answered, or it answered the hello with kind "unavailable". Includes
  // the last line of its standard error. Never set by a malformed hello.
  std::optional<std::string> unavailable_reason() const override;
  std::string description() const override;

  // Frames own their bytes; the header is {"serializer": "pickle",
  // "protocol": p, "writeable": [...]} as the other pickle subjects write it.
  Message dumps(const Node* value, const DumpOptions& options) override;
  // Device frames are copied to the host (counted) before they are sent.
  Node* loads(const Message& message, Graph& graph, const LoadOptions& options) override;
  // Many streams in one try-loads request when the hello claims "try_loads"
  // (in batches); a batch the testee crashes or hangs on, or answers with
  // an error, is tried again one loads() at a time.
  std::vector<LoadAttempt> try_loads(const std::vector<std::string>& streams, int protocol,
                                     const LoadOptions& options) override;
  // One try-loads request for all of `streams`, whatever the hello claims;
  // a crash, a hang, an error answer or a malformed one throws as any
  // request does (testee-check drives it).
  std::vector<LoadAttempt> try_loads_request(const std::vector<std::string>& streams,
                                             const LoadOptions& options);

  // The testee's own time for `iterations` (>= 1) runs of the operation.
  TesteeTiming bench_dumps(const Node* value, const DumpOptions& options, long iterations);
  TesteeTiming bench_loads(const Message& message, const LoadOptions& options, long iterations);

  // callable.by-value through the protocol, for a testee whose hello says
  // "by_value": define-dumps here, then load-call in a fresh instance (a
  // second process of the same command, shut down after it), so that
  // nothing the first one defined can be found by reference. Throws
  // SubjectError "unsupported" when the testee does not claim by_value or
  // answers "unsupported"; every other failure is the outcome's stage.
  ByValueOutcome by_value(const ByValueCase& c) override;
  // callable.class-life through the protocol, for a testee whose hello
  // says "class_life": life-here on this instance, then (for every
  // situation but changed-here) life-fresh with its pickles in a fresh
  // instance. Throws SubjectError "unsupported" as by_value() does.
  ClassLifeOutcome class_life(const ClassLifeCase& c) override;
  // The define-dumps request: on success `original` holds the testee's
  // results and *pickle the pickle. A failure is stage "define" (the source
  // did not run in the testee) or "dumps" (an error answer, or the testee
  // crashed, hung or answered a malformed message: kind "testee-crash"...).
  ByValueOutcome define_dumps(const ByValueCase& c, std::string* pickle);
  // The load-call request on this instance: `loaded` on success, stage
  // "load" on failure (the load's error kind, or how the testee failed).
  ByValueOutcome load_call(std::string_view pickle, const nlohmann::json& inputs);
  // cross.stdlib through the protocol (dumps-recipe, loads-recipe) for a
  // testee whose hello says "stdlib_recipes"; SubjectError "unsupported"
  // for one that does not, and the testee's own error kinds otherwise
  // ("inexpressible", a load's exception type).
  std::string dumps_recipe(const std::string& recipe, int protocol) override;
  RecipeLoad loads_recipe(const std::string& recipe, std::string_view pickle) override;
  // Another instance of this testee (not started yet) whose hello tells it
  // that it will only be sent load-call ("only": "load-call").
  std::unique_ptr<ExternalSubject> fresh_instance() const;

  // Sends shutdown and waits up to a second for the testee to exit, then
  // kills it; nullopt when it answered {"ok": true} and exited with status
  // 0, else what went wrong. Nothing to do (nullopt) when no testee runs.
  // A later call starts the testee again.
  std::optional<std::string> shutdown();

  const TesteeConfig& config() const { return config_; }
  // The hello's answer; throws SubjectError when the testee is unavailable
  // or its hello was malformed. A restarted testee's hello replaces it.
  const TesteeInfo& info() const;
  // The last bytes the testee wrote to standard error (all runs so far).
  std::string stderr_tail() const;
  // How many times the testee process was started.
  int starts() const;

 private:
  struct Process;
  struct Reply;
  // The running testee, started (and greeted) when there is none. Throws
  // SubjectError: kind "unavailable", or how the hello went wrong.
  Process& live() const;
  void try_start() const;  // live() once, for the const queries; errors kept
  // An error answer is thrown as SubjectError(kind, message); its "stage"
  // (a define-dumps error's) goes to *error_stage when that is given.
  Reply request(const char* op, const std::string& document,
                const std::vector<std::string_view>& frames, double timeout_s,
                std::string* error_stage = nullptr) const;
  [[noreturn]] void protocol_failure(const Reply& reply, const std::string& what) const;
  void discard() const;  // kills and reaps the testee, if any
  void add_stderr(std::string_view bytes) const;
  std::string stderr_since(std::uint64_t mark) const;

  TesteeConfig config_;
  TesteeLimits limits_;
  mutable std::unique_ptr<Process> process_;
  mutable std::optional<TesteeInfo> info_;
  mutable std::optional<std::string> unavailable_;
  mutable bool tried_ = false;   // a start was attempted
  bool load_call_only_ = false;  // a fresh_instance(): says so in its hello
  mutable int starts_ = 0;
  mutable std::string stderr_;              // up to twice the tail's size, trimmed from the front
  mutable std::uint64_t stderr_total_ = 0;  // bytes ever read from standard error
};

// Parses a hello's "capabilities" object (defaults as the protocol document
// says). Throws SubjectError("testee-protocol", ...) naming the bad field.
Capabilities capabilities_from_json(const nlohmann::json& j);

}  // namespace serialcheck
