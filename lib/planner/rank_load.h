// What a placed plan puts on each rank: the per-rank totals that the plan file,
// torchrec's stats and the perf model read.
#pragma once

#include <vector>

#include "planner/types.h"

namespace shardplan {

// The load of one rank.
struct RankLoad {
  Storage storage;
  Perf perf;  // component-wise sum of the rank's shard perfs
  int num_shards = 0;
};

// Sums each rank's shards of a placed plan (ranks set on the shards), in plan then
// shard order. Shards without a rank in [0, world_size) are ignored.
std::vector<RankLoad> rank_loads(const std::vector<ShardingOption>& plan, int world_size);

}  // namespace shardplan
