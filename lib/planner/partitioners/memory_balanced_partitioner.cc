#include "planner/partitioners/memory_balanced_partitioner.h"

#include <algorithm>
#include <vector>

#include "planner/partitioners/greedy/placement_loads.h"

namespace shardplan {

PartitionOutcome MemoryBalancedPartitioner::partition(const SearchSpace& space, const Proposal& proposal,
                                                      const Topology& storage_constraint,
                                                      PartitionWorkspace* workspace) const {
  PartitionOutcome best = greedy_.partition(space, proposal, storage_constraint, workspace);
  if (!best.ok) return best;
  const int world_size = storage_constraint.world_size;
  const double original_perf = noop_perf_rating(space, proposal, best.placement, world_size);

  std::vector<std::int64_t> hbm_by_rank(static_cast<std::size_t>(std::max(world_size, 1)), 0);
  std::int64_t hbm_requirement = 0;
  std::int64_t max_shard_hbm = 0;
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const ShardingOption& option = space[proposal[i]];
    for (std::size_t j = 0; j < option.shards.size(); ++j) {
      const auto& storage = option.shards[j].storage;
      const int rank = best.placement.rank(i, j);
      if (!storage || rank < 0 || rank >= world_size) continue;
      hbm_by_rank[static_cast<std::size_t>(rank)] += storage->hbm;
      hbm_requirement += storage->hbm;
      max_shard_hbm = std::max(max_shard_hbm, storage->hbm);
    }
  }
  // Search (min, max]: max is the uncapped plan's fullest rank; min is the larger
  // of the average rank (torchrec's int(total / world_size), a float division)
  // and the largest shard.
  std::int64_t max_hbm = *std::max_element(hbm_by_rank.begin(), hbm_by_rank.end());
  const auto avg_hbm =
      static_cast<std::int64_t>(static_cast<double>(hbm_requirement) / static_cast<double>(std::max(world_size, 1)));
  std::int64_t min_hbm = std::max(avg_hbm, max_shard_hbm);

  for (std::int64_t count = 0; count < max_search_count_ && min_hbm + kHbmSearchStepBytes < max_hbm; ++count) {
    const std::int64_t mid_hbm = (max_hbm + min_hbm) / 2;
    PartitionOutcome trial = greedy_.partition_capped(space, proposal, storage_constraint, mid_hbm, workspace);
    if (!trial.ok) {
      min_hbm = mid_hbm;
      continue;
    }
    const double trial_perf = noop_perf_rating(space, proposal, trial.placement, world_size);
    if (trial_perf > original_perf * (1 + tolerance_)) {
      min_hbm = mid_hbm;  // too slow: allow more HBM per device
    } else {
      best.placement = std::move(trial.placement);
      max_hbm = mid_hbm;
    }
  }
  return best;
}

}  // namespace shardplan
