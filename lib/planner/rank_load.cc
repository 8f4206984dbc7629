#include "planner/rank_load.h"

#include <algorithm>

namespace shardplan {

std::vector<RankLoad> rank_loads(const std::vector<ShardingOption>& plan, int world_size) {
  std::vector<RankLoad> loads(static_cast<std::size_t>(std::max(world_size, 0)));
  for (const auto& option : plan) {
    for (const auto& shard : option.shards) {
      if (!shard.rank || *shard.rank < 0 || *shard.rank >= world_size) continue;
      RankLoad& load = loads[static_cast<std::size_t>(*shard.rank)];
      load.storage += shard.storage.value_or(Storage{});
      load.perf += shard.perf.value_or(Perf{});
      ++load.num_shards;
    }
  }
  return loads;
}

}  // namespace shardplan
