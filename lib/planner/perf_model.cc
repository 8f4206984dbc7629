#include "planner/perf_model.h"

#include <algorithm>
#include <cmath>
#include <span>

namespace shardplan {

double NoopPerfModel::rate(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
                           int world_size) const {
  std::vector<double> perfs(static_cast<std::size_t>(std::max(world_size, 0)), 0.0);
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const OptionId id = proposal[i];
    const int from = placement.consecutive_from(i);
    const std::span<const int> ranks = placement.ranks_of(i);
    const std::size_t n = placement.num_shards(i);
    const double* totals = space.shard_perf_totals(id);
    const bool single = space.single_perf_total(id);
    if (from >= 0) {  // one shard per rank from `from` on: loops the compiler vectorises
      double* __restrict at = perfs.data() + from;
      if (single) {
        const double total = totals[0];  // a local: `at` cannot alias it
        for (std::size_t j = 0; j < n; ++j) at[j] += total;
      } else {
        const double* __restrict each = totals;
        for (std::size_t j = 0; j < n; ++j) at[j] += each[j];
      }
    } else if (single) {
      for (int rank : ranks) perfs[static_cast<std::size_t>(rank)] += totals[0];
    } else {
      for (std::size_t j = 0; j < n; ++j) perfs[static_cast<std::size_t>(ranks[j])] += totals[j];
    }
  }
  return perfs.empty() ? 0.0 : *std::max_element(perfs.begin(), perfs.end());
}

bool NoopPerfModel::rated_above(const SearchSpace& space, const PartitionOutcome& outcome, double cutoff) const {
  if (!outcome.ok || std::isnan(outcome.largest_rank_load) || !space.perfs_finite_nonnegative()) return false;
  // A rank sums at most every shard of the proposal: options x the most shards of one.
  const double terms =
      static_cast<double>(outcome.placement.size()) * static_cast<double>(space.max_option_shards()) + 8;
  const double slack = 8 * terms * 0x1p-53;
  if (!(slack < 0x1p-20)) return false;
  return outcome.largest_rank_load * (1 - slack) > cutoff;
}

}  // namespace shardplan
