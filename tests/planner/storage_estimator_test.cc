// Storage of hand-computed options: fused, uvm caching, row-wise with empty
// shards, inference, cpu, key_value; and Python's exact integer division.
#include <catch2/catch.hpp>

#include "planner/storage_estimator.h"

namespace shardplan {
namespace {

// A 1000 x 64 fp32 table, one feature with pooling factor 1, batch 512, 2 ranks.
ShardStorageRequest small_table(ShardingType type, ComputeKernel kernel) {
  ShardStorageRequest r;
  r.sharding_type = type;
  r.compute_kernel = kernel;
  r.tensor_shape = {1000, 64};
  r.tensor_element_size = 4;
  r.shard_sizes = {{1000, 64}};
  r.batch_sizes = {512};
  r.world_size = 2;
  r.local_world_size = 2;
  r.input_lengths = {1.0};
  r.num_poolings = {1.0};
  r.output_data_type_size = 4;
  return r;
}

}  // namespace

TEST_CASE("fused table-wise storage is weights plus input and output buffers", "[enumerator][storage]") {
  // weights 1000*64*4 = 256000; input ceil(512 ids * 2 ranks * 8 B) = 8192;
  // output ceil(512 * 2 ranks * 64 dims * 4 B) = 262144; total HBM 526336.
  const auto s = calculate_shard_storages(small_table(ShardingType::kTableWise, ComputeKernel::kFused));
  REQUIRE(s.size() == 1);
  CHECK(s[0] == Storage{526336, 0});
}

TEST_CASE("uvm caching keeps the table in DDR and a cache plus aux state in HBM", "[enumerator][storage]") {
  // DDR 256000; cache round(256000 * 0.25) = 64000; aux ceil(1000 rows * (4 + 0.25*16))
  // = 8000; IO 8192 + 262144 -> HBM 342336.
  auto r = small_table(ShardingType::kTableWise, ComputeKernel::kFusedUvmCaching);
  r.caching_ratio = 0.25;
  const auto s = calculate_shard_storages(r);
  REQUIRE(s.size() == 1);
  CHECK(s[0] == Storage{342336, 256000});
  // fused_uvm: all weights in DDR, only the IO buffers in HBM.
  const auto uvm = calculate_shard_storages(small_table(ShardingType::kTableWise, ComputeKernel::kFusedUvm));
  CHECK(uvm[0] == Storage{8192 + 262144, 256000});
}

TEST_CASE("row-wise empty shards cost nothing", "[enumerator][storage]") {
  // 5 x 4 fp32 table (80 B) on 8 ranks: shards of 1 row hold ceil(80 * 4 / 20) = 16 B.
  // Input per non-empty shard: ceil(512/8 * 8 ranks * 8 B) = 4096; output
  // ceil(512 * 8 * 4 dims * 4 B) = 65536 -> 69648. Empty shards: 0.
  ShardStorageRequest r = small_table(ShardingType::kRowWise, ComputeKernel::kFused);
  r.tensor_shape = {5, 4};
  r.world_size = 8;
  r.local_world_size = 8;
  r.shard_sizes = {{1, 4}, {1, 4}, {1, 4}, {1, 4}, {1, 4}, {0, 4}, {0, 4}, {0, 4}};
  const auto s = calculate_shard_storages(r);
  REQUIRE(s.size() == 8);
  CHECK(s[0] == Storage{69648, 0});
  CHECK(s[4] == Storage{69648, 0});
  CHECK(s[5] == Storage{0, 0});
  CHECK(s[7] == Storage{0, 0});
}

TEST_CASE("inference stores the weights only; cpu keeps everything in DDR", "[enumerator][storage]") {
  auto r = small_table(ShardingType::kTableWise, ComputeKernel::kFused);
  r.is_inference = true;
  CHECK(calculate_shard_storages(r)[0] == Storage{256000, 0});
  // Caching in inference: the cache (64000 with ratio 0.25) but no aux state.
  auto cached = small_table(ShardingType::kTableWise, ComputeKernel::kFusedUvmCaching);
  cached.caching_ratio = 0.25;
  cached.is_inference = true;
  CHECK(calculate_shard_storages(cached)[0] == Storage{64000, 256000});

  auto cpu = small_table(ShardingType::kTableWise, ComputeKernel::kFused);
  cpu.compute_device = ComputeDevice::kCpu;
  CHECK(calculate_shard_storages(cpu)[0] == Storage{0, 256000 + 8192 + 262144});
}

TEST_CASE("key_value without key_value_params keeps only the IO buffers", "[enumerator][storage]") {
  // HBM cache min(0 MiB, ...) = 0 and DDR 0: just 8192 + 262144.
  const auto s = calculate_shard_storages(small_table(ShardingType::kTableWise, ComputeKernel::kKeyValue));
  CHECK(s[0] == Storage{8192 + 262144, 0});
}

TEST_CASE("data-parallel shards each hold the whole table", "[enumerator][storage]") {
  // DP IO has no world factor: input ceil(512 * 8) = 4096, output ceil(512*64*4) = 131072.
  auto r = small_table(ShardingType::kDataParallel, ComputeKernel::kDense);
  r.shard_sizes = {{1000, 64}, {1000, 64}};
  const auto s = calculate_shard_storages(r);
  REQUIRE(s.size() == 2);
  CHECK(s[0] == Storage{256000 + 4096 + 131072, 0});
  CHECK(s[1] == s[0]);
}

TEST_CASE("integer division rounds like Python's true division", "[enumerator][storage]") {
  // (3 * 2^60 + 1) / 3 = 2^60 + 1/3 rounds to 2^60 (Python: 1.152921504606847e+18),
  // so ceil gives 2^60 where the exact integer ceiling is 2^60 + 1.
  const __int128 n = (static_cast<__int128>(3) << 60) + 1;
  CHECK(python_int_true_divide(n, 3) == 1152921504606846976.0);
  // Python: 10**20 / 7 == 1.4285714285714287e+19 (the operands exceed 2^53).
  CHECK(python_int_true_divide(static_cast<__int128>(100000000000000000LL) * 1000, 7) == 1.4285714285714287e19);
  // Python: (2**80 + 12345) / (2**27 + 1) == 9007199187632129.0
  CHECK(python_int_true_divide((static_cast<__int128>(1) << 80) + 12345, (1 << 27) + 1) == 9007199187632129.0);
  CHECK(python_int_true_divide(7, 2) == 3.5);
}

}  // namespace shardplan
