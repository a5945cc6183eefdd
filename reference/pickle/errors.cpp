#include "reference/pickle/errors.h"

#include <fmt/format.h>

namespace serialcheck::pickle {

std::string_view error_kind_name(ErrorKind kind) {
  switch (kind) {
    case ErrorKind::UnsupportedProtocol: return "unsupported-protocol";
    case ErrorKind::Truncated: return "truncated";
    case ErrorKind::UnknownOpcode: return "unknown-opcode";
    case ErrorKind::StackUnderflow: return "stack-underflow";
    case ErrorKind::MissingMark: return "missing-mark";
    case ErrorKind::MissingMemo: return "missing-memo";
    case ErrorKind::BadValue: return "bad-value";
    case ErrorKind::MissingBuffer: return "missing-buffer";
    case ErrorKind::LimitExceeded: return "limit-exceeded";
    case ErrorKind::TrailingData: return "trailing-data";
    case ErrorKind::Unpicklable: return "unpicklable";
    case ErrorKind::ForbiddenGlobal: return "forbidden-global";
    case ErrorKind::ForbiddenPersistentId: return "forbidden-persistent-id";
  }
  return "unknown-error";
}

PickleError::PickleError(ErrorKind kind, std::size_t offset, std::string message)
    : Error(std::string(error_kind_name(kind)), std::move(message), Location{.offset = offset},
            ErrorStyle::KindAtOffset),
      kind_(kind) {}

UnsupportedProtocolError::UnsupportedProtocolError(std::size_t offset, int found, int max)
    : PickleError(
          ErrorKind::UnsupportedProtocol, offset,
          fmt::format("unsupported pickle protocol: {} (this loader reads up to {})", found, max)),
      found_(found),
      max_(max) {}

}  // namespace serialcheck::pickle
