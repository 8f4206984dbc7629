// The last step of `--partitioner optimizing` (issue 30): after the optimizing
// search and the lower bound, an exact search (exact_search.h) over the same
// options and reserved capacities either finds a strictly better plan (which
// then replaces the plan), or proves the plan optimal, or, when its work budget
// ends first, leaves an integral bound that joins the LP-type ones as
// `branch_and_bound` (it binds only where it is tighter).
#pragma once

#include <string>
#include <vector>

#include "planner/bounds/lower_bound.h"
#include "planner/types.h"

namespace shardplan::exact {

// What the step did, for the phase times.
struct ProofOutcome {
  bool improved = false;          // the plan was replaced by a strictly better one
  std::string summary;            // "exact search (...)"
  bool stopped_by_clock = false;  // the wall-clock cap, not the work budget, ended the search
};

// Searches `plan`'s instance (the options of `search_space` and of `plan`, by
// table; `reserved` capacities); `bound` is the plan's lower bound (computed and
// clamped to `perf_rating`), which gains the exact search's facts. A better plan
// replaces `plan` (same tables, same order) and `perf_rating` (NoopPerfModel's
// rating). `time_budget_seconds` <= 0 skips the search and leaves
// `bound` as it is (--time-budget 0); otherwise it caps the search's wall time.
ProofOutcome prove_plan(std::vector<ShardingOption>& plan, double& perf_rating,
                        const std::vector<ShardingOption>& search_space, const Topology& reserved, LowerBound& bound,
                        double time_budget_seconds);

}  // namespace shardplan::exact
