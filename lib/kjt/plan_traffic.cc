#include "kjt/plan_traffic.h"

#include <algorithm>
#include <map>
#include <utility>

namespace shardplan::kjt {

namespace {

ExpectedCollective expected_square(int phase, const char* name, Dtype dtype, std::size_t world_size) {
  ExpectedCollective c;
  c.phase = phase;
  c.name = name;
  c.dtype = dtype;
  c.elements.assign(world_size, std::vector<double>(world_size, 0.0));
  return c;
}

// Which destinations receive a table's features and what share of its values each
// gets. Every source does the same, since every rank holds a full local batch.
//  - table_wise, column_wise, table_column_wise: every shard's rank receives all
//    of the table's features and values (TwSparseFeaturesDist with
//    features_per_rank; a column shard is a table of its own, so a feature goes
//    once per column shard).
//  - row_wise: every rank receives the lengths of every feature (splits =
//    [num_features] * world_size) and the values whose ids fall in its row block
//    (bucketize_kjt_before_all2all).
//  - table_row_wise, grid_shard: the ranks holding a row shard receive the
//    lengths, and the values of their row block (TwRwSparseFeaturesDist).
// With no id distribution given, ids are taken as uniform over the rows: a shard
// of r rows out of N receives r/N of the values (our assumption).
struct Receiver {
  std::int64_t rank;
  double value_share;
};

std::vector<Receiver> receivers(const TableTraffic& table, std::int64_t world_size) {
  std::vector<Receiver> out;
  const double rows = static_cast<double>(table.num_embeddings > 0 ? table.num_embeddings : 1);
  switch (table.sharding_type) {
    case ShardingType::kDataParallel:
      break;  // DpSparseFeaturesDist: no all-to-all
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise:
      for (const PlacedShard& s : table.shards) out.push_back({s.rank, 1.0});
      break;
    case ShardingType::kRowWise: {
      std::vector<double> share(static_cast<std::size_t>(world_size), 0.0);
      for (const PlacedShard& s : table.shards) share[static_cast<std::size_t>(s.rank)] += s.rows / rows;
      for (std::int64_t r = 0; r < world_size; ++r) out.push_back({r, share[static_cast<std::size_t>(r)]});
      break;
    }
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard:
      for (const PlacedShard& s : table.shards) out.push_back({s.rank, s.rows / rows});
      break;
  }
  return out;
}

InputDistGroup group_traffic(const PlanTrafficInput& input, const std::vector<const TableTraffic*>& tables) {
  const auto world = static_cast<std::size_t>(input.world_size);
  InputDistGroup group;
  group.module_path = tables.front()->module_path;
  group.sharding_type = tables.front()->sharding_type;
  group.feature_layout.assign(world, {});
  if (group.sharding_type == ShardingType::kDataParallel) return group;

  bool weighted = false;
  ExpectedCollective lengths = expected_square(1, "lengths", input.dtypes.lengths, world);
  ExpectedCollective values = expected_square(2, "values", input.dtypes.values, world);
  for (const TableTraffic* table : tables) {
    weighted |= table->weighted;
    for (const Receiver& receiver : receivers(*table, input.world_size)) {
      auto d = static_cast<std::size_t>(receiver.rank);
      auto& layout = group.feature_layout[d];
      layout.insert(layout.end(), table->features.begin(), table->features.end());
      for (std::size_t s = 0; s < world; ++s) {
        lengths.elements[s][d] += static_cast<double>(table->lengths_per_source);
        values.elements[s][d] += table->values_per_source * receiver.value_share;
      }
    }
  }
  if (input.protocol == Protocol::kSplitsThenTensors) {
    // KJTAllToAllSplitsAwaitable: one count per tensor label plus the stride.
    ExpectedCollective splits = expected_square(1, "splits", Dtype::kInt64, world);
    for (auto& row : splits.elements) row.assign(world, 2.0 + (weighted ? 1.0 : 0.0) + 1.0);
    group.collectives.push_back(std::move(splits));
    lengths.phase = 2;
  }
  // Every rank has the same batch size here, so no batch_sizes exchange (docs/formats/a2a.md).
  group.collectives.push_back(lengths);
  group.collectives.push_back(values);
  // A KJT carries weights for all of its keys or for none (torchrec's
  // EmbeddingBagCollection is weighted as a whole), so one weighted table means a
  // weight for every value of the group.
  if (weighted) {
    ExpectedCollective weights = values;
    weights.name = "weights";
    weights.dtype = input.dtypes.weights;
    group.collectives.push_back(std::move(weights));
  }
  return group;
}

}  // namespace

PlanTrafficResult plan_traffic(const PlanTrafficInput& input) {
  // torchrec's sharded EmbeddingBagCollection builds one input dist per sharding
  // type (_create_input_dist splits the permuted KJT by sharding); each module
  // has its own. Groups: modules in model order, sharding types in torchrec's order.
  std::vector<std::string> module_order;
  std::map<std::pair<std::string, int>, std::vector<const TableTraffic*>> by_group;
  for (const TableTraffic& table : input.tables) {
    if (std::find(module_order.begin(), module_order.end(), table.module_path) == module_order.end())
      module_order.push_back(table.module_path);
    by_group[{table.module_path, static_cast<int>(table.sharding_type)}].push_back(&table);
  }
  PlanTrafficResult result;
  for (const std::string& module : module_order)
    for (const auto& entry : kShardingTypeNames) {
      auto it = by_group.find({module, static_cast<int>(entry.value)});
      if (it != by_group.end()) result.groups.push_back(group_traffic(input, it->second));
    }
  return result;
}

}  // namespace shardplan::kjt
