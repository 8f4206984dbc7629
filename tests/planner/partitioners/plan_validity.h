// A checker of placed plans, independent of any partitioner: recomputes storage
// per rank against the reserved capacities and checks each option's partition_by
// rule as torchrec's partitioners.py places it (uniform: shard k on rank k;
// host: all shards on one host, table_row_wise shard k on its local device k;
// multi_host (grid_shard): each group of local_world_size shards on one host,
// shard k of a group on local device k; device: any rank).
#pragma once

#include <string>
#include <vector>

#include "planner/types.h"

namespace shardplan::testing {

// `world_size` devices of `capacity` each, `per_host` to a host, ranks 0..n-1.
Topology uniform_topology(int world_size, int per_host, Storage capacity);

// The first rule `plan` breaks on `reserved` (shard ranks must be set), or "".
std::string plan_violation(const std::vector<ShardingOption>& plan, const Topology& reserved);

}  // namespace shardplan::testing
