// `serialcheck campaign`'s loop (docs/campaigns.md): units of `serialcheck
// run` over a stream of fresh seeds, run by an executor (units.h), each
// unit's cells merged into the findings database as it ends, until a time,
// case or unit budget, or a stop request (Ctrl-C).
#pragma once

#include <csignal>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "harness/campaign/findings_db.h"
#include "harness/campaign/units.h"

namespace serialcheck::campaign {

struct CampaignOptions {
  std::vector<std::string> subjects;  // one unit for each seed and subject, in this order
  // The unit's command: `serialcheck run` with the campaign's options, to
  // which each unit adds --seed and --subjects (unit_argv).
  std::vector<std::string> run_argv;
  // The known-failures list the campaign judges by (its text); each unit
  // gets it, a line for every finding the database held at the start, and
  // one for every finding of the units at seeds up to kListingLag before
  // its own, as its file kUnitKnownFailures, and looks past what it lists
  // (run --look-past-known): a failure found once does not hide the others
  // of its cell again. What a unit is given depends on the seeds alone, so
  // the same seeds find the same on every executor.
  std::string known_failures_text;
  // Matrix producers a unit adds beyond its subject, the reference and
  // cpython: this many of the other campaign subjects, taken in turn as the
  // seeds go on, so that every pair is checked every few seeds. Zero: every
  // other campaign subject in every unit.
  int producers_per_unit = 2;
  std::uint64_t first_seed = 0;                      // seeds first_seed, first_seed + 1, ...
  double time_budget_s = 0;                          // 0: none
  long max_cases = 0;                                // 0: none
  int max_units = 0;                                 // 0: none
  const volatile std::sig_atomic_t* stop = nullptr;  // nonzero: stop now
};

struct CampaignEvent {
  enum class Kind { UnitStarted, UnitDone, UnitFailed, NewFinding, Tick };
  Kind kind = Kind::Tick;
  const UnitSpec* unit = nullptr;        // UnitStarted
  const UnitOutcome* outcome = nullptr;  // UnitDone, UnitFailed
  const Finding* finding = nullptr;      // NewFinding
  int units_done = 0;
  int units_failed = 0;
  int running = 0;
  long cases = 0;
  double seconds = 0;
  int findings = 0;  // distinct findings this campaign hit
};

struct CampaignSummary {
  int units_done = 0;
  int units_failed = 0;
  int cells_repeated = 0;  // cells the database had merged before (not counted again)
  long cases = 0;
  double seconds = 0;
  std::uint64_t next_seed = 0;       // the first seed no unit was started for
  std::vector<Finding> created;      // findings new to the database
  std::vector<std::string> hit_ids;  // every finding this campaign hit
  std::vector<std::string> unit_errors;
  bool stopped = false;  // by a stop request
};

// A unit at seed S looks past the findings of the units at seeds up to
// S - kListingLag, and starts only once they have all ended.
inline constexpr std::uint64_t kListingLag = 2;

// The name of a unit's known-failures file, in its folder.
inline constexpr const char* kUnitKnownFailures = "known-failures.txt";

// The further matrix producers of the unit for `seed` and the subject at
// `index` in `subjects` (CampaignOptions::producers_per_unit).
std::vector<std::string> unit_producers(const std::vector<std::string>& subjects, std::size_t index,
                                        std::uint64_t seed, int per_unit);

// A known-failures line for a finding, so that units look past it.
std::string finding_listing(const Finding& f);

// The unit for `seed` and `subject`, judging by `known_failures_text`.
UnitSpec make_unit(const CampaignOptions& options, std::uint64_t seed, const std::string& subject,
                   const std::string& known_failures_text);

CampaignSummary run_campaign(UnitExecutor& executor, FindingsDb& db, const CampaignOptions& options,
                             const std::function<void(const CampaignEvent&)>& on_event = {});

}  // namespace serialcheck::campaign
