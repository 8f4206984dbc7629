#include "planner/bounds/bottleneck.h"

#include <algorithm>

namespace shardplan {

Bottleneck find_bottleneck(const std::vector<ShardingOption>& plan, int world_size, std::size_t top) {
  Bottleneck out;
  if (world_size <= 0) return out;
  std::vector<double> totals(static_cast<std::size_t>(world_size), 0.0);
  bool any = false;
  for (const ShardingOption& option : plan)
    for (const Shard& shard : option.shards) {
      if (!shard.rank || *shard.rank < 0 || *shard.rank >= world_size) continue;
      totals[static_cast<std::size_t>(*shard.rank)] += shard.perf.value_or(Perf{}).total();
      any = true;
    }
  if (!any) return out;
  const auto max_it = std::max_element(totals.begin(), totals.end());  // first of the largest
  out.rank = static_cast<int>(max_it - totals.begin());
  out.perf = *max_it;
  double sum = 0;
  for (double t : totals) sum += t;
  out.mean_perf = sum / world_size;

  std::vector<BottleneckTable> tables;
  for (const ShardingOption& option : plan) {
    BottleneckTable t{option.fqn(), option.sharding_type, option.compute_kernel, 0, 0};
    for (const Shard& shard : option.shards)
      if (shard.rank && *shard.rank == out.rank) {
        t.perf += shard.perf.value_or(Perf{}).total();
        ++t.num_shards;
      }
    if (t.num_shards > 0) tables.push_back(std::move(t));
  }
  out.num_tables = static_cast<int>(tables.size());
  std::stable_sort(tables.begin(), tables.end(),
                   [](const BottleneckTable& a, const BottleneckTable& b) { return a.perf > b.perf; });
  if (tables.size() > top) tables.resize(top);
  out.tables = std::move(tables);
  return out;
}

}  // namespace shardplan
