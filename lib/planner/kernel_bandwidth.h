// Device and network bandwidths the perf estimator divides by: torchrec's
// kernel_bw_lookup (constants.py) and BasicCommsBandwidths.get_bw (types.py).
#pragma once

#include <optional>

#include "common/names.h"

namespace shardplan {

// torchrec's CollectiveType: which collective a communication estimate uses.
enum class CollectiveType { kAllToAll, kReduceScatter, kAllGather, kAllReduce };

// Bytes/ms one shard's lookups run at for this device and kernel, or nullopt when
// torchrec has no entry for the pair. `caching_ratio` (default 0.2) only affects
// *_uvm_caching; `prefetch_pipeline` makes cuda fused_uvm_caching cost as fused.
std::optional<double> kernel_bw_lookup(ComputeDevice device, ComputeKernel kernel, double hbm_mem_bw, double ddr_mem_bw,
                                       double hbm_to_ddr_mem_bw, std::optional<double> caching_ratio,
                                       bool prefetch_pipeline);

// Bytes/ms of a collective over `world_size` ranks with `local_world_size` per host
// (torchrec's BasicCommsBandwidths.get_bw).
double comms_bandwidth(double intra_host_bw, double inter_host_bw, int world_size, int local_world_size,
                       CollectiveType collective);

}  // namespace shardplan
