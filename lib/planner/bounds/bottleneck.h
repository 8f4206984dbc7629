// Where a placed plan's max-rank perf comes from: the bottleneck rank and the
// tables that load it most (for `explain` and the human summary).
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// One table's share of the bottleneck rank.
struct BottleneckTable {
  std::string fqn;
  ShardingType sharding_type = ShardingType::kTableWise;
  ComputeKernel compute_kernel = ComputeKernel::kFused;
  double perf = 0;     // sum of the perf totals of its shards on the rank (ms)
  int num_shards = 0;  // its shards on the rank
};

// The rank with the largest perf total and its heaviest tables.
struct Bottleneck {
  int rank = -1;                        // -1 for a plan with no placed shard
  double perf = 0;                      // that rank's total (the NoopPerfModel rating), ms
  double mean_perf = 0;                 // mean over all ranks, ms
  int num_tables = 0;                   // tables with a shard on the rank
  std::vector<BottleneckTable> tables;  // heaviest first (plan order on a tie), at most `top`
};

// The bottleneck of `plan` (shard ranks set) on `world_size` ranks: the lowest
// rank among those of largest total, summing shard totals in plan then shard
// order as NoopPerfModel does; its `top` heaviest tables.
Bottleneck find_bottleneck(const std::vector<ShardingOption>& plan, int world_size, std::size_t top = 5);

}  // namespace shardplan
