// Building torchrec's Topology from the topology file.
#pragma once

#include "config/config.h"
#include "planner/types.h"

namespace shardplan {

// The resolved topology with torchrec's defaults: hbm_cap 32 GiB on cuda/mtia when
// unset or 0 (always 0 on cpu), ddr_cap 128 GiB when unset or 0, the bandwidth and
// multiplier constants of constants.py, local_world_size = world_size when unset,
// and per-rank custom caps replacing the uniform ones.
Topology build_topology(const TopologyConfig& config);

}  // namespace shardplan
