// The steps of torchrec's GreedyPerfPartitioner, one option at a time. Each
// returns nullopt when it placed the option, or the PlannerError text when it
// could not (an empty text under FailureDetail::kVerdictOnly).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "planner/partitioners/greedy/device_heap.h"
#include "planner/partitioners/greedy/device_load.h"
#include "planner/partitioners/greedy/host_order.h"
#include "planner/partitioners/greedy/option_summary.h"
#include "planner/types.h"

namespace shardplan {

using StepError = std::optional<std::string>;

// Reusable buffers of the host-level steps.
struct HostStepScratch {
  std::vector<DeviceLoad> trial;
  std::vector<int> trial_ranks;
  std::vector<int> slots;
  std::vector<int> skipped;
  DeviceHeap heap;
};

// torchrec's PlannerError text when a uniform shard does not fit its device.
std::string uniform_misfit(const Storage& shard, const Storage& free);

// torchrec's _uniform_partition for one option: shard i goes to devices[slots[i]];
// its rank is written to ranks[i] unless `ranks` is empty.
StepError uniform_partition(std::span<const Shard> shards, std::span<DeviceLoad> devices,
                            std::span<const int> slots, std::span<int> ranks);

// torchrec's _device_partition: each shard on the heap's least-loaded device that
// can hold it; devices skipped on the way go back into the heap afterwards. Every
// device that takes a shard is touched in `hosts_to_touch` (when given).
// `brief` is the option's brief: its shards are read from there (cache-friendly);
// `option` only names the table in a failure message.
StepError device_partition(const ShardingOption& option, const OptionBrief& brief, std::span<DeviceLoad> devices,
                           DeviceHeap& heap, std::vector<int>& skipped, std::span<int> ranks,
                           FailureDetail detail, HostOrder* hosts_to_touch);

// torchrec's _cohost_partition for a one-option group: the first host (by perf)
// whose summed free storage covers the option (brief.total_storage) and on which
// every shard fits. `placed_host` is set to the host used.
StepError cohost_partition(const ShardingOption& option, const OptionBrief& brief,
                           std::span<DeviceLoad> devices,
                           const Hosts& hosts, HostOrder& order, int param_count,
                           std::span<int> ranks, FailureDetail detail, HostStepScratch& scratch,
                           int& placed_host);

// torchrec's _multi_hosts_partition (grid_shard). `placed_hosts` receives the hosts used.
StepError multi_host_partition(const ShardingOption& option, std::span<DeviceLoad> devices,
                               const Hosts& hosts, HostOrder& order, int param_count,
                               std::span<int> ranks, FailureDetail detail,
                               std::vector<int>& placed_hosts);

}  // namespace shardplan
