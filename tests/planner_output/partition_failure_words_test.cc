// The "last partitioner error" of a failed run in shardplan's words, rendered from
// the PartitionFailure itself (no torchrec text parsed back). Sizes are worked out
// by hand: 1536 MiB = 1.50 GiB, 100 bytes = 100.00 B.
#include <catch2/catch.hpp>
#include <optional>
#include <string>
#include <vector>

#include "common/units.h"
#include "planner/search_space.h"
#include "planner_output/partition_failure_text.h"

namespace shardplan {
namespace {

// One table-wise option of `name` on module path "ebc" whose single shard holds
// `shard_storage` (10 rows x 8 columns).
ShardingOption words_test_option(const std::string& name, std::optional<Storage> shard_storage) {
  ShardingOption option;
  option.name = name;
  option.path = "ebc";
  option.sharding_type = ShardingType::kTableWise;
  option.partition_by = PartitionBy::kDevice;
  Shard shard;
  shard.size = {10, 8};
  shard.offset = {0, 0};
  shard.storage = shard_storage;
  shard.perf = Perf{1, 0, 0, 0, 0};
  option.shards.push_back(shard);
  return option;
}

}  // namespace

TEST_CASE("partition_failure_words: the failure's figures in shardplan's words", "[output][failure]") {
  const SearchSpace space({words_test_option("t0", Storage{1536 * kMiB, 0}), words_test_option("t1", std::nullopt)});

  PartitionFailure uniform;
  uniform.kind = PartitionFailureKind::kUniformMisfit;
  uniform.needed = Storage{150, 0};
  uniform.free = Storage{100, 2 * kGiB};
  CHECK(partition_failure_words(uniform, space) ==
        "Shard of size 150.00 B HBM does not fit on any rank. Device memory cap: 100.00 B HBM + 2.00 GiB DDR.");

  PartitionFailure device;
  device.kind = PartitionFailureKind::kDeviceMisfit;
  device.option = 0;
  device.shard = 0;
  device.free = Storage{kGiB, 0};
  CHECK(partition_failure_words(device, space) ==
        "Device partition failed. Couldn't find a rank for shard of 10 x 8 (1.50 GiB HBM) of table t0, "
        "largest device storage: 1.00 GiB HBM");
  // A shard the storage estimator has not sized says so, as torchrec's repr does.
  device.option = 1;
  CHECK(partition_failure_words(device, space) ==
        "Device partition failed. Couldn't find a rank for shard of 10 x 8 (None) of table t1, "
        "largest device storage: 1.00 GiB HBM");

  PartitionFailure host;
  host.kind = PartitionFailureKind::kNoHost;
  host.option = 0;
  host.param_count = 2;
  CHECK(partition_failure_words(host, space) == "can't find a host for sharding option group of table ebc.t0");
  host.kind = PartitionFailureKind::kNoHosts;
  CHECK(partition_failure_words(host, space) == "can't find hosts for sharding option group of table ebc.t0");

  // Kinds that carry no storage, shard or group read as torchrec's text.
  PartitionFailure count;
  count.kind = PartitionFailureKind::kUniformShardCount;
  count.count = 3;
  count.devices = 2;
  CHECK(partition_failure_words(count, space) == partition_failure_text(count, space));
  CHECK(partition_failure_words(count, space) ==
        "For a uniform partition, the number of shards (3) must equal the number of devices (2)");
}

}  // namespace shardplan
