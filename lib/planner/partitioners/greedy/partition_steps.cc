#include "planner/partitioners/greedy/partition_steps.h"

#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "planner/partitioners/greedy/torchrec_repr.h"

namespace shardplan {
namespace {

// torchrec's ShardingOptionGroup repr. Python prints the option as an object
// address, which cannot be reproduced; the table's fqn stands in for it.
std::string group_repr(const ShardingOption& option, int param_count) {
  return fmt::format(
      "ShardingOptionGroup(sharding_options=[<torchrec.distributed.planner.types."
      "ShardingOption object for {}>], storage_sum={}, perf_sum={}, param_count={})",
      option.fqn(), storage_repr(option.total_storage()),
      python_repr(option.total_perf()), -param_count);
}

}  // namespace

std::string uniform_misfit(const Storage& shard, const Storage& free) {
  return fmt::format("Shard of size {} bytes does not fit on any rank. Device memory cap: {}.",
                     storage_repr(shard), storage_repr(free));
}

StepError uniform_partition(std::span<const Shard> shards, std::span<DeviceLoad> devices,
                            std::span<const int> slots, std::span<int> ranks) {
  if (shards.size() != slots.size()) {
    return fmt::format(
        "For a uniform partition, the number of shards ({}) must equal the number of "
        "devices ({})",
        shards.size(), slots.size());
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

StepError device_partition(const ShardingOption& option, const OptionBrief& brief, std::span<DeviceLoad> devices,
                           DeviceHeap& heap, std::vector<int>& skipped, std::span<int> ranks,
                           FailureDetail detail, HostOrder* hosts_to_touch) {
  const std::span<const Shard> shards = brief.shard_span();
  for (std::size_t j = 0; j < shards.size(); ++j) {
    const Shard& shard = shards[j];
    const Storage needed = storage_of(shard);
    skipped.clear();
    bool placed = false;
    while (!heap.empty()) {
      const int position = heap.top();
      DeviceLoad& device = devices[static_cast<std::size_t>(position)];
      if (needed.fits_in(device.free)) {
        ranks[j] = device.rank;
        device.place(shard);
        heap.update(position);
        if (hosts_to_touch) hosts_to_touch->touch(static_cast<std::size_t>(position));
        placed = true;
        break;
      }
      skipped.push_back(position);
      heap.pop();
    }
    if (!placed) {
      for (int position : skipped) heap.push(position);  // leave the heap whole
      if (detail == FailureDetail::kVerdictOnly) return std::string();
      Storage largest;
      if (!skipped.empty()) largest = devices[static_cast<std::size_t>(skipped.front())].free;
      for (int position : skipped)
        largest = std::max(largest, devices[static_cast<std::size_t>(position)].free);
      return fmt::format(
          "Device partition failed. Couldn't find a rank for shard {} of table {}, largest "
          "device storage: {}",
          shard_str(shard), option.name, storage_repr(largest));
    }
    for (int position : skipped) heap.push(position);
  }
  return std::nullopt;
}

StepError cohost_partition(const ShardingOption& option, const OptionBrief& brief,
                           std::span<DeviceLoad> devices,
                           const Hosts& hosts, HostOrder& order, int param_count,
                           std::span<int> ranks, FailureDetail detail, HostStepScratch& scratch,
                           int& placed_host) {
  for (int host : order.sorted(devices)) {
    std::span<DeviceLoad> host_devices = hosts.devices_of(devices, host);
    Storage host_storage;
    for (const DeviceLoad& d : host_devices) host_storage += d.free;
    if (!brief.total_storage.fits_in(host_storage)) continue;
    scratch.trial.assign(host_devices.begin(), host_devices.end());
    scratch.trial_ranks.assign(static_cast<std::size_t>(brief.num_shards), -1);
    StepError error;
    if (brief.sharding_type == ShardingType::kTableRowWise) {
      scratch.slots.resize(scratch.trial.size());
      std::iota(scratch.slots.begin(), scratch.slots.end(), 0);
      error = uniform_partition(brief.shard_span(), scratch.trial, scratch.slots, scratch.trial_ranks);
    } else if (brief.sharding_type == ShardingType::kTableColumnWise) {
      // torchrec keys this heap with local_world_size = the host's device count.
      scratch.heap.reset(scratch.trial, static_cast<int>(scratch.trial.size()));
      error = device_partition(option, brief, scratch.trial, scratch.heap, scratch.skipped, scratch.trial_ranks,
                               FailureDetail::kVerdictOnly, nullptr);
    } else {
      error = fmt::format("unexpected cohost sharding type: {}", to_string(brief.sharding_type));
    }
    if (error) continue;  // torchrec catches the PlannerError and tries the next host
    std::copy(scratch.trial.begin(), scratch.trial.end(), host_devices.begin());
    std::copy(scratch.trial_ranks.begin(), scratch.trial_ranks.end(), ranks.begin());
    placed_host = host;
    return std::nullopt;
  }
  if (detail == FailureDetail::kVerdictOnly) return std::string();
  return "can't find a host for sharding option group " + group_repr(option, param_count);
}

StepError multi_host_partition(const ShardingOption& option, std::span<DeviceLoad> devices,
                               const Hosts& hosts, HostOrder& order, int param_count,
                               std::span<int> ranks, FailureDetail detail,
                               std::vector<int>& placed_hosts) {
  if (hosts.count == 0) return std::string("host level devices is None");
  const int num_shards = option.num_shards();
  const int hosts_needed = num_shards / hosts.size;
  if (num_shards % hosts.size != 0) {
    return fmt::format(
        "Grid Sharding is unable to place shards equally over hosts without overlapping. "
        "num_shards={} % local_world_size={} != 0",
        num_shards, hosts.size);
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
      for (int i = host_index; i < host_index + hosts_needed; ++i) selected.push_back(sorted[static_cast<std::size_t>(i)]);
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
      error = fmt::format("unexpected multi_host sharding type: {}", to_string(option.sharding_type));
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
  if (detail == FailureDetail::kVerdictOnly) return std::string();
  return "can't find hosts for sharding option group " + group_repr(option, param_count);
}

}  // namespace shardplan
