#include "harness/props/coverage.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>

#include "reference/pickle/disasm.h"
#include "reference/pickle/opcodes.h"

namespace serialcheck {
namespace {

// The C pickler's choices, protocol by protocol (Modules/_pickle.c, 3.11).
constexpr std::array kEmittable = {
    EmittableOpcode{"MARK", 0, 5, "lists, dicts and tuples at 0; batches and long tuples at 1+"},
    EmittableOpcode{"STOP", 0, 5, "every pickle"},
    EmittableOpcode{"POP", 0, 5,
                    "a tuple reached again while saving its items (0; 2+ up to 3 items)"},
    EmittableOpcode{"POP_MARK", 1, 5, "a tuple reached again while saving its items (1+)"},
    EmittableOpcode{"FLOAT", 0, 0, "a float at protocol 0"},
    EmittableOpcode{"INT", 0, 1, "a 32-bit int at 0, a bool at 0 and 1"},
    EmittableOpcode{"BININT", 1, 5, "a 32-bit int beyond 16 bits"},
    EmittableOpcode{"BININT1", 1, 5, "an int in 0..255"},
    EmittableOpcode{"LONG", 0, 1, "an int beyond 32 bits at 0 and 1"},
    EmittableOpcode{"BININT2", 1, 5, "an int in 256..65535"},
    EmittableOpcode{"NONE", 0, 5, "None"},
    EmittableOpcode{"PERSID", 0, 0, "a persistent id at 0"},
    EmittableOpcode{"BINPERSID", 1, 5, "a persistent id at 1+"},
    EmittableOpcode{"REDUCE", 0, 5,
                    "a generic object; bytes below 3, sets below 4, bytearray below 5"},
    EmittableOpcode{"UNICODE", 0, 0, "a str at 0"},
    EmittableOpcode{"BINUNICODE", 1, 5, "a str at 1-3; at 4+ one over 255 bytes"},
    EmittableOpcode{"APPEND", 0, 5, "each list item at 0; a one-item batch at 1+"},
    EmittableOpcode{"BUILD", 0, 5, "an object with state"},
    EmittableOpcode{"GLOBAL", 0, 3, "a global at 0-3"},
    EmittableOpcode{"DICT", 0, 0, "a dict at 0"},
    EmittableOpcode{"EMPTY_DICT", 1, 5, "a dict at 1+"},
    EmittableOpcode{"APPENDS", 1, 5, "a batch of list items at 1+"},
    EmittableOpcode{"GET", 0, 0, "a shared object at 0"},
    EmittableOpcode{"BINGET", 1, 5, "a shared object at 1+, memo index below 256"},
    EmittableOpcode{"LONG_BINGET", 1, 5, "a shared object at memo index 256 or more"},
    EmittableOpcode{"LIST", 0, 0, "a list at 0"},
    EmittableOpcode{"EMPTY_LIST", 1, 5, "a list at 1+"},
    EmittableOpcode{"PUT", 0, 0, "memoizing at 0"},
    EmittableOpcode{"BINPUT", 1, 3, "memoizing at 1-3, index below 256"},
    EmittableOpcode{"LONG_BINPUT", 1, 3, "memoizing at 1-3, index 256 or more"},
    EmittableOpcode{"SETITEM", 0, 5, "each dict item at 0; a one-item batch at 1+"},
    EmittableOpcode{"TUPLE", 0, 5, "a tuple at 0-1; one of over 3 items at 2+"},
    EmittableOpcode{"EMPTY_TUPLE", 1, 5, "the empty tuple at 1+"},
    EmittableOpcode{"SETITEMS", 1, 5, "a batch of dict items at 1+"},
    EmittableOpcode{"BINFLOAT", 1, 5, "a float at 1+"},
    EmittableOpcode{"BINBYTES", 3, 5, "bytes over 255 long at 3+"},
    EmittableOpcode{"SHORT_BINBYTES", 3, 5, "bytes up to 255 long at 3+"},
    EmittableOpcode{"PROTO", 2, 5, "every pickle at 2+"},
    EmittableOpcode{"NEWOBJ", 2, 5, "an object reduced to copyreg.__newobj__"},
    EmittableOpcode{"EXT1", 2, 5, "a global in copyreg's extension registry, code up to 0xff, at 2+"},
    EmittableOpcode{"EXT2", 2, 5, "a global in copyreg's extension registry, code up to 0xffff, at 2+"},
    EmittableOpcode{"EXT4", 2, 5, "a global in copyreg's extension registry, larger code, at 2+"},
    EmittableOpcode{"TUPLE1", 2, 5, "a 1-tuple at 2+"},
    EmittableOpcode{"TUPLE2", 2, 5, "a 2-tuple at 2+"},
    EmittableOpcode{"TUPLE3", 2, 5, "a 3-tuple at 2+"},
    EmittableOpcode{"NEWTRUE", 2, 5, "True at 2+"},
    EmittableOpcode{"NEWFALSE", 2, 5, "False at 2+"},
    EmittableOpcode{"LONG1", 2, 5, "an int beyond 32 bits, up to 255 bytes, at 2+"},
    EmittableOpcode{"LONG4", 2, 5, "an int of 256 bytes or more at 2+"},
    EmittableOpcode{"SHORT_BINUNICODE", 4, 5, "a str up to 255 bytes at 4+"},
    EmittableOpcode{"EMPTY_SET", 4, 5, "a set at 4+"},
    EmittableOpcode{"ADDITEMS", 4, 5, "set items at 4+"},
    EmittableOpcode{"FROZENSET", 4, 5, "a frozenset at 4+"},
    EmittableOpcode{"NEWOBJ_EX", 4, 5, "an object reduced to copyreg.__newobj_ex__ at 4+"},
    EmittableOpcode{"STACK_GLOBAL", 4, 5, "a global at 4+"},
    EmittableOpcode{"MEMOIZE", 4, 5, "memoizing at 4+"},
    EmittableOpcode{"FRAME", 4, 5, "a pickle of 4 bytes or more at 4+"},
    EmittableOpcode{"BYTEARRAY8", 5, 5, "a bytearray at 5"},
    EmittableOpcode{"NEXT_BUFFER", 5, 5, "an out-of-band buffer"},
    EmittableOpcode{"READONLY_BUFFER", 5, 5, "a read-only out-of-band buffer"},
};

constexpr std::array kUnemitted = {
    UnemittedOpcode{"DUP", "no pickler writes it", false},
    UnemittedOpcode{"STRING",
                    "Python 2 str; Python 3 writes bytes through _codecs.encode below protocol 3",
                    false},
    UnemittedOpcode{"BINSTRING", "Python 2 str", false},
    UnemittedOpcode{"SHORT_BINSTRING", "Python 2 str", false},
    UnemittedOpcode{"INST", "Python 2 old-style instances", false},
    UnemittedOpcode{"OBJ", "Python 2 old-style instances", false},
    UnemittedOpcode{"BINUNICODE8", "a str over 4 GiB, beyond what a test generates", true},
    UnemittedOpcode{"BINBYTES8", "bytes over 4 GiB, beyond what a test generates", true},
};

std::string with_reasons(bool cpython_writes) {
  std::string out;
  for (const auto& u : kUnemitted) {
    if (u.cpython_writes != cpython_writes) continue;
    out += fmt::format("{}{} ({})", out.empty() ? "" : ", ", u.name, u.why);
  }
  return out;
}

}  // namespace

std::span<const EmittableOpcode> emittable_opcodes() {
  return kEmittable;
}

std::span<const UnemittedOpcode> unemitted_opcodes() {
  return kUnemitted;
}

std::string unemitted_summary() {
  std::string out;
  if (std::string never = with_reasons(false); !never.empty()) {
    out = "Not emitted, because CPython 3.11's pickler never writes them: " + never + ".";
  }
  if (std::string big = with_reasons(true); !big.empty()) {
    out += (out.empty() ? "" : " ") +
           std::string("Not emitted, because CPython writes them only for payloads too large "
                       "for a test: ") +
           big + ".";
  }
  return out;
}

std::vector<std::string> coverage_list_problems() {
  std::vector<std::string> problems;
  std::set<std::string_view> listed;
  for (const auto& e : kEmittable) {
    listed.insert(e.name);
    const pickle::OpInfo* row = nullptr;
    for (const auto& info : pickle::opcode_table()) {
      if (info.name == e.name) row = &info;
    }
    if (row == nullptr) {
      problems.push_back(std::string(e.name) + " is not in the opcode table");
      continue;
    }
    if (e.min_protocol < row->proto) {
      problems.push_back(std::string(e.name) + " is listed from protocol " +
                         std::to_string(e.min_protocol) + " but exists only from " +
                         std::to_string(row->proto));
    }
    if (e.max_protocol < e.min_protocol || e.max_protocol > pickle::kHighestProtocol) {
      problems.push_back(std::string(e.name) + " has a bad protocol range");
    }
  }
  for (const auto& [name, why, cpython_writes] : kUnemitted) {
    if (!listed.insert(name).second) {
      problems.push_back(std::string(name) + " is listed as both emitted and not emitted");
    }
    bool found = false;
    for (const auto& info : pickle::opcode_table()) found |= info.name == name;
    if (!found) problems.push_back(std::string(name) + " is not in the opcode table");
  }
  for (const auto& info : pickle::opcode_table()) {
    if (listed.count(info.name) == 0) {
      problems.push_back(std::string(info.name) + " is on neither coverage list");
    }
  }
  return problems;
}

void CoverageRecorder::record(const Message& message, int protocol) {
  if (message.header.is_object()) {
    for (const auto& [key, value] : message.header.items()) header_keys_.insert(key);
  }
  if (message.frames.empty()) return;
  const Frame& f = message.frames[0];
  auto d = pickle::disassemble(std::span<const std::uint8_t>(f.data, f.size));
  for (const auto& ins : d.instructions) opcodes_[ins.name].insert(protocol);
}

nlohmann::json CoverageRecorder::to_json() const {
  nlohmann::json ops = nlohmann::json::object();
  for (const auto& [name, protocols] : opcodes_) ops[name] = protocols;
  return {{"opcodes", std::move(ops)}, {"header_keys", header_keys_}};
}

std::vector<std::string> missing_opcodes(const std::map<std::string, std::set<int>>& seen) {
  std::vector<std::string> missing;
  for (const auto& e : kEmittable) {
    if (seen.count(std::string(e.name)) == 0) missing.emplace_back(e.name);
  }
  return missing;
}

}  // namespace serialcheck
