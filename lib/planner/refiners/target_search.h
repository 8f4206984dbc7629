// A phase of the optimizing search (issue 30): ruin and recreate toward a target
// max-rank perf below the best plan's, scored by the overflow over that target.
//
// The local search scores a change by (max rank load, sum of squares): a change
// that frees every rank a little (a uniform table turned into a one-rank table)
// or that empties a host for a table_row_wise table does not lower the max until
// many such changes are made together, so it is refused. Scored by the overflow
// (the sum over ranks of the load above the target), each of those steps counts:
// the overflow falls as soon as any overloaded rank gets lighter. When the
// overflow reaches 0 every rank is within the target: that plan is kept and the
// target is lowered below it. Ruins take the tables of an overloaded rank (any
// rule, uniform ones included) and those of two random ranks or of a random other
// host; each table is put back, heaviest first, with the option whose greedy
// placement (SearchState::greedy_ranks) leaves the least overflow.
//
// Deterministic: a fixed seed and a work budget (option evaluations and rank scans).
#pragma once

#include <chrono>
#include <cstdint>

#include "planner/partitioners/optimizing/search_state.h"

namespace shardplan::optimizing {

// The target below the best max-rank perf so far, as a fraction of it.
inline constexpr double kTargetStep = 0.002;

// Runs the phase on the placed `state` for `budget` work (added to `work`), or
// until 400 rounds in a row gain nothing, or until the clock passes `deadline`
// (the --time-budget safety cap; then `stopped_by_clock` is set). On return
// `state` holds the best plan found if its max load is lower than the input's
// (true), else the input plan (false).
bool target_search(SearchState& state, std::int64_t budget, std::uint64_t seed,
                   std::chrono::steady_clock::time_point deadline, std::int64_t& work, bool& stopped_by_clock);

}  // namespace shardplan::optimizing
