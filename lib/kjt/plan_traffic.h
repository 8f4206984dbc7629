// The plan-derived mode of `shardplan a2a` (issue 12, beyond torchrec): from a
// sharding plan and the model's pooling statistics, the expected elements and bytes
// of every input-distribution all-to-all, without materialising any value.
// The rules, one per sharding type, follow torchrec's sharded modules (docs/commands/a2a.md
// lists the file and function of each).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "common/names.h"
#include "kjt/types.h"

namespace shardplan::kjt {

// One shard of a table as the plan places it.
// The largest world size `a2a --plan` takes: each collective is a world_size x
// world_size matrix of expected elements (at 2048 ranks a run takes about 1 GB and
// writes about 130 MB of JSON; at 4096, four times that).
inline constexpr std::int64_t kMaxA2aPlanWorldSize = 2048;

struct PlacedShard {
  std::int64_t rank = 0;
  std::int64_t rows = 0;  // sizes[0] in the plan
};

// One table of the model with its sharding and its per-sample input statistics.
struct TableTraffic {
  std::string module_path;
  std::string table;
  ShardingType sharding_type = ShardingType::kTableWise;
  std::vector<std::string> features;
  std::int64_t num_embeddings = 0;
  // Lengths one source sends per receiving shard: one per feature and sample.
  std::int64_t lengths_per_source = 0;
  // Expected values one source holds for the table: sum of pooling factor x batch size.
  double values_per_source = 0;
  bool weighted = false;  // the model's is_weighted: weights travel with the values
  std::vector<PlacedShard> shards;
};

// Everything the plan-derived mode needs.
struct PlanTrafficInput {
  std::int64_t world_size = 1;
  std::int64_t local_world_size = 1;  // ranks per host: host(r) = r / local_world_size
  std::int64_t batch_size = 0;        // per rank, as torchrec's planner uses it
  Protocol protocol = Protocol::kLengthsThenValues;
  Dtypes dtypes;
  std::vector<TableTraffic> tables;  // model order
};

// An all-to-all with expected (possibly fractional) element counts.
struct ExpectedCollective {
  int phase = 0;
  std::string name;
  Dtype dtype = Dtype::kInt32;
  std::vector<std::vector<double>> elements;  // [source][destination]
};

// One input dist: the tables of one module with one sharding type share a KJTAllToAll.
struct InputDistGroup {
  std::string module_path;
  ShardingType sharding_type = ShardingType::kTableWise;
  std::vector<std::vector<std::string>> feature_layout;  // features each destination receives
  std::vector<ExpectedCollective> collectives;           // empty for data_parallel (no all-to-all)
};

struct PlanTrafficResult {
  std::vector<InputDistGroup> groups;
};

// The input dists of every (module, sharding type) group of `input`.
PlanTrafficResult plan_traffic(const PlanTrafficInput& input);

}  // namespace shardplan::kjt
