// The known-failures file: the failures a project accepts for now, one per
// line, `SUBJECT PROPERTY FINGERPRINT REASON...` (`*` and `?` globs in
// SUBJECT and PROPERTY; a line whose first non-blank character is `#` is a
// comment, and a `#` anywhere else belongs to the entry's reason). As in protobuf's conformance
// runner the list can only shrink: a listed failure is an expected fail, but
// a new failure, a changed fingerprint, an unexpected pass or a stale entry
// fails the run, and the run prints the exact lines to add or remove.
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/report/results.h"
#include "reference/common/error.h"

namespace serialcheck {

struct KnownFailure {
  std::string subject;      // may hold globs
  std::string property;     // may hold globs
  std::string fingerprint;  // exact
  std::string reason;
  int line = 0;     // 1-based line in the file
  std::string raw;  // the line as written (empty for entries not read from a file)

  bool exact() const;  // no glob in subject or property
  bool matches(std::string_view subject, std::string_view property) const;
  std::string text() const;  // the line as written, or as it should be written
};

// A serialcheck::Error of kind "known-failures"; what() is the message.
class KnownFailuresError : public Error {
 public:
  explicit KnownFailuresError(std::string message) : Error("known-failures", std::move(message)) {}
};

// Throws KnownFailuresError naming the line of a malformed entry (fewer than
// four fields).
std::vector<KnownFailure> parse_known_failures(std::string_view text);

// What a cell that just finished is, as far as the list can tell before the
// run ends: a failure an entry lists is "expected fail", any other failure
// "fail"; other verdicts as they are (an unexpected pass or a stale entry is
// decided only when every cell has run).
Verdict listed_verdict(const std::vector<KnownFailure>& known, const CellResult& cell);

// Asked about a listed failure that no cell of this run showed: the path of
// a saved case of it that still fails with its fingerprint, or nullopt.
using ConfirmFailure =
    std::function<std::optional<std::string>(const KnownFailure&, const CellResult&)>;

// Sets each cell's verdict from its raw result (Pass, Fail or Skip) and the
// list, and fills report.lines_to_add / lines_to_remove:
// - a failed cell whose fingerprint a matching entry lists -> ExpectedFail;
// - any other failed cell -> Fail, and its line is to be added;
// - an entry whose fingerprint a matching cell passed over
//   (CellResult::passed_over) is used: that cell stays as it is (a pass
//   when nothing unlisted failed), and the entry is not stale;
// - an entry no failed cell used, but that matches a cell that ran, is
//   offered to `confirm` (for each such cell in turn): when a saved case
//   still fails that way the entry holds (a passing cell becomes
//   ExpectedFail: random cases need not hit a failure every run);
// - otherwise the entry is stale and is to be removed, and a passing cell
//   that it names exactly (no globs) is an UnexpectedPass. Entries matching
//   only cells that did not run here (other shards, filters, skips) are not
//   judged.
// With `judges`, an entry with a glob is judged (confirmed, or found stale)
// only on the cells `judges` accepts for it: a run of some subjects does not
// call "* cross.stdlib/cpython ..." stale because the subjects it ran never
// failed that way (the command's answer: those with a saved case of it).
// A failed cell still uses any entry that matches it.
using JudgesEntry = std::function<bool(const KnownFailure&, const CellResult&)>;
void apply_known_failures(const std::vector<KnownFailure>& known, RunReport& report,
                          const ConfirmFailure& confirm = {}, const JudgesEntry& judges = {});

// Shell-style match of `text` against `pattern` (`*`, `?`, `[...]`).
bool glob_match(std::string_view pattern, std::string_view text);

}  // namespace serialcheck
