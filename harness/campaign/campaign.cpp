#include "harness/campaign/campaign.h"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <map>
#include <set>

namespace serialcheck::campaign {

std::vector<std::string> unit_producers(const std::vector<std::string>& subjects, std::size_t index,
                                        std::uint64_t seed, int per_unit) {
  std::vector<std::string> out;
  const std::size_t others = subjects.size() > 0 ? subjects.size() - 1 : 0;
  if (others == 0 || index >= subjects.size()) return out;
  const std::size_t take =
      per_unit <= 0 ? others : std::min<std::size_t>(others, static_cast<std::size_t>(per_unit));
  // Seed s takes the others at turns s*take .. s*take+take-1 (mod their
  // count), counted from the subject after this one: consecutive seeds
  // go round all of them.
  const std::uint64_t first = (seed % others) * take;
  for (std::size_t k = 0; k < take; ++k) {
    const std::size_t turn = static_cast<std::size_t>((first + k) % others);
    out.push_back(subjects[(index + 1 + turn) % subjects.size()]);
  }
  return out;
}

std::string finding_listing(const Finding& f) {
  return fmt::format("{} {} {} found by a campaign (finding {}, first seed {})", f.subject,
                     f.property, f.fingerprint, f.id, f.first_seed);
}

UnitSpec make_unit(const CampaignOptions& options, std::uint64_t seed, const std::string& subject,
                   const std::string& known_failures_text) {
  UnitSpec u;
  u.id = fmt::format("{}/{}", seed, subject);
  u.seed = seed;
  u.subject = subject;
  u.argv = options.run_argv;
  for (std::string a :
       {std::string("--seed"), fmt::format("{}", seed), std::string("--subjects"), subject,
        std::string("--known-failures"), fmt::format("{}/{}", kUnitDir, kUnitKnownFailures),
        std::string("--look-past-known")}) {
    u.argv.push_back(std::move(a));
  }
  const auto at = std::find(options.subjects.begin(), options.subjects.end(), subject);
  const auto producers =
      unit_producers(options.subjects, static_cast<std::size_t>(at - options.subjects.begin()),
                     seed, options.producers_per_unit);
  if (!producers.empty()) {
    std::string list;
    for (const auto& p : producers) list += (list.empty() ? "" : ",") + p;
    u.argv.push_back("--producers");
    u.argv.push_back(list);
  }
  u.files[kUnitKnownFailures] = known_failures_text;
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
  // The units' list: the campaign's, then every finding of the database as
  // it was at the start, then the findings this campaign's units made, by
  // the seed of the unit that made them (listing_for).
  std::string listing = options.known_failures_text;
  if (!listing.empty() && listing.back() != '\n') listing += '\n';
  listing += "# the findings database\n";
  for (const Finding& f : db.findings()) listing += finding_listing(f) + "\n";
  std::map<std::uint64_t, std::string> found_at;  // seed -> lines of the findings its units made
  std::map<std::uint64_t, int> open;              // seed -> its units started and not ended
  std::map<std::string, std::uint64_t> seed_of;   // unit id -> seed, while it runs
  // A unit at seed s looks past what the units at seeds up to s - lag found,
  // once every one of them has ended: what it is given then depends on the
  // seeds alone, not on which unit ended first, so every executor finds
  // the same. The lag lets the next seed start while a seed's last units
  // run.
  auto ready = [&](std::uint64_t at_seed) {
    if (at_seed < options.first_seed + kListingLag) return true;
    return open.empty() || open.begin()->first > at_seed - kListingLag;
  };
  auto listing_for = [&](std::uint64_t at_seed) {
    std::string out = listing;
    for (const auto& [at, lines] : found_at) {
      if (at + kListingLag > at_seed) break;
      out += lines;
    }
    return out;
  };
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
    return ready(seed);
  };
  while (true) {
    while (executor.has_room() && may_start()) {
      UnitSpec unit = make_unit(options, seed, options.subjects[next_subject], listing_for(seed));
      ++open[seed];
      seed_of[unit.id] = seed;
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
      // A unit that wrote no report has ended too.
      std::uint64_t unit_seed = u.seed;
      if (auto started_at = seed_of.find(u.id); started_at != seed_of.end()) {
        unit_seed = started_at->second;
        seed_of.erase(started_at);
        if (auto it = open.find(unit_seed); it != open.end() && --it->second <= 0) open.erase(it);
      }
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
        found_at[unit_seed] += finding_listing(f) + "\n";
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
