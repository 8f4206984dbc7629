#include "planner/topology.h"

#include "planner/constants.h"

namespace shardplan {

Topology build_topology(const TopologyConfig& config) {
  Topology t;
  t.world_size = static_cast<int>(config.world_size);
  t.compute_device = config.compute_device;
  // torchrec treats 0 as "not given" for both caps and local_world_size.
  t.local_world_size =
      config.local_world_size.value_or(0) != 0 ? static_cast<int>(*config.local_world_size) : t.world_size;

  const bool has_hbm = config.compute_device == ComputeDevice::kCuda || config.compute_device == ComputeDevice::kMtia;
  const std::int64_t hbm_cap = has_hbm ? (config.hbm_cap.value_or(0) != 0 ? *config.hbm_cap : kHbmCapBytes) : 0;
  const std::int64_t ddr_cap = config.ddr_cap.value_or(0) != 0 ? *config.ddr_cap : kDdrCapBytes;

  // Custom per-rank caps win over the uniform ones, on every device kind (torchrec
  // applies custom hbm_cap even on cpu).
  t.has_custom_hbm_cap = config.custom_hbm_cap.has_value();
  t.has_custom_ddr_cap = config.custom_ddr_cap.has_value();
  t.devices.resize(static_cast<std::size_t>(t.world_size));
  for (int rank = 0; rank < t.world_size; ++rank) {
    auto& device = t.devices[static_cast<std::size_t>(rank)];
    device.rank = rank;
    device.storage.hbm = t.has_custom_hbm_cap ? config.custom_hbm_cap->at(static_cast<std::size_t>(rank)) : hbm_cap;
    device.storage.ddr = t.has_custom_ddr_cap ? config.custom_ddr_cap->at(static_cast<std::size_t>(rank)) : ddr_cap;
  }

  t.hbm_mem_bw = config.hbm_mem_bw.value_or(kHbmMemBwBytesPerMs);
  t.ddr_mem_bw = config.ddr_mem_bw.value_or(kDdrMemBwBytesPerMs);
  t.hbm_to_ddr_mem_bw = config.hbm_to_ddr_mem_bw.value_or(kHbmToDdrMemBwBytesPerMs);
  t.intra_host_bw = config.intra_host_bw.value_or(kIntraNodeBandwidthBytesPerMs);
  t.inter_host_bw = config.inter_host_bw.value_or(kCrossNodeBandwidthBytesPerMs);
  t.bwd_compute_multiplier = config.bwd_compute_multiplier.value_or(kBwdComputeMultiplier);
  t.weighted_feature_bwd_compute_multiplier =
      config.weighted_feature_bwd_compute_multiplier.value_or(kWeightedFeatureBwdComputeMultiplier);
  t.uneven_sharding_perf_multiplier = config.uneven_sharding_perf_multiplier.value_or(kUnevenShardingPerfMultiplier);
  return t;
}

}  // namespace shardplan
