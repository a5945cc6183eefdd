// The greedy value shrinker the runner uses for cases that crash or hang a
// worker, where RapidCheck's own shrinking cannot run (its process is gone).
// Each candidate is a fresh copy, simpler than the case in one step; the
// runner tries them in order in fresh workers and keeps the first that
// still fails the same way, then asks for that one's candidates.
#pragma once

#include <cstddef>
#include <functional>
#include <vector>

#include "harness/props/case.h"

namespace serialcheck {

// Simpler variants of `c`, most promising first: in-band buffers instead of
// out-of-band; each non-atom child of the root as the new root; half of a
// container's items removed; one container item (list/tuple/set/frozenset
// item, dict pair, object list or dict item) removed; each atom child as the
// root; one scalar made simpler (int and float to 0, True to False,
// str/bytes/bytearray/buffer payloads emptied or halved; dict keys and set
// items are left alone so that no duplicates appear). At most `limit`.
std::vector<TestCase> shrink_candidates(const TestCase& c, std::size_t limit = 400);

// Shrinks `c` greedily: while some candidate satisfies `still_fails`, moves
// to the first such candidate. Stops after `max_attempts` calls. Returns the
// smallest case found (`c` itself when no candidate fails).
TestCase shrink_greedily(const TestCase& c, const std::function<bool(const TestCase&)>& still_fails,
                         int max_attempts, int* attempts_used = nullptr);

// A size measure that every candidate decreases: reachable nodes plus
// payload bytes plus non-zero scalars.
std::size_t case_size(const TestCase& c);

}  // namespace serialcheck
