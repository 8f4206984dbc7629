// Python renderings of planner values, so that the partitioners' error messages
// read exactly like the PlannerError texts torchrec raises.
#pragma once

#include <string>

#include "common/python_format.h"  // python_repr
#include "planner/types.h"

namespace shardplan {

// torchrec's dataclass repr: "Storage(hbm=1, ddr=2)".
std::string storage_repr(const Storage& storage);

// torchrec's dataclass repr: "Perf(fwd_compute=..., ..., prefetch_compute=0.0)".
std::string perf_repr(const Perf& perf);

// torchrec's Shard.__str__: "Shard size: (r, c), offset: (0, 0), storage: ...,
// perf: ..., rank: None".
std::string shard_str(const Shard& shard);

}  // namespace shardplan
