#include "planner_output/partition_failure_text.h"

#include <fmt/format.h>

#include "planner/partitioners/greedy/torchrec_repr.h"
#include "planner_output/storage_words.h"

namespace shardplan {

namespace {

// torchrec's ShardingOptionGroup repr. Python prints the option as an object
// address, which cannot be reproduced; the table's fqn stands in for it.
std::string group_repr(const ShardingOption& option, int param_count) {
  return fmt::format(
      "ShardingOptionGroup(sharding_options=[<torchrec.distributed.planner.types."
      "ShardingOption object for {}>], storage_sum={}, perf_sum={}, param_count={})",
      option.fqn(), storage_repr(option.total_storage()), python_repr(option.total_perf()), -param_count);
}

// A shard in partition_failure_words: "of 1000 x 64 (250.00 KiB HBM)" (its
// storage, or None before the storage estimator set one).
std::string shard_words(const Shard& shard) {
  if (shard.size.size() != 2) return shard_str(shard);
  return fmt::format("of {} x {} ({})", shard.size[0], shard.size[1],
                     shard.storage ? storage_text(*shard.storage) : "None");
}

}  // namespace

std::string partition_failure_words(const PartitionFailure& f, const SearchSpace& space) {
  switch (f.kind) {
    case PartitionFailureKind::kUniformMisfit:
      return fmt::format("Shard of size {} does not fit on any rank. Device memory cap: {}.", storage_text(f.needed),
                         storage_text(f.free));
    case PartitionFailureKind::kDeviceMisfit: {
      const ShardingOption& option = space[f.option];
      return fmt::format(
          "Device partition failed. Couldn't find a rank for shard {} of table {}, largest "
          "device storage: {}",
          shard_words(option.shards[static_cast<std::size_t>(f.shard)]), option.name, storage_text(f.free));
    }
    case PartitionFailureKind::kNoHost:
      return "can't find a host for sharding option group of table " + space[f.option].fqn();
    case PartitionFailureKind::kNoHosts:
      return "can't find hosts for sharding option group of table " + space[f.option].fqn();
    default:
      // The other kinds hold no storage, shard or option group: the same text as torchrec's.
      return partition_failure_text(f, space);
  }
}

std::string partition_failure_text(const PartitionFailure& f, const SearchSpace& space) {
  switch (f.kind) {
    case PartitionFailureKind::kUniformShardCount:
      return fmt::format(
          "For a uniform partition, the number of shards ({}) must equal the number of "
          "devices ({})",
          f.count, f.devices);
    case PartitionFailureKind::kUniformMisfit:
      return fmt::format("Shard of size {} bytes does not fit on any rank. Device memory cap: {}.",
                         storage_repr(f.needed), storage_repr(f.free));
    case PartitionFailureKind::kDeviceMisfit: {
      const ShardingOption& option = space[f.option];
      return fmt::format(
          "Device partition failed. Couldn't find a rank for shard {} of table {}, largest "
          "device storage: {}",
          shard_str(option.shards[static_cast<std::size_t>(f.shard)]), option.name, storage_repr(f.free));
    }
    case PartitionFailureKind::kNoHost:
      return "can't find a host for sharding option group " + group_repr(space[f.option], f.param_count);
    case PartitionFailureKind::kNoHosts:
      return "can't find hosts for sharding option group " + group_repr(space[f.option], f.param_count);
    case PartitionFailureKind::kNoHostLevel:
      return "host level devices is None";
    case PartitionFailureKind::kGridUneven:
      return fmt::format(
          "Grid Sharding is unable to place shards equally over hosts without overlapping. "
          "num_shards={} % local_world_size={} != 0",
          f.count, f.devices);
    case PartitionFailureKind::kUnexpectedShardingType:
      return fmt::format("unexpected {} sharding type: {}", f.multi_host ? "multi_host" : "cohost",
                         to_string(space[f.option].sharding_type));
    case PartitionFailureKind::kNoPlacement:
      break;
  }
  return "no placement found";
}

}  // namespace shardplan
