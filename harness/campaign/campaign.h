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

// The unit for `seed` and `subject`.
UnitSpec make_unit(const CampaignOptions& options, std::uint64_t seed, const std::string& subject);

CampaignSummary run_campaign(UnitExecutor& executor, FindingsDb& db, const CampaignOptions& options,
                             const std::function<void(const CampaignEvent&)>& on_event = {});

}  // namespace serialcheck::campaign
