// The findings database of `serialcheck campaign` (docs/campaigns.md): one
// directory that campaigns append to and `serialcheck findings` reads.
//
//   DIR/findings/<id>.json   one finding: (subject, property, fingerprint),
//                            its first seed, hits, versions, status
//   DIR/cases/...            each finding's smallest case, in corpus/failing's
//                            layout (harness/corpus/corpus.h): replayable as is
//   DIR/seeds/<seed>.tsv     the cells merged at that seed, one key a line, so
//                            a cell merged twice (a unit retried, a campaign
//                            started again) counts once
//   DIR/lock                 flock(2)ed around every change
//
// Every change takes the lock and writes each file whole (a temporary file
// renamed over it), so two campaigns writing one database at once lose
// nothing and a reader never sees half a file.
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "harness/props/case.h"
#include "harness/report/known_failures.h"

namespace serialcheck::campaign {

constexpr std::string_view kFindingFormat = "serialcheck-finding/1";

struct Finding {
  std::string id;  // 12 hex digits of (subject, property, fingerprint)
  std::string subject;
  std::string property;
  std::string fingerprint;
  std::string message;  // the message of the case kept
  // The lowest seed that hit it: the first a campaign counting up meets,
  // whichever of its units ended first.
  std::uint64_t first_seed = 0;
  std::string first_seen;  // UTC, ISO 8601
  std::string last_seen;
  int hits = 0;                       // failed cells, each (seed, cell) counted once
  std::vector<std::uint64_t> seeds;   // the first kMaxSeeds seeds that hit it
  std::vector<std::string> versions;  // the subject's Python versions it was seen on
  std::string case_file;              // relative to the database; "" when none was saved
  std::size_t case_size = 0;          // bytes of the kept case's value (canonical JSON)
  bool gone = false;    // its case no longer failed that way when replayed, and no hit since
  std::string checked;  // when its case was last replayed; "" never

  static constexpr std::size_t kMaxSeeds = 20;
  // "new" (not listed), "known" (a known-failures entry lists it) or "gone".
  std::string status(const std::vector<KnownFailure>& known) const;
  bool listed(const std::vector<KnownFailure>& known) const;
};

// One failed cell of a unit, as the unit's report and saved case give it.
struct CellFinding {
  std::string subject;
  std::string property;
  std::string fingerprint;
  std::string message;
  std::string version;               // the subject's Python version, or ""
  std::optional<CaseRecord> record;  // its minimal case, when one was saved
};

// The key of one checked cell: a cell with the same key is the same cases.
struct CellKey {
  std::uint64_t seed = 0;
  std::string subject;
  std::string property;
  int cases = 0;
  int max_size = 0;
  std::string text() const;  // "subject\tproperty\tcases\tmax_size"
};

// What merging one unit's cells changed.
struct MergeResult {
  std::vector<Finding> created;  // findings the database did not have
  int cells_merged = 0;          // cells counted (not merged before)
  int cells_repeated = 0;        // cells already merged, left alone
};

// A typed error of the database: what was wrong and which file.
class DatabaseError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

std::string finding_id(std::string_view subject, std::string_view property,
                       std::string_view fingerprint);

class FindingsDb {
 public:
  // Opens the database at `dir`, creating it when missing. Throws
  // DatabaseError when `dir` is not a directory or cannot be written.
  explicit FindingsDb(std::filesystem::path dir);

  const std::filesystem::path& dir() const { return dir_; }

  // Merges the cells one unit checked at `seed` (every one of them, failed
  // or not, so that a repeat is known) and the failures among them. A cell
  // merged before adds nothing; a failure adds a hit to its finding, or
  // creates it, and keeps the smaller of the two cases.
  MergeResult merge(std::uint64_t seed, const std::vector<CellKey>& cells,
                    const std::vector<CellFinding>& failures);

  // Every finding, in (subject, property, fingerprint) order. A finding file
  // that cannot be read is skipped and named in `problems`.
  std::vector<Finding> findings(std::vector<std::string>* problems = nullptr) const;

  // The finding whose id starts with `prefix` (4 digits at least). Throws
  // DatabaseError when none or several do.
  Finding find(std::string_view prefix) const;

  // Records a replay of a finding's case: `still_fails` false marks it gone,
  // true marks it back (not gone).
  void set_checked(const std::string& id, bool still_fails);

  // How many cells and seeds the database has merged.
  struct Totals {
    int seeds = 0;
    int cells = 0;
  };
  Totals totals() const;

  // The absolute path of a finding's case file.
  std::filesystem::path case_path(const Finding& f) const { return dir_ / f.case_file; }

 private:
  std::filesystem::path finding_path(const std::string& id) const;
  std::optional<Finding> read_finding(const std::filesystem::path& path) const;
  void write_finding(const Finding& f) const;

  std::filesystem::path dir_;
};

nlohmann::json finding_to_json(const Finding& f);
// Throws DatabaseError naming the bad field.
Finding finding_from_json(const nlohmann::json& j);

// Now, UTC, as "2026-12-07T20:31:05Z".
std::string utc_now();

}  // namespace serialcheck::campaign
