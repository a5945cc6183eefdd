// A test case of the gate (a value plus the protocol and options it is dumped
// and loaded with), what a property says about it, and the saved form of a
// failing case: the JSON document kept under corpus/failing/ and replayed by
// `serialcheck replay` (docs/cli.md describes the fields).
#pragma once

#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>

#include "harness/report/results.h"
#include "reference/frames/message.h"
#include "reference/value/value.h"

namespace serialcheck {

struct TestCase {
  std::shared_ptr<Graph> graph;  // owns the value
  const Node* value = nullptr;
  int protocol = 5;
  bool out_of_band = false;  // send pickle buffers out of band (protocol 5)
  int max_protocol = 5;      // the loader's limit (protocol.mismatch)
  // The value describes real Python objects (fixture requests resolved,
  // harness/gen/fixtures.h): an edit of it must still be what the objects
  // built from it reduce to (gen::rebuilds_to_itself).
  bool python_objects = false;
};

// RapidCheck prints counterexamples with this (found by argument lookup).
void showValue(const TestCase& c, std::ostream& os);

// {"value": <canonical JSON>, "protocol": p, "options": {...}}.
nlohmann::json case_to_json(const TestCase& c);
// The same object as JSON text, written straight from the value (no JSON
// tree in between): what a worker announces before each case.
std::string case_to_json_text(const TestCase& c);
// Throws std::runtime_error (or JsonFormError) on a malformed document.
TestCase case_from_json(const nlohmann::json& j);

// What one property check concluded about one case.
struct Outcome {
  enum class Status { Pass, Fail, Discard };
  Status status = Status::Pass;
  // Stable across seeds: names the kind of failure and where it arose,
  // e.g. "exception:UnpicklingError@loads", "mismatch:sharing", "bytes:opcode".
  std::string fingerprint;
  std::string message;             // one line
  std::string explanation;         // several lines: disassembly diff, difference path
  nlohmann::json failing_message;  // {"header", "frames": [hex...]} or null
  // Discard: why, one of kDiscardReasons (harness/report/results.h), and for
  // "unsupported" and "inexpressible" the subject that refused. check_case
  // counts a refusal by any other subject than the cell's as the property's.
  std::string discard_reason;
  std::string discarded_by;

  static Outcome pass() { return {}; }
  // The property's own discard.
  static Outcome discard(std::string why) {
    Outcome o;
    o.status = Status::Discard;
    o.message = std::move(why);
    o.discard_reason = kDiscardProperty;
    return o;
  }
  // `subject` answered "unsupported" (SubjectError kind kUnsupported).
  static Outcome unsupported(std::string subject, std::string why) {
    Outcome o = discard(std::move(why));
    o.discard_reason = kDiscardUnsupported;
    o.discarded_by = std::move(subject);
    return o;
  }
  // The value holds a kind `subject`'s capabilities do not list.
  static Outcome inexpressible(std::string subject, std::string why) {
    Outcome o = discard(std::move(why));
    o.discard_reason = kDiscardInexpressible;
    o.discarded_by = std::move(subject);
    return o;
  }
  static Outcome fail(std::string fingerprint, std::string message, std::string explanation = {}) {
    Outcome o;
    o.status = Status::Fail;
    o.fingerprint = std::move(fingerprint);
    o.message = std::move(message);
    o.explanation = std::move(explanation);
    return o;
  }
  bool failed() const { return status == Status::Fail; }
};

nlohmann::json outcome_to_json(const Outcome& o);
Outcome outcome_from_json(const nlohmann::json& j);

// A message as JSON: {"header": ..., "frames": ["<hex>", ...]}, the header's
// bytes as {"binary": "<hex>"} (reference/frames/header_json.h).
nlohmann::json message_to_json(const Message& m);
// The frames own their bytes. Throws std::runtime_error on bad hex. Header
// bytes are read in both forms header_from_text_json reads.
Message message_from_json(const nlohmann::json& j);

std::string to_hex(std::string_view bytes);
std::optional<std::string> from_hex(std::string_view hex);

// A saved failing case.
struct CaseRecord {
  std::string subject;
  std::string property;
  std::string fingerprint;
  std::uint64_t seed = 0;
  std::string message;
  std::string explanation;
  TestCase test;
  nlohmann::json failing_message;  // null when the failure came before a message existed
};

constexpr std::string_view kCaseFormat = "serialcheck-case/1";

nlohmann::json record_to_json(const CaseRecord& r);
// Throws std::runtime_error naming the bad field.
CaseRecord record_from_json(const nlohmann::json& j);

// The command that replays a saved case file.
std::string replay_command(const std::string& path);

}  // namespace serialcheck
