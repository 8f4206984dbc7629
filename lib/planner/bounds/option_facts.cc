#include "planner/bounds/option_facts.h"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <functional>
#include <limits>

namespace shardplan {
namespace {

Storage storage_of_shard(const Shard& s) { return s.storage.value_or(Storage{}); }

// The only device shard `j` of `option` may go to, or -1 when it has a choice.
// Follows torchrec's partitioners: uniform puts shard k on device k; table_row_wise
// puts shard k on local device k of its host; grid_shard puts shard k on local
// device k mod local_world_size of its block's host.
int forced_device(const ShardingOption& option, int j, const DeviceCapacities& devices) {
  if (devices.size() == 1) return 0;
  switch (option.partition_by) {
    case PartitionBy::kUniform:
      return j;
    case PartitionBy::kHost:
      return devices.hosts() == 1 && option.sharding_type == ShardingType::kTableRowWise ? j : -1;
    case PartitionBy::kMultiHost:
      return devices.hosts() == 1 ? j % devices.local() : -1;
    case PartitionBy::kDevice:
      return -1;
  }
  return -1;
}

// Whether the option's shards can be laid out by its partition rule, each shard
// alone against the free capacities (a necessary condition of any placement).
bool placeable(const ShardingOption& option, const DeviceCapacities& devices) {
  const int n = option.num_shards();
  const int local = devices.local();
  const int hosts = devices.hosts();
  const auto fits_at = [&](int j, int device) {
    return storage_of_shard(option.shards[static_cast<std::size_t>(j)]).fits_in(devices.free(device));
  };
  switch (option.partition_by) {
    case PartitionBy::kUniform:
      if (n != devices.size()) return false;  // torchrec: one shard per device
      for (const ShardRun& run : option.shards.runs()) {
        const Storage storage = run.storage.value_or(Storage{});
        for (int k = 0; k < run.count; ++k)
          if (!storage.fits_in(devices.free(run.begin + k))) return false;
      }
      return true;
    case PartitionBy::kHost:
      for (int h = 0; h < hosts; ++h) {
        bool ok = true;
        if (option.sharding_type == ShardingType::kTableRowWise) {
          ok = n == local;
          for (int j = 0; ok && j < n; ++j) ok = fits_at(j, h * local + j);
        } else {
          Storage host_free;
          for (int d = 0; d < local; ++d) host_free += devices.free(h * local + d);
          ok = option.total_storage().fits_in(host_free);
          for (int j = 0; ok && j < n; ++j) {
            bool some = false;
            for (int d = 0; !some && d < local; ++d) some = fits_at(j, h * local + d);
            ok = some;
          }
        }
        if (ok) return true;
      }
      return false;
    case PartitionBy::kMultiHost:
      if (hosts == 0 || n % local != 0) return false;
      for (int j = 0; j < n; ++j) {
        bool some = false;
        for (int h = 0; !some && h < hosts; ++h) some = fits_at(j, h * local + j % local);
        if (!some) return false;
      }
      return true;
    case PartitionBy::kDevice:
      for (const ShardRun& run : option.shards.runs())  // equal shards: one test per run
        if (!devices.any_fits(run.storage.value_or(Storage{}))) return false;
      return true;
  }
  return false;
}

}  // namespace

DeviceCapacities::DeviceCapacities(const Topology& reserved) : local_(std::max(reserved.local_world_size, 1)) {
  for (const DeviceHardware& d : reserved.devices) free_.push_back(d.storage);
  std::vector<Storage> by_hbm = free_;
  std::sort(by_hbm.begin(), by_hbm.end(), [](const Storage& a, const Storage& b) { return a.hbm > b.hbm; });
  std::int64_t most_ddr = std::numeric_limits<std::int64_t>::min();
  for (const Storage& s : by_hbm) {
    hbm_descending_.push_back(s.hbm);
    most_ddr = std::max(most_ddr, s.ddr);
    ddr_running_max_.push_back(most_ddr);
  }
}

bool DeviceCapacities::any_fits(const Storage& s) const {
  // The devices with at least s.hbm are a prefix of hbm_descending_.
  const auto end = std::upper_bound(hbm_descending_.begin(), hbm_descending_.end(), s.hbm, std::greater<>());
  const auto count = end - hbm_descending_.begin();
  return count > 0 && ddr_running_max_[static_cast<std::size_t>(count - 1)] >= s.ddr;
}

BoundOptionFacts option_facts(const ShardingOption& option, const DeviceCapacities& devices) {
  BoundOptionFacts f;
  f.option = &option;
  bool first = true;
  for (const ShardRun& run : option.shards.runs()) {
    const double p = run.perf.value_or(Perf{}).total();
    const Storage storage = run.storage.value_or(Storage{});
    for (int k = 0; k < run.count; ++k) f.total_perf += p;  // shard by shard, as floating point needs
    f.total_storage.hbm += run.count * storage.hbm;
    f.total_storage.ddr += run.count * storage.ddr;
    // Only a run's first shard can be strictly larger than what came before.
    if (first || p > f.largest_shard_perf) {
      f.largest_shard_perf = p;
      f.largest_shard_storage = storage;
      first = false;
    }
  }
  f.usable = !option.shards.empty() && placeable(option, devices);
  // Whether forced_device fixes a shard depends on the option and the devices,
  // never on the shard's index: the first shard answers for all.
  f.forced = option.shards.empty() || forced_device(option, 0, devices) >= 0;
  return f;
}

void local_index_loads(const BoundOptionFacts& facts, const DeviceCapacities& devices, std::vector<double>& perf) {
  const int local = devices.local();
  perf.assign(static_cast<std::size_t>(local), 0.0);
  const ShardingOption& option = *facts.option;
  const bool by_index =
      option.partition_by == PartitionBy::kUniform || option.partition_by == PartitionBy::kMultiHost ||
      (option.partition_by == PartitionBy::kHost && option.sharding_type == ShardingType::kTableRowWise);
  if (!by_index) return;
  // Shard j adds its perf to index j mod local, in shard order. Within a run every
  // shard adds the same p, so index k receives p some m_k times in a row: the sum
  // depends only on (its value before the run, m_k), and those pairs repeat across
  // the indices (a row-wise run of 1 024 shards over 8 indices is 8 x 128 equal
  // additions from 0): each distinct pair is added up once.
  struct Repeat {
    double start = 0;
    std::int64_t times = -1;
    double result = 0;
  } last;
  for (const ShardRun& run : option.shards.runs()) {
    const double p = run.perf.value_or(Perf{}).total();
    const std::int64_t full = run.count / local, extra = run.count % local;
    for (int k = 0; k < local; ++k) {
      // Shards of the run at index k: those j = begin + i with (begin + i) mod local == k.
      const int first = ((k - run.begin) % local + local) % local;  // first i hitting k
      const std::int64_t times = full + (first < extra ? 1 : 0);
      if (times == 0) continue;
      double& value = perf[static_cast<std::size_t>(k)];
      if (std::bit_cast<std::uint64_t>(value) != std::bit_cast<std::uint64_t>(last.start) || times != last.times) {
        last.start = value;
        last.times = times;
        last.result = value;
        for (std::int64_t i = 0; i < times; ++i) last.result += p;
      }
      value = last.result;
    }
    last.times = -1;  // another run adds another p
  }
}

void forced_loads(const BoundOptionFacts& facts, const DeviceCapacities& devices, std::vector<double>& perf,
                  std::vector<Storage>& storage, std::vector<int>* positive) {
  perf.assign(static_cast<std::size_t>(devices.size()), 0.0);
  storage.assign(static_cast<std::size_t>(devices.size()), Storage{});
  if (positive != nullptr) positive->assign(static_cast<std::size_t>(devices.size()), 0);
  const ShardingOption& option = *facts.option;
  for (const ShardRun& run : option.shards.runs()) {
    const double p = run.perf.value_or(Perf{}).total();
    const Storage s = run.storage.value_or(Storage{});
    for (int k = 0; k < run.count; ++k) {
      const int device = forced_device(option, run.begin + k, devices);
      if (device < 0 || device >= devices.size()) continue;
      perf[static_cast<std::size_t>(device)] += p;
      storage[static_cast<std::size_t>(device)] += s;
      if (positive != nullptr && p > 0) ++(*positive)[static_cast<std::size_t>(device)];
    }
  }
}

}  // namespace shardplan
