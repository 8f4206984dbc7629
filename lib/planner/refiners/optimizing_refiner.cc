#include "planner/refiners/optimizing_refiner.h"

#include <fmt/format.h>

#include "planner/partitioners/optimizing/optimize_plan.h"

namespace shardplan {

RefinementOutcome OptimizingRefiner::refine(std::vector<ShardingOption>& plan, double& perf_rating,
                                            const std::vector<ShardingOption>& options,
                                            const Topology& reserved) const {
  optimizing::OptimizeOptions search;
  search.time_budget_seconds = time_budget_seconds_;
  optimizing::OptimizeResult improved = optimizing::optimize_plan(plan, options, reserved, search);
  RefinementOutcome out;
  if (improved.improved) {
    plan = std::move(improved.plan);
    perf_rating = improved.perf_rating;
    out.improved = true;
  }
  out.summary = fmt::format("optimize placement and options ({} of {} work, {} options changed{})",
                            improved.work_used, improved.work_budget, improved.options_changed,
                            improved.stopped_by_clock ? ", stopped by --time-budget" : "");
  return out;
}

}  // namespace shardplan
