// Where a gate cell's time goes: a per-thread clock that charges each
// instant inside a scope to exactly one phase. A Scope switches the clock to
// its phase and back when it ends, so nested scopes are exclusive (a
// subject's dumps that spends most of its time in the bridge charges that
// part to the bridge, the rest to the subject). Time outside every scope is
// not charged here; the worker reports it as "other" (its time for the cell
// less the phases).
//
// The worker resets the clock for each cell and sends the totals with the
// cell's line (worker.h); conformance.json and the Markdown report show
// them (docs/perf.md, "Where a case's time goes"). Two clock reads per
// scope: a few tens of nanoseconds against cases of hundreds of
// microseconds.
#pragma once

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string_view>

namespace serialcheck::phase {

enum class Phase : std::uint8_t {
  Generate,  // drawing the case (RapidCheck generators, building the value)
  Record,    // the worker's record of each case for the parent (case JSON, the pipe)
  Start,     // making subjects, starting a testee and waiting for its hello
  Subject,   // inside a subject's calls, less the two below
  Bridge,    // values to and from Python objects, or to and from a testee's JSON
  Testee,    // waiting for a testee's answer (its own time plus the pipe)
  Compare,   // comparing values
  Shrink,    // everything after a cell's first failure (finding the minimal case)
};
inline constexpr std::size_t kPhaseCount = 8;
inline constexpr std::array<std::string_view, kPhaseCount> kPhaseNames = {
    "generate", "record", "start", "subject", "bridge", "testee", "compare", "shrink"};

using Totals = std::array<double, kPhaseCount>;  // seconds per phase, in Phase order

namespace detail {
struct State {
  std::array<std::int64_t, kPhaseCount> ns{};
  int current = -1;  // no scope open
  std::int64_t since = 0;
  bool shrinking = false;
};
inline State& state() {
  thread_local State s;
  return s;
}
inline std::int64_t now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}
inline void switch_to(State& s, int next) {
  const std::int64_t t = now_ns();
  if (s.current >= 0) s.ns[static_cast<std::size_t>(s.current)] += t - s.since;
  s.current = next;
  s.since = t;
}
}  // namespace detail

class Scope {
 public:
  explicit Scope(Phase p) {
    detail::State& s = detail::state();
    previous_ = s.current;
    // Shrinking takes everything; so does starting a subject (a testee's
    // hello is a request like any other, but it is part of the start).
    int next = static_cast<int>(p);
    if (s.shrinking) {
      next = static_cast<int>(Phase::Shrink);
    } else if (s.current == static_cast<int>(Phase::Start)) {
      next = s.current;
    }
    detail::switch_to(s, next);
  }
  ~Scope() { detail::switch_to(detail::state(), previous_); }
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

 private:
  int previous_;
};

// From now until reset(), every scope charges Shrink.
inline void start_shrinking() { detail::state().shrinking = true; }

// Zeroes the totals (no scope may be open).
inline void reset() { detail::state() = detail::State{}; }

inline Totals totals() {
  const detail::State& s = detail::state();
  Totals t{};
  for (std::size_t i = 0; i < kPhaseCount; ++i) t[i] = static_cast<double>(s.ns[i]) * 1e-9;
  return t;
}

}  // namespace serialcheck::phase
