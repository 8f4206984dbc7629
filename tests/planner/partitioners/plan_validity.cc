#include "planner/partitioners/plan_validity.h"

#include <fmt/format.h>

namespace shardplan::testing {

namespace {

std::string rule_violation(const ShardingOption& option, int world_size, int per_host) {
  const int n = option.num_shards();
  const int hosts = world_size / per_host;
  auto rank = [&](int j) { return *option.shards[static_cast<std::size_t>(j)].rank; };
  switch (option.partition_by) {
    case PartitionBy::kUniform:
      if (n != world_size) return fmt::format("uniform option has {} shards on {} ranks", n, world_size);
      for (int j = 0; j < n; ++j)
        if (rank(j) != j) return fmt::format("uniform shard {} on rank {}", j, rank(j));
      return "";
    case PartitionBy::kHost: {
      const int host = rank(0) / per_host;
      if (host >= hosts) return fmt::format("host option on rank {}, outside every host", rank(0));
      for (int j = 0; j < n; ++j) {
        if (rank(j) / per_host != host)
          return fmt::format("host option spans hosts {} and {}", host, rank(j) / per_host);
        if (option.sharding_type == ShardingType::kTableRowWise && rank(j) != host * per_host + j)
          return fmt::format("table_row_wise shard {} on rank {}, not local device {}", j, rank(j), j);
      }
      return "";
    }
    case PartitionBy::kMultiHost:
      if (n % per_host != 0) return fmt::format("grid option of {} shards on hosts of {}", n, per_host);
      for (int j = 0; j < n; ++j) {
        const int first = rank(j - j % per_host);
        if (first % per_host != 0 || rank(j) != first + j % per_host)
          return fmt::format("grid shard {} on rank {}, not local device {} of one host", j, rank(j), j % per_host);
      }
      return "";
    case PartitionBy::kDevice:
      return "";
  }
  return "unknown partition rule";
}

}  // namespace

std::string plan_violation(const std::vector<ShardingOption>& plan, const Topology& reserved) {
  const int world_size = static_cast<int>(reserved.devices.size());
  const int per_host = std::max(1, reserved.local_world_size);
  std::vector<Storage> used(reserved.devices.size());
  for (const auto& option : plan) {
    for (std::size_t j = 0; j < option.shards.size(); ++j) {
      const auto& shard = option.shards[j];
      if (!shard.rank || *shard.rank < 0 || *shard.rank >= world_size)
        return fmt::format("{} shard {} has no valid rank", option.fqn(), j);
      used[static_cast<std::size_t>(*shard.rank)] += shard.storage.value_or(Storage{});
    }
    if (std::string v = rule_violation(option, world_size, per_host); !v.empty()) return option.fqn() + ": " + v;
  }
  for (std::size_t r = 0; r < used.size(); ++r)
    if (!used[r].fits_in(reserved.devices[r].storage))
      return fmt::format("rank {} holds hbm {} ddr {} bytes over its capacity hbm {} ddr {}", r, used[r].hbm,
                         used[r].ddr, reserved.devices[r].storage.hbm, reserved.devices[r].storage.ddr);
  return "";
}

Topology uniform_topology(int world_size, int per_host, Storage capacity) {
  Topology t;
  t.world_size = world_size;
  t.local_world_size = per_host;
  for (int r = 0; r < world_size; ++r) t.devices.push_back({r, capacity, {}});
  return t;
}

}  // namespace shardplan::testing
