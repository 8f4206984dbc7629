// Hand-worked checks of the perf model: kernel bandwidths, comms bandwidths, and
// one table-wise and one row-wise shard worked through torchrec's formulas.
#include <catch2/catch.hpp>

#include "planner/kernel_bandwidth.h"
#include "planner/perf_estimator.h"

namespace shardplan {
namespace {

// Round bandwidths (bytes/ms) so every expected value can be checked by hand.
constexpr double kHbm = 1000, kDdr = 100, kHbmToDdr = 40;

std::optional<double> lookup(ComputeDevice device, ComputeKernel kernel, std::optional<double> ratio = std::nullopt,
                             bool prefetch_pipeline = false) {
  return kernel_bw_lookup(device, kernel, kHbm, kDdr, kHbmToDdr, ratio, prefetch_pipeline);
}

TEST_CASE("kernel_bw_lookup: cuda kernels", "[perf]") {
  using K = ComputeKernel;
  const auto cuda = ComputeDevice::kCuda;
  CHECK(lookup(cuda, K::kDense) == Approx(500));  // 0.5 x HBM
  CHECK(lookup(cuda, K::kFused) == Approx(1000));
  CHECK(lookup(cuda, K::kQuant) == Approx(1000));
  CHECK(lookup(cuda, K::kFusedUvm) == Approx(4));  // HBM->DDR / 10
  CHECK(lookup(cuda, K::kQuantUvm) == Approx(4));
  // Default caching ratio 0.2: (0.2 x 1000 + 0.8 x 40) / 10 = (200 + 32) / 10.
  CHECK(lookup(cuda, K::kFusedUvmCaching) == Approx(23.2));
  CHECK(lookup(cuda, K::kQuantUvmCaching) == Approx(23.2));
  // Load factor 0.5: (500 + 20) / 10.
  CHECK(lookup(cuda, K::kFusedUvmCaching, 0.5) == Approx(52));
  // A pipelined prefetch costs fused_uvm_caching as fused, whatever the ratio.
  CHECK(lookup(cuda, K::kFusedUvmCaching, 0.5, true) == Approx(1000));
  // ... but only that kernel.
  CHECK(lookup(cuda, K::kQuantUvmCaching, 0.5, true) == Approx(52));
  CHECK(lookup(cuda, K::kKeyValue) == Approx(40));  // HBM->DDR, uncached
}

TEST_CASE("kernel_bw_lookup: cpu and mtia kernels", "[perf]") {
  using K = ComputeKernel;
  CHECK(lookup(ComputeDevice::kCpu, K::kDense) == Approx(50));  // 0.5 x DDR
  CHECK(lookup(ComputeDevice::kCpu, K::kFused) == Approx(100));
  CHECK(lookup(ComputeDevice::kCpu, K::kQuant) == Approx(100));
  CHECK_FALSE(lookup(ComputeDevice::kCpu, K::kFusedUvm).has_value());
  CHECK_FALSE(lookup(ComputeDevice::kCpu, K::kFusedUvmCaching, 0.5, true).has_value());
  CHECK_FALSE(lookup(ComputeDevice::kCpu, K::kKeyValue).has_value());
  CHECK(lookup(ComputeDevice::kMtia, K::kDense) == Approx(500));  // 0.5 x HBM
  CHECK(lookup(ComputeDevice::kMtia, K::kFused) == Approx(1000));
  CHECK_FALSE(lookup(ComputeDevice::kMtia, K::kFusedUvmCaching).has_value());
}

TEST_CASE("comms bandwidth: intra vs inter host, all-reduce per NIC", "[perf]") {
  CHECK(comms_bandwidth(600, 12, 8, 8, CollectiveType::kAllToAll) == 600);
  CHECK(comms_bandwidth(600, 12, 16, 8, CollectiveType::kReduceScatter) == 12);
  CHECK(comms_bandwidth(600, 12, 2, 1, CollectiveType::kAllGather) == 12);
  CHECK(comms_bandwidth(600, 12, 8, 8, CollectiveType::kAllReduce) == 96);  // 12 x 8 NICs
}

// One feature, pooling factor 2, batch 100, fp32, 4 ranks on one host.
WallTimeInputs small_inputs(ShardingType type) {
  WallTimeInputs in;
  in.sharding_type = type;
  in.device_bw = 1000;
  in.input_lengths = {2.0};
  in.num_poolings = {1.0};
  in.batch_sizes = {100};
  in.world_size = 4;
  in.local_world_size = 4;
  in.intra_host_bw = 500;
  in.inter_host_bw = 50;
  return in;
}

TEST_CASE("table-wise shard perf worked by hand", "[perf]") {
  WallTimeInputs in = small_inputs(ShardingType::kTableWise);
  // dim 64: inputs = 2 x 1 x 100 = 200, outputs = 1 x 100 = 100
  //   read     = ceil(200 x 4 ranks x 8 B)       =   6 400
  //   lookup   = 200 x 4 x max(64, 32) x 4 B     = 204 800
  //   output   = 100 x 4 x 64 x 4 B              = 102 400
  //   fwd_compute = 313 600 x 1.15 (half block) / 1000 = 360.64
  //   comms: all-to-all within one host = 500 -> fwd/bwd comms 102 400 / 500 = 204.8
  //   bwd_compute = 2 x 360.64 = 721.28
  Perf p = shard_wall_time(in, 1000, 64);
  CHECK(p.fwd_compute == Approx(360.64));
  CHECK(p.fwd_comms == Approx(204.8));
  CHECK(p.bwd_compute == Approx(721.28));
  CHECK(p.bwd_comms == Approx(204.8));
  CHECK(p.prefetch_compute == 0);

  // dim 16: lookup reads 32 columns (200 x 4 x 32 x 4 = 102 400), output
  // 100 x 4 x 16 x 4 = 25 600, quarter-block penalty:
  //   fwd_compute = (6 400 + 102 400 + 25 600) x 1.75 / 1000 = 235.2
  CHECK(shard_wall_time(in, 1000, 16).fwd_compute == Approx(235.2));

  // Weighted: the read doubles (12 800) -> fwd_compute = 320 000 x 1.15 / 1000 = 368;
  // bwd_compute = 368 x 2 x 1 (weighted multiplier) + 368 x 1.1 (weights kernel) = 1140.8
  in.is_weighted = true;
  p = shard_wall_time(in, 1000, 64);
  CHECK(p.fwd_compute == Approx(368));
  CHECK(p.bwd_compute == Approx(1140.8));

  // Inference keeps the forward pass only.
  in.is_inference = true;
  p = shard_wall_time(in, 1000, 64);
  CHECK(p.fwd_compute == Approx(368));
  CHECK(p.bwd_compute == 0);
  CHECK(p.bwd_comms == 0);
}

TEST_CASE("row-wise shard perf worked by hand", "[perf]") {
  WallTimeInputs in = small_inputs(ShardingType::kRowWise);
  in.local_world_size = 2;  // 2 hosts x 2: reduce-scatter/all-gather go inter-host (50)
  // dim 64: inputs per rank = 200 / 4 = 50, pooled outputs = 100
  //   read   = ceil(50 x 4 x 8 B)    =   1 600
  //   lookup = 50 x 4 x 64 x 4 B     =  51 200 (no 32-column minimum, no block penalty)
  //   output = 100 x 4 x 64 x 4 B    = 102 400
  //   fwd_compute = 155 200 / 1000 = 155.2; fwd_comms = 102 400 / 50 = 2048
  //   bwd_comms = 2048 + 102 400 x 2.455 (batched copy) / 1000 = 2048 + 251.392
  //   bwd_compute = 2 x 155.2 = 310.4
  Perf p = shard_wall_time(in, 250, 64);
  CHECK(p.fwd_compute == Approx(155.2));
  CHECK(p.fwd_comms == Approx(2048));
  CHECK(p.bwd_compute == Approx(310.4));
  CHECK(p.bwd_comms == Approx(2299.392));
  // Every row-wise shard costs the same, whatever its rows (even an empty one).
  Perf empty = shard_wall_time(in, 0, 64);
  CHECK(empty.total() == p.total());

  // Sequence output is one row per lookup: 50 x 4 x 64 x 4 = 51 200 ->
  // fwd_comms = 51 200 / 50 = 1024, fwd_compute = (1 600 + 51 200 + 51 200) / 1000 = 104
  in.is_pooled = false;
  p = shard_wall_time(in, 250, 64);
  CHECK(p.fwd_comms == Approx(1024));
  CHECK(p.fwd_compute == Approx(104));
}

TEST_CASE("estimate: per-feature batch sizes and module-wide weighting", "[perf]") {
  ModelConfig model;
  ModuleConfig ebc;
  ebc.path = "ebc";
  for (const char* name : {"a", "b"}) {
    TableConfig table;
    table.name = name;
    table.num_embeddings = 1000;
    table.embedding_dim = 64;
    ebc.tables.push_back(table);
  }
  model.modules.push_back(ebc);
  ParameterConstraintsConfig a;
  a.is_weighted = true;  // makes the whole EBC weighted, so table b too
  model.constraints["a"] = a;
  ParameterConstraintsConfig b;
  b.pooling_factors = {2.0, 3.0};
  b.batch_sizes = std::vector<std::int64_t>{100, 50};
  model.constraints["b"] = b;
  Topology topology;
  topology.world_size = 4;
  topology.local_world_size = 4;
  topology.hbm_mem_bw = 1000;
  topology.intra_host_bw = 500;
  topology.inter_host_bw = 50;
  PlannerOptions planner;
  const EstimatorContext context{topology, model, planner};

  ShardingOption option;
  option.name = "b";
  option.path = "ebc";
  option.tensor_shape = {1000, 64};
  option.input_lengths = {2.0, 3.0};
  option.sharding_type = ShardingType::kTableWise;
  option.compute_kernel = ComputeKernel::kFused;
  option.shards = {Shard{{1000, 64}, {0, 0}, {}, {}, {}}};
  EmbeddingPerfEstimator().estimate(option, context);
  CHECK(option.is_weighted);
  // inputs = 2 x 100 + 3 x 50 = 350, outputs = 150; weighted read 2 x ceil(350 x 4 x 8)
  //   = 22 400; lookup = 350 x 4 x 64 x 4 = 358 400; output = 150 x 4 x 64 x 4 = 153 600
  //   fwd_compute = 534 400 x 1.15 / 1000 = 614.56
  CHECK(option.shards[0].perf->fwd_compute == Approx(614.56));
  CHECK(option.shards[0].perf->fwd_comms == Approx(153600.0 / 500));
}

}  // namespace
}  // namespace shardplan
