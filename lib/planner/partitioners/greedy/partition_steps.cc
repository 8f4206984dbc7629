#include "planner/partitioners/greedy/partition_steps.h"

#include <algorithm>
#include <map>
#include <numeric>

namespace shardplan {
namespace {

PartitionFailure failure_of(PartitionFailureKind kind, OptionId option = 0) {
  PartitionFailure f;
  f.kind = kind;
  f.option = option;
  return f;
}

// device_partition checks whether any device could hold a shard after this many
// devices in a row could not.
constexpr int kDevicesBeforeMisfitScan = 32;

// False when no device has `needed.hbm` free HBM or no device has `needed.ddr` free
// DDR (then no device can hold it; true does not promise that one can).
bool fits_some_device(const Storage& needed, std::span<const DeviceLoad> devices) {
  bool hbm = false, ddr = false;
  for (const DeviceLoad& d : devices) {
    hbm = hbm || needed.hbm <= d.free.hbm;
    ddr = ddr || needed.ddr <= d.free.ddr;
    if (hbm && ddr) return true;
  }
  return false;
}

}  // namespace

PartitionFailure uniform_misfit(const Storage& shard, const Storage& free) {
  PartitionFailure f;
  f.kind = PartitionFailureKind::kUniformMisfit;
  f.needed = shard;
  f.free = free;
  return f;
}

StepError uniform_partition(const ShardList& shards, std::span<DeviceLoad> devices, std::span<const int> slots,
                            std::span<int> ranks) {
  if (shards.size() != slots.size()) {
    PartitionFailure f;
    f.kind = PartitionFailureKind::kUniformShardCount;
    f.count = static_cast<std::int64_t>(shards.size());
    f.devices = static_cast<std::int64_t>(slots.size());
    return f;
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Shard& shard = shards[i];
    DeviceLoad& device = devices[static_cast<std::size_t>(slots[i])];
    if (!storage_of(shard).fits_in(device.free)) return uniform_misfit(storage_of(shard), device.free);
    if (!ranks.empty()) ranks[i] = device.rank;
    device.place(shard);
  }
  return std::nullopt;
}

namespace {
// device_partition's failure for shard j of option id: every device was tried, so
// `free` is the largest free storage of any.
PartitionFailure device_misfit(OptionId id, std::size_t j, std::span<const DeviceLoad> devices) {
  PartitionFailure f = failure_of(PartitionFailureKind::kDeviceMisfit, id);
  f.shard = static_cast<int>(j);
  if (!devices.empty()) f.free = devices.front().free;
  for (const DeviceLoad& d : devices) f.free = std::max(f.free, d.free);
  return f;
}
}  // namespace

StepError first_shard_misfit(OptionId id, const PartitionOptionBrief& brief, std::span<const DeviceLoad> devices) {
  if (brief.num_shards == 0) return std::nullopt;
  const Storage needed = storage_of(brief.shard_list().front());
  for (const DeviceLoad& d : devices)
    if (needed.fits_in(d.free)) return std::nullopt;
  return device_misfit(id, 0, devices);
}

StepError device_partition(OptionId id, const PartitionOptionBrief& brief, std::span<DeviceLoad> devices,
                           DeviceHeap& heap, std::span<int> ranks, HostOrder* hosts_to_touch) {
  heap.apply_deferred();
  // Shard by shard in list order, read run by run: the shards of a run are equal
  // but for offsets, which placement does not read.
  for (const PlacementRun& run : brief.shard_runs()) {
    const Storage needed = run.storage;
    const Perf perf = run.perf;
    for (std::int32_t k = 0; k < run.count; ++k) {
      const auto j = static_cast<std::size_t>(run.begin + k);
      heap.unpark(needed, false);
      bool placed = false;
      int parked_now = 0;
      while (!heap.empty()) {
        const int position = heap.top();
        DeviceLoad& device = devices[static_cast<std::size_t>(position)];
        if (needed.fits_in(device.free)) {
          ranks[j] = device.rank;
          device.place(needed, perf);
          heap.update(position);
          if (hosts_to_touch) hosts_to_touch->touch(static_cast<std::size_t>(position));
          placed = true;
          break;
        }
        heap.park_top();
        // A shard that fails many devices in a row often fits none (a proposal that
        // does not fit fails this way): when no device has that much free HBM or DDR,
        // the scan would end in a misfit anyway, so end it now (one pass over the
        // devices instead of a pop and a push per device).
        if (++parked_now == kDevicesBeforeMisfitScan && !fits_some_device(needed, devices)) break;
      }
      if (!placed) {
        heap.unpark(needed, true);  // leave the heap whole
        return device_misfit(id, j, devices);
      }
    }
  }
  return std::nullopt;
}

StepError cohost_partition(OptionId id, const PartitionOptionBrief& brief, std::span<DeviceLoad> devices,
                           const Hosts& hosts, HostOrder& order, int param_count, std::span<int> ranks,
                           HostStepScratch& scratch, int& placed_host) {
  for (int host : order.sorted(devices)) {
    if (!brief.total_storage.fits_in(order.free_of(host))) continue;
    std::span<DeviceLoad> host_devices = hosts.devices_of(devices, host);
    if (brief.sharding_type == ShardingType::kTableRowWise) {
      // torchrec's _uniform_partition on a copy of the host's devices, shard i on
      // device i: each device takes one shard, so the shards fit the copy exactly
      // when each fits its device now. Checked first, then placed in place.
      if (static_cast<std::size_t>(brief.num_shards) != host_devices.size())
        continue;  // a shard-count error: next host
      bool fits = true;
      for (const PlacementRun& run : brief.shard_runs()) {
        const Storage& needed = run.storage;
        for (std::int32_t k = 0; k < run.count && fits; ++k)
          fits = needed.fits_in(host_devices[static_cast<std::size_t>(run.begin + k)].free);
        if (!fits) break;
      }
      if (!fits) continue;
      for (const PlacementRun& run : brief.shard_runs()) {
        const Storage needed = run.storage;  // copies: the devices written below could alias
        const Perf perf = run.perf;
        for (std::int32_t k = 0; k < run.count; ++k) {
          const auto i = static_cast<std::size_t>(run.begin + k);
          ranks[i] = host_devices[i].rank;
          host_devices[i].place(needed, perf);
        }
      }
      placed_host = host;
      return std::nullopt;
    }
    scratch.trial.assign(host_devices.begin(), host_devices.end());
    scratch.trial_ranks.assign(static_cast<std::size_t>(brief.num_shards), -1);
    StepError error;
    if (brief.sharding_type == ShardingType::kTableColumnWise) {
      // torchrec keys this heap with local_world_size = the host's device count.
      scratch.heap.reset(scratch.trial, static_cast<int>(scratch.trial.size()));
      error = device_partition(id, brief, scratch.trial, scratch.heap, scratch.trial_ranks, nullptr);
    } else {
      error = failure_of(PartitionFailureKind::kUnexpectedShardingType, id);
    }
    if (error) continue;  // torchrec catches the PlannerError and tries the next host
    std::copy(scratch.trial.begin(), scratch.trial.end(), host_devices.begin());
    std::copy(scratch.trial_ranks.begin(), scratch.trial_ranks.end(), ranks.begin());
    placed_host = host;
    return std::nullopt;
  }
  PartitionFailure f = failure_of(PartitionFailureKind::kNoHost, id);
  f.param_count = param_count;
  return f;
}

StepError multi_host_partition(OptionId id, const ShardingOption& option, std::span<DeviceLoad> devices,
                               const Hosts& hosts, HostOrder& order, int param_count, std::span<int> ranks,
                               std::vector<int>& placed_hosts) {
  if (hosts.count == 0) return failure_of(PartitionFailureKind::kNoHostLevel);
  const int num_shards = option.num_shards();
  const int hosts_needed = num_shards / hosts.size;
  if (num_shards % hosts.size != 0) {
    PartitionFailure f = failure_of(PartitionFailureKind::kGridUneven);
    f.count = num_shards;
    f.devices = hosts.size;
    return f;
  }
  const std::vector<int> sorted = order.sorted(devices);
  int host_index = 0;
  bool all_hosts_used = false;
  while (true) {
    std::vector<int> selected;
    if (hosts_needed >= hosts.count) {
      all_hosts_used = true;
      for (int i = 0; i < hosts_needed; ++i) selected.push_back(sorted[static_cast<std::size_t>(i % hosts.count)]);
    } else {
      for (int i = host_index; i < host_index + hosts_needed; ++i)
        selected.push_back(sorted[static_cast<std::size_t>(i)]);
    }
    ++host_index;
    // A host picked twice is one device list in torchrec's deepcopy (memo), so
    // both picks load the same trial copy.
    std::vector<DeviceLoad> trial;
    std::map<int, int> trial_base;  // host -> first position in `trial`
    std::vector<int> slots;
    for (int host : selected) {
      auto [it, fresh] = trial_base.try_emplace(host, static_cast<int>(trial.size()));
      std::span<DeviceLoad> host_devices = hosts.devices_of(devices, host);
      if (fresh) trial.insert(trial.end(), host_devices.begin(), host_devices.end());
      for (std::size_t d = 0; d < host_devices.size(); ++d) slots.push_back(it->second + static_cast<int>(d));
    }
    std::vector<int> trial_ranks(option.shards.size(), -1);
    StepError error;
    if (option.sharding_type == ShardingType::kGridShard) {
      error = uniform_partition(option.shards, trial, slots, trial_ranks);
    } else {
      error = failure_of(PartitionFailureKind::kUnexpectedShardingType, id);
      error->multi_host = true;
    }
    if (!error) {
      placed_hosts.clear();
      for (const auto& [host, base] : trial_base) {
        std::span<DeviceLoad> host_devices = hosts.devices_of(devices, host);
        std::copy_n(trial.begin() + base, host_devices.size(), host_devices.begin());
        placed_hosts.push_back(host);
      }
      std::copy(trial_ranks.begin(), trial_ranks.end(), ranks.begin());
      return std::nullopt;
    }
    if (host_index + hosts_needed > hosts.count || all_hosts_used) break;
  }
  PartitionFailure f = failure_of(PartitionFailureKind::kNoHosts, id);
  f.param_count = param_count;
  return f;
}

}  // namespace shardplan
