// Opcode coverage of the reference encoder. The list of opcodes the encoder
// can emit (and at which protocols) is data, kept here and checked against
// the opcode table; the recorder notes what dumps actually emitted; a full
// default run that never exercised a listed opcode fails the gate, because
// then the generators leave part of the encoder untested.
#pragma once

#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/frames/message.h"

namespace serialcheck {

struct EmittableOpcode {
  std::string_view name;
  int min_protocol;       // lowest protocol at which the encoder writes it
  int max_protocol;       // highest
  std::string_view when;  // what makes the encoder write it
};

// Every opcode CPython 3.11's C pickler (and so the reference encoder) can
// write for a value of the model, in opcode-table order.
std::span<const EmittableOpcode> emittable_opcodes();

struct UnemittedOpcode {
  std::string_view name;
  std::string_view why;  // why the encoder never writes it in a test
  // Whether CPython 3.11's pickler writes it at all (for values beyond what
  // a test makes); false: it never does.
  bool cpython_writes;
};

// Opcodes of the table the encoder never writes, with the reason.
std::span<const UnemittedOpcode> unemitted_opcodes();

// unemitted_opcodes() as the run's reports print them: one sentence naming
// those CPython 3.11's pickler never writes, each with its reason, and one
// for those it writes only for payloads too large for a test.
std::string unemitted_summary();

// Disagreements between the two lists above and the opcode table: unknown
// names, protocol ranges below the opcode's protocol, table opcodes on
// neither list. Empty when consistent.
std::vector<std::string> coverage_list_problems();

// Collects, from the messages a subject dumped, which opcodes appeared at
// which requested protocol and which header keys appeared.
class CoverageRecorder {
 public:
  void record(const Message& message, int protocol);
  // {"opcodes": {"NAME": [protocols...]}, "header_keys": [...]}
  nlohmann::json to_json() const;
  bool empty() const { return opcodes_.empty(); }

 private:
  std::map<std::string, std::set<int>> opcodes_;
  std::set<std::string> header_keys_;
};

// The emittable opcodes that `seen` (opcode name -> protocols) lacks.
std::vector<std::string> missing_opcodes(const std::map<std::string, std::set<int>>& seen);

}  // namespace serialcheck
