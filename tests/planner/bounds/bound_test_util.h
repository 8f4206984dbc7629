// Small bound instances for the tests: options built from (perf, storage) per
// shard, a reserved topology, and the exact optimum by exhaustive search.
#pragma once

#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "planner/bounds/lower_bound.h"
#include "planner/types.h"

namespace shardplan::testing {

// One shard's perf total (ms, put in fwd_compute) and storage.
struct ShardSpec {
  double perf = 0;
  Storage storage;
};

// An option of table `fqn` ("m.t") with the partition rule torchrec gives `type`.
ShardingOption bound_option(const std::string& table, ShardingType type, const std::vector<ShardSpec>& shards);

// A reserved topology with these free capacities per device.
Topology bound_topology(const std::vector<Storage>& free, int local_world_size);

// A random instance: 1..max_tables tables of 1..3 options each, 1..3 devices.
struct BoundInstance {
  Topology topology;
  std::vector<ShardingOption> options;  // grouped by table in order
};
// `devices` > 0 fixes the device count and `local` the devices per host.
BoundInstance random_bound_instance(std::mt19937_64& rng, int max_tables, int devices = 0, int local = 0);

// The least max-device perf over every option choice and every placement the
// partition rules allow within the capacities (lower_bound.h's problem), or
// +infinity when there is none. Exhaustive: for a few tables on a few devices.
double brute_force_optimum(const BoundInput& input);

}  // namespace shardplan::testing
