#include "planner/perf_model.h"

#include <algorithm>
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

}  // namespace shardplan
