// The refinement behind `--partitioner optimizing`: the proposal loop places every
// proposal exactly as torchrec's GreedyPerfPartitioner does (so proposals are rated
// and chosen as torchrec chooses them); this stage then hands the best plan to
// optimize_plan (partitioners/optimizing/optimize_plan.h), which improves its
// placement and its options together, starting from greedy's.
//
// Why the option search is not a proposer: a proposer only sees one rating per
// proposal and every proposal costs a whole partition, while changing one
// table's option next to the bottleneck is an incremental step of the placement
// search (a few ranks' loads change). Searching options inside the placement
// search makes each step cost a few evaluations instead of a full partition.
#pragma once

#include "planner/parallelism.h"
#include "planner/types.h"

namespace shardplan {

class OptimizingRefiner final : public PlanRefiner {
 public:
  // The search stops after its work budget or `time_budget_seconds` (--time-budget).
  // Past 32 000 tables x ranks the searches from its starts run on the threads of
  // `parallelism` (the plan is the same for any count).
  explicit OptimizingRefiner(double time_budget_seconds, Parallelism parallelism = {})
      : time_budget_seconds_(time_budget_seconds), parallelism_(parallelism) {}

  RefinementOutcome refine(std::vector<ShardingOption>& plan, double& perf_rating,
                           const std::vector<ShardingOption>& options, const Topology& reserved) const override;
  // Searches every option from scratch (optimize_plan.h's search_plan).
  RefinementOutcome search(std::vector<ShardingOption>& plan, double& perf_rating,
                           const std::vector<ShardingOption>& options, const Topology& reserved) const override;

 private:
  double time_budget_seconds_;
  Parallelism parallelism_;
};

}  // namespace shardplan
