#include "harness/campaign/campaign.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <set>

namespace serialcheck::campaign {

UnitSpec make_unit(const CampaignOptions& options, std::uint64_t seed, const std::string& subject) {
  UnitSpec u;
  u.id = fmt::format("{}/{}", seed, subject);
  u.seed = seed;
  u.subject = subject;
  u.argv = options.run_argv;
  for (std::string a :
       {std::string("--seed"), fmt::format("{}", seed), std::string("--subjects"), subject}) {
    u.argv.push_back(std::move(a));
  }
  return u;
}

CampaignSummary run_campaign(UnitExecutor& executor, FindingsDb& db, const CampaignOptions& options,
                             const std::function<void(const CampaignEvent&)>& on_event) {
  CampaignSummary s;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  std::set<std::string> hit;
  std::uint64_t seed = options.first_seed;
  std::size_t next_subject = 0;
  int started = 0;
  auto event = [&](CampaignEvent e) {
    if (!on_event) return;
    e.units_done = s.units_done;
    e.units_failed = s.units_failed;
    e.running = executor.running();
    e.cases = s.cases;
    e.seconds = elapsed();
    e.findings = static_cast<int>(hit.size());
    on_event(e);
  };
  auto may_start = [&] {
    if (options.stop != nullptr && *options.stop != 0) return false;
    if (options.subjects.empty()) return false;
    if (options.time_budget_s > 0 && elapsed() >= options.time_budget_s) return false;
    if (options.max_units > 0 && started >= options.max_units) return false;
    if (options.max_cases > 0 && s.cases >= options.max_cases) return false;
    return true;
  };
  while (true) {
    while (executor.has_room() && may_start()) {
      UnitSpec unit = make_unit(options, seed, options.subjects[next_subject]);
      if (options.time_budget_s > 0) {
        // The run starts no cell past what is left of the budget.
        unit.argv.push_back("--time-budget");
        unit.argv.push_back(
            fmt::format("{:.0f}", std::max(1.0, options.time_budget_s - elapsed())));
      }
      if (++next_subject == options.subjects.size()) {
        next_subject = 0;
        ++seed;
      }
      executor.start(unit);
      ++started;
      CampaignEvent e;
      e.kind = CampaignEvent::Kind::UnitStarted;
      e.unit = &unit;
      event(e);
    }
    if (options.stop != nullptr && *options.stop != 0) {
      s.stopped = true;
      break;
    }
    if (executor.running() == 0) break;
    for (const auto& doc : executor.poll(0.5)) {
      UnitOutcome u = read_unit_document(doc);
      CampaignEvent e;
      e.outcome = &u;
      if (!u.ok) {
        ++s.units_failed;
        s.unit_errors.push_back(fmt::format("unit {}: {}", u.id, u.why));
        e.kind = CampaignEvent::Kind::UnitFailed;
        event(e);
        continue;
      }
      MergeResult m = db.merge(u.seed, u.cells, u.failures);
      ++s.units_done;
      s.cases += u.cases;
      s.cells_repeated += m.cells_repeated;
      for (const auto& f : u.failures) hit.insert(finding_id(f.subject, f.property, f.fingerprint));
      e.kind = CampaignEvent::Kind::UnitDone;
      event(e);
      for (const Finding& f : m.created) {
        CampaignEvent n;
        n.kind = CampaignEvent::Kind::NewFinding;
        n.finding = &f;
        event(n);
        s.created.push_back(f);
      }
    }
    CampaignEvent tick;
    tick.kind = CampaignEvent::Kind::Tick;
    event(tick);
  }
  executor.stop();
  s.seconds = elapsed();
  s.next_seed = next_subject == 0 ? seed : seed + 1;
  s.hit_ids.assign(hit.begin(), hit.end());
  return s;
}

}  // namespace serialcheck::campaign
