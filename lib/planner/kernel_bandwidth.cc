#include "planner/kernel_bandwidth.h"

#include "planner/constants.h"

namespace shardplan {

std::optional<double> kernel_bw_lookup(ComputeDevice device, ComputeKernel kernel, double hbm_mem_bw, double ddr_mem_bw,
                                       double hbm_to_ddr_mem_bw, std::optional<double> caching_ratio,
                                       bool prefetch_pipeline) {
  const double ratio = caching_ratio.value_or(kUvmCachingRatio);
  // A pipelined prefetch hides the UVM traffic: torchrec costs it as plain fused.
  if (prefetch_pipeline && device == ComputeDevice::kCuda && kernel == ComputeKernel::kFusedUvmCaching)
    kernel = ComputeKernel::kFused;
  const double cached = (ratio * hbm_mem_bw + (1 - ratio) * hbm_to_ddr_mem_bw) / 10;
  switch (device) {
    case ComputeDevice::kCpu:
      switch (kernel) {
        case ComputeKernel::kDense:
          return 0.5 * ddr_mem_bw;
        case ComputeKernel::kFused:
        case ComputeKernel::kQuant:
          return ddr_mem_bw;
        default:
          return std::nullopt;
      }
    case ComputeDevice::kMtia:  // torchrec: "same as CPU's" ratios, on HBM
      switch (kernel) {
        case ComputeKernel::kDense:
          return 0.5 * hbm_mem_bw;
        case ComputeKernel::kFused:
        case ComputeKernel::kQuant:
          return hbm_mem_bw;
        default:
          return std::nullopt;
      }
    case ComputeDevice::kCuda:
      switch (kernel) {
        case ComputeKernel::kDense:
          return 0.5 * hbm_mem_bw;
        case ComputeKernel::kFused:
        case ComputeKernel::kQuant:
          return hbm_mem_bw;
        case ComputeKernel::kFusedUvm:
        case ComputeKernel::kQuantUvm:
          return hbm_to_ddr_mem_bw / 10;
        case ComputeKernel::kFusedUvmCaching:
        case ComputeKernel::kQuantUvmCaching:
          return cached;
        case ComputeKernel::kKeyValue:
          return hbm_to_ddr_mem_bw;
      }
  }
  return std::nullopt;
}

double comms_bandwidth(double intra_host_bw, double inter_host_bw, int world_size, int local_world_size,
                       CollectiveType collective) {
  // All-reduce is modelled with one NIC per GPU.
  if (collective == CollectiveType::kAllReduce) return inter_host_bw * local_world_size;
  return world_size <= local_world_size ? intra_host_bw : inter_host_bw;
}

}  // namespace shardplan
