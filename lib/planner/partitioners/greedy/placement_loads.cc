#include "planner/partitioners/greedy/placement_loads.h"

#include <algorithm>

namespace shardplan {

std::vector<RankLoad> rank_loads(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
                                 int world_size) {
  std::vector<RankLoad> loads(static_cast<std::size_t>(std::max(world_size, 0)));
  for (std::size_t i = 0; i < proposal.size() && i < placement.size(); ++i) {
    const auto& shards = space[proposal[i]].shards;
    for (std::size_t j = 0; j < shards.size() && j < placement.num_shards(i); ++j) {
      const int rank = placement.rank(i, j);
      if (rank < 0 || rank >= world_size) continue;
      auto& load = loads[static_cast<std::size_t>(rank)];
      load.storage += shards[j].storage.value_or(Storage{});
      load.perf += shards[j].perf.value_or(Perf{});
      ++load.num_shards;
    }
  }
  return loads;
}

double noop_perf_rating(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
                        int world_size) {
  // Sums shard totals (not component sums) per rank, as NoopPerfModel does; the
  // two differ in the last bits.
  std::vector<double> perfs(static_cast<std::size_t>(std::max(world_size, 0)), 0.0);
  for (std::size_t i = 0; i < proposal.size() && i < placement.size(); ++i) {
    const auto& shards = space[proposal[i]].shards;
    for (std::size_t j = 0; j < shards.size() && j < placement.num_shards(i); ++j) {
      const int rank = placement.rank(i, j);
      if (rank < 0 || rank >= world_size) continue;
      perfs[static_cast<std::size_t>(rank)] += shards[j].perf.value_or(Perf{}).total();
    }
  }
  return perfs.empty() ? 0.0 : *std::max_element(perfs.begin(), perfs.end());
}

}  // namespace shardplan
