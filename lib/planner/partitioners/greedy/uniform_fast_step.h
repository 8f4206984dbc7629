// The greedy partitioner's uniform step (row_wise and data_parallel options, shard
// k on device k) in O(uniform options + devices) instead of O(options x devices).
#pragma once

#include <string>
#include <vector>

#include "planner/partition_option_summary.h"
#include "planner/partitioners/greedy/device_load.h"
#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

enum class FastUniform { kNotApplicable, kPlaced, kFailed };

// Reusable buffers.
struct UniformScratch {
  std::vector<std::size_t> uniform;  // proposal indices of the uniform options, in order
  std::vector<Storage> need;
  std::vector<Storage> before;
  std::vector<Storage> placed;
};

// Places the uniform options of `proposal` (listed in scratch.uniform) on
// `devices` exactly as torchrec's _uniform_partition loop would, or reports the
// first shard (in torchrec's order) that does not fit in `failure`. kNotApplicable
// (nothing changed) when the shortcut's conditions do not hold; the caller then
// places the options one by one.
FastUniform uniform_partition_fast(const std::vector<const PartitionOptionBrief*>& brief,
                                   const std::vector<const PartitionOptionSummary*>& summary,
                                   std::vector<DeviceLoad>& devices, PartitionFailure& failure,
                                   UniformScratch& scratch);

}  // namespace shardplan
