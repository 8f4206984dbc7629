#include "planner/refiners/optimizing_refiner.h"

#include <fmt/format.h>

#include <string>

#include "planner/partitioners/optimizing/optimize_plan.h"

namespace shardplan {

namespace {

// ", searches on N threads" when the starts' searches ran at once; nothing otherwise.
std::string search_threads_note(int threads) {
  return threads > 1 ? fmt::format(", searches on {} threads", threads) : std::string();
}

}  // namespace

RefinementOutcome OptimizingRefiner::refine(std::vector<ShardingOption>& plan, double& perf_rating,
                                            const std::vector<ShardingOption>& options,
                                            const Topology& reserved) const {
  optimizing::OptimizeOptions search;
  search.time_budget_seconds = time_budget_seconds_;
  search.parallelism = parallelism_;
  optimizing::OptimizeResult improved = optimizing::optimize_plan(plan, options, reserved, search);
  RefinementOutcome out;
  if (improved.improved) {
    plan = std::move(improved.plan);
    perf_rating = improved.perf_rating;
    out.improved = true;
  }
  out.stopped_by_clock = improved.stopped_by_clock;
  out.summary = fmt::format(
      "optimize placement and options ({} of {} work{}, {} scratch starts, best from {}, {} options changed{}{})",
      improved.work_used - improved.travel_work, improved.work_budget,
      improved.travel_work > 0 ? fmt::format(" + {} in stage 3", improved.travel_work) : std::string(),
      improved.scratch_starts, improved.best_start.empty() ? "greedy" : improved.best_start, improved.options_changed,
      search_threads_note(improved.search_threads), improved.stopped_by_clock ? ", stopped by --time-budget" : "");
  return out;
}

RefinementOutcome OptimizingRefiner::search(std::vector<ShardingOption>& plan, double& perf_rating,
                                            const std::vector<ShardingOption>& options,
                                            const Topology& reserved) const {
  optimizing::OptimizeOptions search;
  search.time_budget_seconds = time_budget_seconds_;
  search.parallelism = parallelism_;
  optimizing::OptimizeResult found = optimizing::search_plan(options, reserved, search);
  RefinementOutcome out;
  if (found.improved) {
    plan = std::move(found.plan);
    perf_rating = found.perf_rating;
    out.improved = true;
  }
  out.stopped_by_clock = found.stopped_by_clock;
  out.summary = fmt::format("search every option for a plan ({} of {} work, {} scratch starts, {}{}{})",
                            found.work_used, found.work_budget, found.scratch_starts,
                            out.improved ? "plan found" : "none found", search_threads_note(found.search_threads),
                            found.stopped_by_clock ? ", stopped by --time-budget" : "");
  return out;
}

}  // namespace shardplan
