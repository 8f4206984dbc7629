// The two stages of the optimizing search over its starts (greedy's plan and the
// best scratch starts; optimize_plan.cc). Stage 1 runs a short trial search from
// every start (a quarter of the work); stage 2 gives the rest, in equal shares, to
// the trials chosen here, and restarts a trial's search with new seeds while its
// plan is far from the lower bound and the restarts still gain.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/partitioners/optimizing/search_state.h"

namespace shardplan::optimizing {

// Stage-2 trials at most.
inline constexpr std::size_t kStageTwoStarts = 2;
// A trial more than this above the best trial's max-rank perf (relative) stops after
// stage 1 (on scale-T1000-ws8 the second scratch start was 67 % above the first
// after a trial of an eighth of the work).
inline constexpr double kTrialMargin = 0.05;
// Above this gap to the lower bound, stage 2 restarts the search (the work is spent
// where a better plan may exist; near the bound a plan stops when its search stalls).
inline constexpr double kFarFromBound = 0.01;

// The trials that go on to stage 2, as indices into `trials` (each trial's objective
// after stage 1): best first (Objective::better_than; the earlier index on a tie), at
// most kStageTwoStarts, none above the best max by more than kTrialMargin. Empty only
// when `trials` is.
std::vector<std::size_t> stage_two_trials(const std::vector<Objective>& trials);

// Whether a plan rated `max_load` is more than kFarFromBound above `bound`; false when
// the bound is unknown (not positive).
bool far_from_bound(double max_load, double bound);

}  // namespace shardplan::optimizing
