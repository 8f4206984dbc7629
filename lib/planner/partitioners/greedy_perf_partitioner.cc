#include "planner/partitioners/greedy_perf_partitioner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "planner/partitioners/torchrec_repr.h"

namespace shardplan {
namespace {

Storage storage_of(const Shard& shard) { return shard.storage.value_or(Storage{}); }
Perf perf_of(const Shard& shard) { return shard.perf.value_or(Perf{}); }

// A device's remaining capacity and accumulated load while partitioning (torchrec
// copies the DeviceHardware list and mutates the copies the same way).
struct DeviceLoad {
  int rank = 0;
  Storage free;
  Perf perf;
  double perf_total = 0;  // perf.total() of the component sums, as torchrec compares

  void place(const Shard& shard) {
    free -= storage_of(shard);
    perf += perf_of(shard);
    perf_total = perf.total();
  }
};

// PlannerError(PARTITION) text when a step fails, nullopt when it succeeds.
using StepError = std::optional<std::string>;

// A min-heap of device positions keyed like torchrec's OrderedDeviceHardware:
// (perf total, rank % local_world_size, rank). The key is unique per device, so
// the top is always THE minimum and the heap's internal layout (which torchrec's
// bulk heapify changes) can never change a choice.
class DeviceHeap {
 public:
  DeviceHeap(std::span<DeviceLoad> devices, int local_world_size)
      : after_{devices, std::max(local_world_size, 1)} {
    heap_.resize(devices.size());
    std::iota(heap_.begin(), heap_.end(), 0);
    std::make_heap(heap_.begin(), heap_.end(), after_);
  }
  bool empty() const { return heap_.empty(); }
  int top() const { return heap_.front(); }
  void pop() {
    std::pop_heap(heap_.begin(), heap_.end(), after_);
    heap_.pop_back();
  }
  void push(int position) {
    heap_.push_back(position);
    std::push_heap(heap_.begin(), heap_.end(), after_);
  }
  // Re-seats the top after its load grew (torchrec's heapreplace with itself).
  // Only the top's key grew, so one sift-down restores the heap.
  void top_changed() {
    const std::size_t n = heap_.size();
    std::size_t at = 0;
    const int moving = heap_[0];
    while (true) {
      std::size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && after_(heap_[child], heap_[child + 1])) ++child;
      if (!after_(moving, heap_[child])) break;
      heap_[at] = heap_[child];
      at = child;
    }
    heap_[at] = moving;
  }

 private:
  // std heaps keep the greatest on top; ordering by "greater key" gives a min-heap.
  struct KeyGreater {
    std::span<DeviceLoad> devices;
    int local_world_size;
    bool operator()(int a, int b) const {
      const DeviceLoad& x = devices[static_cast<std::size_t>(a)];
      const DeviceLoad& y = devices[static_cast<std::size_t>(b)];
      if (x.perf_total != y.perf_total) return x.perf_total > y.perf_total;
      const int lx = x.rank % local_world_size, ly = y.rank % local_world_size;
      if (lx != ly) return lx > ly;
      return x.rank > y.rank;
    }
  };

  KeyGreater after_;
  std::vector<int> heap_;
};

// torchrec's PlannerError text when a uniform shard does not fit its device.
std::string uniform_misfit(const Storage& shard, const Storage& free) {
  return fmt::format("Shard of size {} bytes does not fit on any rank. Device memory cap: {}.",
                     storage_repr(shard), storage_repr(free));
}

// torchrec's _uniform_partition for one option: shard i goes to devices[slots[i]].
StepError uniform_partition(const ShardingOption& option, std::span<DeviceLoad> devices,
                            std::span<const int> slots, std::vector<int>& ranks) {
  if (option.num_shards() != static_cast<int>(slots.size())) {
    return fmt::format(
        "For a uniform partition, the number of shards ({}) must equal the number of "
        "devices ({})",
        option.num_shards(), slots.size());
  }
  for (std::size_t i = 0; i < slots.size(); ++i) {
    const Shard& shard = option.shards[i];
    DeviceLoad& device = devices[static_cast<std::size_t>(slots[i])];
    if (!storage_of(shard).fits_in(device.free)) return uniform_misfit(storage_of(shard), device.free);
    ranks[i] = device.rank;
    device.place(shard);
  }
  return std::nullopt;
}

// torchrec's _device_partition: each shard on the heap's least-loaded device that
// can hold it; devices skipped on the way go back into the heap afterwards.
StepError device_partition(const ShardingOption& option, std::span<DeviceLoad> devices,
                           DeviceHeap& heap, std::vector<int>& ranks) {
  std::vector<int> skipped;
  for (std::size_t j = 0; j < option.shards.size(); ++j) {
    const Shard& shard = option.shards[j];
    skipped.clear();
    bool placed = false;
    while (!heap.empty()) {
      DeviceLoad& device = devices[static_cast<std::size_t>(heap.top())];
      if (storage_of(shard).fits_in(device.free)) {
        ranks[j] = device.rank;
        device.place(shard);
        heap.top_changed();
        placed = true;
        break;
      }
      skipped.push_back(heap.top());
      heap.pop();
    }
    if (!placed) {
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

// torchrec's ShardingOptionGroup repr. Python prints the option as an object
// address, which cannot be reproduced; the table's fqn stands in for it.
std::string group_repr(const ShardingOption& option, int param_count) {
  return fmt::format(
      "ShardingOptionGroup(sharding_options=[<torchrec.distributed.planner.types."
      "ShardingOption object for {}>], storage_sum={}, perf_sum={}, param_count={})",
      option.fqn(), storage_repr(option.total_storage()),
      python_repr(option.total_perf()), -param_count);
}

// The per-host device ranges (torchrec's _get_host_level_devices) and the
// bookkeeping shared by the host-level steps.
struct Hosts {
  int size = 1;   // devices per host (local_world_size)
  int count = 0;  // world_size // local_world_size

  std::span<DeviceLoad> devices_of(std::span<DeviceLoad> all, int host) const {
    const std::size_t begin = std::min(all.size(), static_cast<std::size_t>(host) * size);
    const std::size_t end = std::min(all.size(), begin + static_cast<std::size_t>(size));
    return all.subspan(begin, end - begin);
  }

  // torchrec's _sort_devices_by_perf: hosts by the sum of their devices' perf
  // totals, ascending; sorted() is stable, so ties keep host order.
  std::vector<int> sorted_by_perf(std::span<DeviceLoad> all) const {
    std::vector<double> sums(static_cast<std::size_t>(count), 0.0);
    for (int h = 0; h < count; ++h)
      for (const DeviceLoad& d : devices_of(all, h)) sums[static_cast<std::size_t>(h)] += d.perf_total;
    // (sum, host) pairs are unique, so an unstable sort on them is the stable order.
    std::vector<std::pair<double, int>> keyed(static_cast<std::size_t>(count));
    for (int h = 0; h < count; ++h) keyed[static_cast<std::size_t>(h)] = {sums[static_cast<std::size_t>(h)], h};
    std::sort(keyed.begin(), keyed.end(), [](const auto& a, const auto& b) {
      return a.first < b.first || (!(b.first < a.first) && a.second < b.second);
    });
    std::vector<int> order(static_cast<std::size_t>(count));
    for (int h = 0; h < count; ++h) order[static_cast<std::size_t>(h)] = keyed[static_cast<std::size_t>(h)].second;
    return order;
  }
};

// torchrec's _cohost_partition for a one-option group: the first host (by perf)
// whose summed free storage covers the option and on which every shard fits.
StepError cohost_partition(const ShardingOption& option, std::span<DeviceLoad> devices,
                           const Hosts& hosts, int param_count, std::vector<int>& ranks) {
  const Storage needed = option.total_storage();
  for (int host : hosts.sorted_by_perf(devices)) {
    std::span<DeviceLoad> host_devices = hosts.devices_of(devices, host);
    std::vector<DeviceLoad> trial(host_devices.begin(), host_devices.end());
    Storage host_storage;
    for (const DeviceLoad& d : trial) host_storage += d.free;
    if (!needed.fits_in(host_storage)) continue;
    std::vector<int> trial_ranks(option.shards.size(), -1);
    StepError error;
    if (option.sharding_type == ShardingType::kTableRowWise) {
      std::vector<int> slots(trial.size());
      std::iota(slots.begin(), slots.end(), 0);
      error = uniform_partition(option, trial, slots, trial_ranks);
    } else if (option.sharding_type == ShardingType::kTableColumnWise) {
      // torchrec keys this heap with local_world_size = the host's device count.
      DeviceHeap heap(trial, static_cast<int>(trial.size()));
      error = device_partition(option, trial, heap, trial_ranks);
    } else {
      error = fmt::format("unexpected cohost sharding type: {}", to_string(option.sharding_type));
    }
    if (error) continue;  // torchrec catches the PlannerError and tries the next host
    std::copy(trial.begin(), trial.end(), host_devices.begin());
    ranks = std::move(trial_ranks);
    return std::nullopt;
  }
  return "can't find a host for sharding option group " + group_repr(option, param_count);
}

// torchrec's _multi_hosts_partition (grid_shard): num_shards / local_world_size
// whole hosts taken in perf order, sliding by one host until the shards fit; when
// that many hosts or more are needed, all hosts are used once, cyclically.
StepError multi_host_partition(const ShardingOption& option, std::span<DeviceLoad> devices,
                               const Hosts& hosts, int param_count, std::vector<int>& ranks) {
  if (hosts.count == 0) return std::string("host level devices is None");
  const int num_shards = option.num_shards();
  const int hosts_needed = num_shards / hosts.size;
  if (num_shards % hosts.size != 0) {
    return fmt::format(
        "Grid Sharding is unable to place shards equally over hosts without overlapping. "
        "num_shards={} % local_world_size={} != 0",
        num_shards, hosts.size);
  }
  const std::vector<int> sorted = hosts.sorted_by_perf(devices);
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
      error = uniform_partition(option, trial, slots, trial_ranks);
    } else {
      error = fmt::format("unexpected multi_host sharding type: {}", to_string(option.sharding_type));
    }
    if (!error) {
      for (const auto& [host, base] : trial_base) {
        std::span<DeviceLoad> host_devices = hosts.devices_of(devices, host);
        std::copy_n(trial.begin() + base, host_devices.size(), host_devices.begin());
      }
      ranks = std::move(trial_ranks);
      return std::nullopt;
    }
    if (host_index + hosts_needed > hosts.count || all_hosts_used) break;
  }
  return "can't find hosts for sharding option group " + group_repr(option, param_count);
}

// param_count per proposal entry: how many options of the proposal share its
// module path (torchrec counts them per path, uniform options included).
std::vector<int> param_counts(const Proposal& proposal, const std::vector<const OptionSummary*>& summary,
                              int path_count) {
  std::vector<int> out(proposal.size());
  bool all_known = true;
  for (const OptionSummary* s : summary) all_known = all_known && s->path_id >= 0;
  if (all_known) {
    std::vector<int> per_path(static_cast<std::size_t>(path_count), 0);
    for (const OptionSummary* s : summary) ++per_path[static_cast<std::size_t>(s->path_id)];
    for (std::size_t i = 0; i < proposal.size(); ++i)
      out[i] = per_path[static_cast<std::size_t>(summary[i]->path_id)];
    return out;
  }
  std::map<std::string, int> options_per_path;
  for (const ShardingOption* option : proposal) ++options_per_path[option->path];
  for (std::size_t i = 0; i < proposal.size(); ++i) out[i] = options_per_path[proposal[i]->path];
  return out;
}

// The uniform step in O(uniform options + devices) when every uniform option's
// shards share one perf and all devices start from the same perf: each device
// then receives the same additions in the same order, so one running sum is every
// device's sum bit for bit. Storage is integral and non-negative, so "each shard
// fits when placed" equals "the total fits", and the first misfit in torchrec's
// order (option, then shard) is found by bisecting on the number of options.
enum class FastUniform { kNotApplicable, kPlaced, kFailed };

// Up to this many devices a misfit is found by replaying the options (U x W
// steps, stopping at the misfit) rather than by bisection (log U x (U + W)).
constexpr std::size_t kLinearMisfitSearchMaxWorld = 16;

struct UniformFastPath {
  const Proposal& proposal;
  const std::vector<const OptionSummary*>& summary;
  std::vector<std::size_t> uniform;  // proposal indices of the uniform options

  // need[k]: storage the first n uniform options put on device k (size world + 1).
  void need_after(std::size_t n, std::size_t world, std::vector<Storage>& need) const {
    need.assign(world + 1, Storage{});
    Storage common;
    for (std::size_t u = 0; u < n; ++u) {
      const OptionSummary& s = *summary[uniform[u]];
      if (s.storage_homogeneous) {
        common += s.shard_storage;
        continue;
      }
      for (const auto& run : s.storage_runs) {  // difference array over the runs
        need[static_cast<std::size_t>(run.begin)] += run.storage;
        need[static_cast<std::size_t>(run.end)] -= run.storage;
      }
    }
    for (std::size_t k = 1; k <= world; ++k) need[k] += need[k - 1];
    for (std::size_t k = 0; k < world; ++k) need[k] += common;
  }
  // The first device on which `need` does not fit, or world.
  static std::size_t first_misfit(const std::vector<Storage>& need, std::span<const DeviceLoad> devices) {
    for (std::size_t k = 0; k < devices.size(); ++k)
      if (!need[k].fits_in(devices[k].free)) return k;
    return devices.size();
  }
};

FastUniform uniform_partition_fast(const Proposal& proposal, const std::vector<const OptionSummary*>& summary,
                                   std::vector<DeviceLoad>& devices, Placement& placement, std::string& error) {
  const std::size_t world = devices.size();
  if (world == 0) return FastUniform::kNotApplicable;
  const Perf& first = devices[0].perf;
  for (const DeviceLoad& d : devices)
    if (!(d.perf.fwd_compute == first.fwd_compute && d.perf.fwd_comms == first.fwd_comms &&
          d.perf.bwd_compute == first.bwd_compute && d.perf.bwd_comms == first.bwd_comms &&
          d.perf.prefetch_compute == first.prefetch_compute))
      return FastUniform::kNotApplicable;
  UniformFastPath path{proposal, summary, {}};
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    if (proposal[i]->partition_by != PartitionBy::kUniform) continue;
    if (proposal[i]->shards.size() != world || !summary[i]->perf_homogeneous) return FastUniform::kNotApplicable;
    path.uniform.push_back(i);
  }
  if (path.uniform.empty()) return FastUniform::kPlaced;

  std::vector<Storage> need;
  path.need_after(path.uniform.size(), world, need);
  if (path.first_misfit(need, devices) < world && world <= kLinearMisfitSearchMaxWorld) {
    // Few devices: replay the options in order, one running total per device.
    std::vector<Storage> placed(world);
    for (std::size_t i : path.uniform) {
      const ShardingOption& option = *proposal[i];
      for (std::size_t k = 0; k < world; ++k) {
        const Storage shard = storage_of(option.shards[k]);
        if (!(placed[k] + shard).fits_in(devices[k].free)) {
          error = uniform_misfit(shard, devices[k].free - placed[k]);
          return FastUniform::kFailed;
        }
        placed[k] += shard;
      }
    }
  }
  if (path.first_misfit(need, devices) < world) {
    // Prefix lo fits everywhere, prefix hi does not; the misfit is option hi - 1.
    std::size_t lo = 0, hi = path.uniform.size();
    while (hi - lo > 1) {
      const std::size_t mid = lo + (hi - lo) / 2;
      path.need_after(mid, world, need);
      (path.first_misfit(need, devices) < world ? hi : lo) = mid;
    }
    path.need_after(hi, world, need);
    const std::size_t k = path.first_misfit(need, devices);
    std::vector<Storage> before;
    path.need_after(hi - 1, world, before);
    const ShardingOption& option = *proposal[path.uniform[hi - 1]];
    error = uniform_misfit(storage_of(option.shards[k]), devices[k].free - before[k]);
    return FastUniform::kFailed;
  }

  Perf perf = devices[0].perf;
  for (std::size_t i : path.uniform) perf += summary[i]->shard_perf;
  const double perf_total = perf.total();
  for (std::size_t k = 0; k < world; ++k) {
    DeviceLoad& d = devices[k];
    d.free -= need[k];
    d.perf = perf;
    d.perf_total = perf_total;
  }
  for (std::size_t i : path.uniform) {
    auto& ranks = placement.ranks[i];
    ranks.resize(world);
    for (std::size_t k = 0; k < world; ++k) ranks[k] = devices[k].rank;
  }
  return FastUniform::kPlaced;
}

PartitionOutcome failure(std::string message) {
  PartitionOutcome outcome;
  outcome.ok = false;
  outcome.error_type = PlannerErrorType::kPartition;
  outcome.message = std::move(message);
  return outcome;
}

}  // namespace

PartitionOutcome GreedyPerfPartitioner::partition(const Proposal& proposal,
                                                  const Topology& storage_constraint) const {
  return partition(proposal, storage_constraint, 0);
}

PartitionOutcome GreedyPerfPartitioner::partition(const Proposal& proposal,
                                                  const Topology& storage_constraint,
                                                  std::int64_t hbm_per_device) const {
  std::vector<DeviceLoad> devices;
  devices.reserve(storage_constraint.devices.size());
  for (const DeviceHardware& d : storage_constraint.devices) {
    // torchrec: Storage(hbm=hbm_per_device or d.storage.hbm, ...): 0 means "keep".
    DeviceLoad load{d.rank, {hbm_per_device != 0 ? hbm_per_device : d.storage.hbm, d.storage.ddr},
                    d.perf, d.perf.total()};
    devices.push_back(load);
  }
  Hosts hosts;
  hosts.size = std::max(storage_constraint.local_world_size, 1);
  hosts.count = storage_constraint.world_size / hosts.size;

  // Summaries of options outside the prepared search space live here (rare).
  std::vector<std::unique_ptr<OptionSummary>> scratch;
  std::vector<const OptionSummary*> summary(proposal.size());
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    summary[i] = summaries_.find(*proposal[i]);
    if (!summary[i]) {
      scratch.push_back(std::make_unique<OptionSummary>(summaries_.summarise(*proposal[i])));
      summary[i] = scratch.back().get();
    }
  }

  // Uniform options first, in proposal order, shard i on device i. The fast step
  // fills the uniform options' ranks; a failed proposal allocates no placement.
  PartitionOutcome outcome;
  outcome.placement.ranks.resize(proposal.size());
  std::string uniform_error;
  const FastUniform fast = uniform_partition_fast(proposal, summary, devices, outcome.placement, uniform_error);
  if (fast == FastUniform::kFailed) return failure(std::move(uniform_error));
  for (std::size_t i = 0; i < proposal.size(); ++i)
    if (outcome.placement.ranks[i].empty()) outcome.placement.ranks[i].assign(proposal[i]->shards.size(), -1);
  if (fast == FastUniform::kNotApplicable) {
    std::vector<int> all_slots(devices.size());
    std::iota(all_slots.begin(), all_slots.end(), 0);
    for (std::size_t i = 0; i < proposal.size(); ++i) {
      if (proposal[i]->partition_by != PartitionBy::kUniform) continue;
      if (auto error = uniform_partition(*proposal[i], devices, all_slots, outcome.placement.ranks[i]))
        return failure(std::move(*error));
    }
  }

  // torchrec groups the others by `dependency or fqn`; dependency is only set for
  // EmbeddingTower modules, which the config cannot express, so every group is
  // one option. param_count counts ALL options of the module path, uniform ones too.
  std::vector<int> param_count = param_counts(proposal, summary, summaries_.path_count());
  std::vector<int> order;
  order.reserve(proposal.size());
  for (std::size_t i = 0; i < proposal.size(); ++i)
    if (proposal[i]->partition_by != PartitionBy::kUniform) order.push_back(static_cast<int>(i));
  // torchrec sorts with key [-param_count?, storage_sum | perf_sum], reverse=True:
  // descending, and Python's sort stays stable under reverse, so ties keep
  // proposal order (hence stable_sort on "key greater").
  bool ranked = !balance_modules_;
  for (int index : order) {
    const OptionSummary& s = *summary[static_cast<std::size_t>(index)];
    ranked = ranked && (sort_by_ == SortBy::kStorage ? s.storage_rank : s.perf_rank) >= 0;
  }
  if (ranked) {
    // The same order from unique integer keys (dense rank, then proposal index).
    std::vector<std::uint64_t> keys;
    keys.reserve(order.size());
    for (int index : order) {
      const OptionSummary& s = *summary[static_cast<std::size_t>(index)];
      const int rank = sort_by_ == SortBy::kStorage ? s.storage_rank : s.perf_rank;
      keys.push_back(static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint32_t>(index));
    }
    std::sort(keys.begin(), keys.end());
    for (std::size_t n = 0; n < keys.size(); ++n) order[n] = static_cast<int>(keys[n] & 0xffffffffu);
  } else {
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const auto x = static_cast<std::size_t>(a), y = static_cast<std::size_t>(b);
      if (balance_modules_ && param_count[x] != param_count[y]) return param_count[x] < param_count[y];
      if (sort_by_ == SortBy::kStorage) return summary[x]->total_storage > summary[y]->total_storage;
      return summary[x]->total_perf > summary[y]->total_perf;
    });
  }

  std::optional<DeviceHeap> heap;  // reused across device groups, as torchrec's minheap
  for (int index : order) {
    const auto i = static_cast<std::size_t>(index);
    const ShardingOption& option = *proposal[i];
    std::vector<int>& ranks = outcome.placement.ranks[i];
    StepError error;
    switch (option.partition_by) {
      case PartitionBy::kMultiHost:
        error = multi_host_partition(option, devices, hosts, param_count[i], ranks);
        heap.reset();  // host steps move loads behind the heap's back
        break;
      case PartitionBy::kHost:
        error = cohost_partition(option, devices, hosts, param_count[i], ranks);
        heap.reset();
        break;
      case PartitionBy::kDevice:
        if (!heap) heap.emplace(devices, storage_constraint.local_world_size);
        error = device_partition(option, devices, *heap, ranks);
        break;
      case PartitionBy::kUniform:
        break;
    }
    if (error) return failure(std::move(*error));
  }
  outcome.ok = true;
  return outcome;
}

std::unique_ptr<Partitioner> make_greedy_perf_partitioner(const PartitionerOptions& options) {
  auto sort_by = parse_name(kSortByNames, options.sort_by);
  if (!sort_by) {
    throw InputError({}, "partitioner.sort_by",
                     fmt::format("expected storage or perf, found '{}'", options.sort_by));
  }
  return std::make_unique<GreedyPerfPartitioner>(*sort_by, options.balance_modules);
}

}  // namespace shardplan
