// Scanning a pickle for what a Python unpickler would import, call and hand
// to persistent_load, without loading it: every global (with the exact
// module and name, STACK_GLOBAL's included), every callable application and
// every persistent id, in stream order, each marked allowed or not against
// an allowlist. Built on the decoder's observer, so it reads the stream
// exactly as the decoder does; a malformed stream gives what was seen before
// the error, and the error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "reference/pickle/errors.h"
#include "reference/pickle/limits.h"
#include "reference/pickle/policy.h"

namespace serialcheck::pickle {

struct ScanEntry {
  enum class Kind { Global, Call, PersistentId };
  Kind kind = Kind::Global;
  std::size_t offset = 0;  // of the opcode
  std::string opcode;      // GLOBAL, STACK_GLOBAL, REDUCE, BINPERSID...
  // Global: the name a Python 3 loader imports. Call: the callee's name
  // when it is a global (BUILD: the class of the object built), else empty.
  std::string module;
  std::string qualname;
  // Global: "module.qualname" as the stream spells it when fix_imports
  // renamed it (a Python 2 name), else empty.
  std::string written;
  // What the report shows: "module.qualname"; for a callee that is no global,
  // "<result of module.qualname>" or "<kind>"; for a persistent id, its value.
  std::string name;
  bool allowed = true;
};

// "global", "call", "persistent-id".
std::string_view scan_kind_name(ScanEntry::Kind kind);

struct ScanResult {
  std::vector<ScanEntry> entries;
  int protocol = 0;                  // from PROTO, 0 when absent
  std::size_t size = 0;              // input bytes
  std::size_t consumed = 0;          // bytes up to and including STOP (0 when malformed)
  std::optional<PickleError> error;  // set when the stream is malformed

  std::size_t forbidden() const;  // entries not allowed
  bool clean() const { return !error && forbidden() == 0; }
};

struct ScanOptions {
  int max_protocol = 5;
  bool fix_imports = true;
  Limits limits;
};

// Scans the first pickle in `data` (bytes after its STOP are left alone:
// consumed < size). NEXT_BUFFER reads as a stand-in buffer, since
// out-of-band buffers travel elsewhere and cannot name a global.
//
// An entry is allowed when: a global is on the list; a call's callee is an
// allowed global, or is no global at all (the result of an earlier call,
// checked when that call's global was named); a persistent id when the list
// allows persistent ids. So `clean()` holds exactly when decoding with the
// same allowlist succeeds.
ScanResult scan(std::span<const std::uint8_t> data, const Allowlist& allowlist,
                const ScanOptions& options = {});

inline ScanResult scan(std::string_view data, const Allowlist& allowlist,
                       const ScanOptions& options = {}) {
  return scan(std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(data.data()),
                                            data.size()),
              allowlist, options);
}

}  // namespace serialcheck::pickle
