#include "planner/exact/prove_plan.h"

#include <algorithm>
#include <map>

#include <fmt/format.h>

#include "planner/bounds/packing_bound.h"
#include "planner/bounds/pruned_forced_load.h"
#include "planner/exact/exact_search.h"
#include "planner/partitioners/optimizing/optimize_plan.h"

namespace shardplan::exact {

ProofOutcome prove_plan(std::vector<ShardingOption>& plan, double& perf_rating,
                        const std::vector<ShardingOption>& search_space, const Topology& reserved, LowerBound& bound,
                        double time_budget_seconds) {
  ProofOutcome out;
  ExactSearchFacts facts;
  if (time_budget_seconds <= 0) {  // --time-budget 0: no search, the outputs stay greedy's
    out.summary = "exact search (off: --time-budget 0)";
    return out;
  }
  if (!bound.feasible || plan.empty()) {
    out.summary = "exact search (not run: no bound)";
    bound.exact = facts;
    return out;
  }
  if (perf_rating <= bound.value) {
    facts.complete = true;  // the LP-type bound already proves the plan optimal
    out.summary = "exact search (not needed: the plan meets the bound)";
    bound.exact = facts;
    return out;
  }
  const BoundInput input = bound_input(search_space, plan, reserved);
  // The packing bound (packing_bound.h), on the instances the exact search would
  // search: where it meets the plan, the plan is proven optimal and no search is needed.
  if (exact_searchable(input)) {
    // Adds a bound of `kind`; true when it meets the plan (then proven optimal, no search).
    auto meets_plan = [&](BoundKind kind, double value, const char* summary) {
      bound.bounds.push_back({kind, value});
      if (value > bound.value) {
        bound.value = value;
        bound.binding = kind;
      }
      if (!(perf_rating <= bound.value)) return false;
      facts.complete = true;
      out.summary = summary;
      bound.exact = facts;
      return true;
    };
    const double packing = std::min(packing_bound(packing_instance(input), perf_rating), perf_rating);
    if (meets_plan(BoundKind::kPacking, packing, "exact search (not needed: the packing bound meets the plan)"))
      return out;
    // The pruned forced-load bound (pruned_forced_load.h): memory priced per rank.
    const double pruned = std::min(pruned_forced_bound(pruned_instance(input), bound.value, perf_rating), perf_rating);
    if (meets_plan(BoundKind::kPrunedForcedLoad, pruned,
                   "exact search (not needed: the pruned_forced_load bound meets the plan)"))
      return out;
  }
  ExactOptions options;
  options.incumbent = perf_rating;
  options.floor = bound.value;
  options.time_budget_seconds = time_budget_seconds;
  const ExactResult result = exact_search(input, options);
  facts.searched = result.searched;
  facts.nodes = result.nodes;
  if (!result.searched) {
    out.summary = "exact search (not run: too large)";
    bound.exact = facts;
    return out;
  }
  if (result.found_better()) {
    // BoundInput's tables in plan order: find each plan table's by fqn.
    std::map<std::string, std::size_t> table_of;
    for (std::size_t i = 0; i < input.tables.size(); ++i) table_of.emplace(input.tables[i].front()->fqn(), i);
    std::vector<ShardingOption> better;
    better.reserve(plan.size());
    for (const ShardingOption& old : plan) {
      const std::size_t i = table_of.at(old.fqn());
      ShardingOption& option = better.emplace_back(*result.options[i]);
      option.shards.with_ranks([&](std::size_t j) { return result.ranks[i][j]; });
    }
    const int world_size = static_cast<int>(reserved.devices.size());
    const double rating = optimizing::max_rank_perf(better, world_size);
    if (rating < perf_rating) {  // rated as the planner rates: keep only a real gain
      plan = std::move(better);
      perf_rating = rating;
      out.improved = true;
    }
  }
  // The proof holds for the search's own sums: the plan's rating sums the same
  // shards in the planner's order, so a complete search proves exactly it.
  const double integral = result.complete ? perf_rating : std::min(result.bound, perf_rating);
  facts.complete = result.complete;
  bound.bounds.push_back({BoundKind::kBranchAndBound, integral});
  if (integral > bound.value) {
    bound.value = integral;
    bound.binding = BoundKind::kBranchAndBound;
  }
  clamp_to_plan(bound, perf_rating);
  bound.exact = facts;
  out.stopped_by_clock = result.stopped_by_clock;
  out.summary =
      fmt::format("exact search ({} nodes, {} of {} work{}{}{})", result.nodes, result.work_used, result.work_budget,
                  result.complete ? ", complete" : ", budget spent", out.improved ? ", found a better plan" : "",
                  result.stopped_by_clock ? ", stopped by --time-budget" : "");
  return out;
}

}  // namespace shardplan::exact
