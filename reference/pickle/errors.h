// Typed codec errors. Every decoder error carries the byte offset of the
// opcode (or argument) where it arose, so a user can find it in `dis` output.
// PickleError is a serialcheck::Error (reference/common/error.h).
#pragma once

#include <cstddef>
#include <string>
#include <string_view>

#include "reference/common/error.h"

namespace serialcheck::pickle {

enum class ErrorKind {
  UnsupportedProtocol,    // stream protocol above the loader's max_protocol
  Truncated,              // input ends inside an opcode or before STOP
  UnknownOpcode,          // a byte that is no opcode
  StackUnderflow,         // an opcode needs more stack items than there are
  MissingMark,            // an opcode needs a MARK and there is none
  MissingMemo,            // GET of a memo key never PUT
  BadValue,               // bad argument: bad UTF-8, bad int literal, wrong type on the stack...
  MissingBuffer,          // NEXT_BUFFER with no out-of-band buffer left
  LimitExceeded,          // depth, memo size, allocation or length limit
  TrailingData,           // bytes after STOP (only when the caller asks for strictness)
  Unpicklable,            // encoder: the value cannot be written at this protocol
  ForbiddenGlobal,        // a policy is set and the stream names a global not on its allowlist
  ForbiddenPersistentId,  // a policy is set, it allows no persistent ids, and the stream has one
};

// Stable kebab-case name, used in CLI errors, corpus files and reports:
// "unsupported-protocol", "truncated", ...
std::string_view error_kind_name(ErrorKind kind);

// what(): "<kind> at offset <offset>: <detail>"; detail() is the message
// without kind and offset.
class PickleError : public Error {
 public:
  PickleError(ErrorKind kind, std::size_t offset, std::string message);
  ErrorKind kind() const { return kind_; }
  std::size_t offset() const { return location().offset; }

 private:
  ErrorKind kind_;
};

// Protocol mismatch: `found` is the stream's protocol, `max` the loader's.
class UnsupportedProtocolError : public PickleError {
 public:
  UnsupportedProtocolError(std::size_t offset, int found, int max);
  int found() const { return found_; }
  int max() const { return max_; }

 private:
  int found_;
  int max_;
};

}  // namespace serialcheck::pickle
