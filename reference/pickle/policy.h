// The safe-loading policy: an allowlist of the globals a stream may name and
// whether it may carry persistent ids. The decoder, given one, refuses any
// other global (ForbiddenGlobal) and any persistent id it does not allow
// (ForbiddenPersistentId) at the opcode that names it; `scan` marks every
// entry against one. docs/safe-loading.md says what the default list holds
// and why a list of names is enough.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>
#include <vector>

#include "reference/common/error.h"
#include "reference/value/value.h"

namespace serialcheck::pickle {

// A malformed allowlist entry or file; the message names the source and line.
// A serialcheck::Error of kind "allowlist"; what() is the message.
class AllowlistError : public Error {
 public:
  explicit AllowlistError(std::string message) : Error("allowlist", std::move(message)) {}
};

class Allowlist {
 public:
  // Allows module.qualname exactly: a stream naming the same object with
  // another split of the dots (module "a", name "b.c" for "a.b.c") is not
  // allowed, since Python may resolve that to another object.
  void allow(std::string module, std::string qualname);
  // "module.qualname" (split at the last dot) or "module:qualname" (for a
  // nested qualname such as "pkg.mod:Outer.Inner"). Throws AllowlistError.
  void allow(std::string_view entry);
  // Entries one per line; '#' starts a comment, blank lines are skipped.
  // Throws AllowlistError naming `source` and the line.
  void add_text(std::string_view text, std::string_view source = "<text>");
  // add_text of a file's contents; throws AllowlistError when unreadable.
  void add_file(const std::string& path);
  void merge(const Allowlist& other);

  bool allows(std::string_view module, std::string_view qualname) const;
  bool empty() const { return entries_.empty(); }
  std::size_t size() const { return entries_.size(); }
  // (module, qualname) pairs, sorted.
  std::vector<std::pair<std::string, std::string>> entries() const;

  // Whether PERSID/BINPERSID may appear. A persistent id hands its value to
  // the application's persistent_load, which the policy cannot see into.
  bool persistent_ids = false;

 private:
  static std::string key(std::string_view module, std::string_view qualname);
  std::unordered_set<std::string> keys_;
  std::vector<std::pair<std::string, std::string>> entries_;
};

// The default policy: builtin containers and their low-protocol reduce forms,
// datetime, numpy arrays, dtypes and scalars, and the tensor forms of torch.
// No persistent ids. Not cloudpickle's subimport: it imports modules.
Allowlist default_allowlist();

// A short one-line text of a value for messages and scan reports: Python
// repr-like, cut at about `max_chars` characters. Its cost is bounded by
// max_chars, however large or cyclic the value.
std::string describe_value(const Node* node, std::size_t max_chars = 80);

}  // namespace serialcheck::pickle
