// The steps of torchrec's GreedyPerfPartitioner, one option at a time. Each
// returns nullopt when it placed the option, or why it could not as a structured
// failure (lib/planner_output/partition_failure_text.h renders torchrec's text).
#pragma once

#include <optional>
#include <span>
#include <string>
#include <vector>

#include "planner/partition_option_summary.h"
#include "planner/partitioners/greedy/device_heap.h"
#include "planner/partitioners/greedy/device_load.h"
#include "planner/partitioners/greedy/host_order.h"
#include "planner/types.h"

namespace shardplan {

using StepError = std::optional<PartitionFailure>;

// Reusable buffers of the host-level steps.
struct HostStepScratch {
  std::vector<DeviceLoad> trial;
  std::vector<int> trial_ranks;
  std::vector<int> slots;
  DeviceHeap heap;
};

// The failure of a uniform shard that does not fit its device.
PartitionFailure uniform_misfit(const Storage& shard, const Storage& free);

// torchrec's _uniform_partition for one option: shard i goes to devices[slots[i]];
// its rank is written to ranks[i] unless `ranks` is empty.
StepError uniform_partition(const ShardList& shards, std::span<DeviceLoad> devices, std::span<const int> slots,
                            std::span<int> ranks);

// torchrec's _device_partition: each shard on the heap's least-loaded device that
// can hold it. A device too full for a shard is parked (kept out of the heap) until a
// shard small enough comes: free storage only shrinks during a partition, and the
// heap's order is a strict one, so the device chosen is torchrec's. Every
// device that takes a shard is touched in `hosts_to_touch` (when given).
// `brief` is option `id`'s brief: its shards are read from there (cache-friendly).
StepError device_partition(OptionId id, const PartitionOptionBrief& brief, std::span<DeviceLoad> devices,
                           DeviceHeap& heap, std::span<int> ranks, HostOrder* hosts_to_touch);

// device_partition's failure when the option's first shard fits no device, found
// by one pass over the devices without a heap; nullopt otherwise. The greedy
// partitioner asks before building the heap for a proposal: most proposals that do
// not fit fail there.
StepError first_shard_misfit(OptionId id, const PartitionOptionBrief& brief, std::span<const DeviceLoad> devices);

// torchrec's _cohost_partition for a one-option group: the first host (by perf)
// whose summed free storage covers the option (brief.total_storage) and on which
// every shard fits. `placed_host` is set to the host used.
StepError cohost_partition(OptionId id, const PartitionOptionBrief& brief, std::span<DeviceLoad> devices,
                           const Hosts& hosts, HostOrder& order, int param_count, std::span<int> ranks,
                           HostStepScratch& scratch, int& placed_host);

// torchrec's _multi_hosts_partition (grid_shard). `placed_hosts` receives the hosts used.
StepError multi_host_partition(OptionId id, const ShardingOption& option, std::span<DeviceLoad> devices,
                               const Hosts& hosts, HostOrder& order, int param_count, std::span<int> ranks,
                               std::vector<int>& placed_hosts);

}  // namespace shardplan
