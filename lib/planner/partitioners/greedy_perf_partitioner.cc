#include "planner/partitioners/greedy_perf_partitioner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "planner/partitioners/greedy/device_heap.h"
#include "planner/partitioners/greedy/host_order.h"
#include "planner/partitioners/greedy/partition_steps.h"
#include "planner/partitioners/greedy/uniform_fast_step.h"

namespace shardplan {
namespace {

// Buffers reused by every partition() call on one thread: a big proposal is
// partitioned tens of thousands of times, and allocating these afresh each time
// costs as much as the partitioning.
struct Workspace {
  std::vector<DeviceLoad> devices;
  std::vector<const OptionBrief*> brief;
  std::vector<std::unique_ptr<OptionBrief>> foreign_briefs;
  std::vector<const OptionSummary*> summary;
  std::vector<int> per_path;
  std::vector<int> order;
  std::vector<std::uint64_t> keys;       // sorted sort keys of the last ranked proposal
  std::vector<std::uint64_t> key_of;     // its key per proposal index (kUniformKey: none)
  std::vector<std::uint64_t> new_key_of;
  std::vector<int> slots;
  std::vector<int> placed_hosts;
  DeviceHeap heap;
  HostOrder hosts;
  UniformScratch uniform;
  HostStepScratch host_steps;
};

Workspace& workspace() {
  thread_local Workspace w;
  return w;
}

constexpr std::uint64_t kUniformKey = ~std::uint64_t{0};
// Proposals differing from the previous one on this thread in at most this many
// options get their order patched rather than sorted afresh.
constexpr std::size_t kMaxPatchedOptions = 16;

// The placement order from unique integer keys (dense rank of the sort total,
// then proposal index): the order torchrec's stable sort gives. Consecutive
// proposals of a proposer mostly differ in one table, so the previous proposal's
// sorted keys are patched (one erase and one insert per changed option) instead
// of sorting thousands of keys again; unique keys make both ways the same order.
// The key of option i in the placement order: dense rank of its sort total, then
// its proposal index (kUniformKey for uniform options, which are placed first).
std::uint64_t sort_key(const OptionBrief& b, SortBy sort_by, std::size_t i) {
  const int rank = sort_by == SortBy::kStorage ? b.storage_rank : b.perf_rank;
  return b.partition_by == PartitionBy::kUniform ? kUniformKey
                                                 : static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint32_t>(i);
}

// The placement order from the unique keys in ws.new_key_of (`changed` of them
// differ from the last ranked proposal's): the order torchrec's stable sort
// gives. Consecutive proposals of a proposer mostly differ in one table, so the
// previous proposal's sorted keys are patched (one erase and one insert per
// changed option) instead of sorting thousands of keys again; unique keys make
// both ways the same order.
void sort_by_unique_keys(std::size_t changed, Workspace& ws) {
  std::vector<std::uint64_t>& key_of = ws.new_key_of;
  std::vector<std::uint64_t>& keys = ws.keys;
  if (ws.key_of.size() == key_of.size() && changed <= kMaxPatchedOptions) {
    for (std::size_t i = 0; i < key_of.size(); ++i) {
      if (ws.key_of[i] == key_of[i]) continue;
      if (ws.key_of[i] != kUniformKey) keys.erase(std::lower_bound(keys.begin(), keys.end(), ws.key_of[i]));
      if (key_of[i] != kUniformKey) keys.insert(std::lower_bound(keys.begin(), keys.end(), key_of[i]), key_of[i]);
    }
  } else {
    keys.clear();
    for (std::uint64_t k : key_of)
      if (k != kUniformKey) keys.push_back(k);
    std::sort(keys.begin(), keys.end());
  }
  ws.key_of.swap(key_of);
  ws.order.resize(keys.size());
  for (std::size_t n = 0; n < keys.size(); ++n) ws.order[n] = static_cast<int>(keys[n] & 0xffffffffu);
}

PartitionOutcome failure(std::string message) {
  PartitionOutcome outcome;
  outcome.ok = false;
  outcome.error_type = PlannerErrorType::kPartition;
  outcome.message = std::move(message);
  return outcome;
}

}  // namespace

PartitionOutcome GreedyPerfPartitioner::partition(const Proposal& proposal, const Topology& storage_constraint,
                                                  FailureDetail detail) const {
  return partition_capped(proposal, storage_constraint, 0, detail);
}

PartitionOutcome GreedyPerfPartitioner::partition_capped(const Proposal& proposal,
                                                         const Topology& storage_constraint,
                                                         std::int64_t hbm_per_device,
                                                         FailureDetail detail) const {
  Workspace& ws = workspace();
  std::vector<DeviceLoad>& devices = ws.devices;
  devices.clear();
  bool ranks_are_positions = true;  // device k is rank k: uniform options then need no rank list
  for (const DeviceHardware& d : storage_constraint.devices) {
    ranks_are_positions = ranks_are_positions && d.rank == static_cast<int>(devices.size());
    // torchrec: Storage(hbm=hbm_per_device or d.storage.hbm, ...): 0 means "keep".
    devices.push_back(DeviceLoad{d.rank, {hbm_per_device != 0 ? hbm_per_device : d.storage.hbm, d.storage.ddr},
                                 d.perf, d.perf.total()});
  }
  Hosts hosts;
  hosts.size = std::max(storage_constraint.local_world_size, 1);
  hosts.count = storage_constraint.world_size / hosts.size;

  // One pass over the proposal reads only the packed briefs (no option is
  // dereferenced unless it is foreign to the prepared search space).
  std::vector<std::unique_ptr<OptionSummary>> scratch;  // summaries of foreign options (rare)
  std::vector<const OptionBrief*>& brief = ws.brief;
  ws.foreign_briefs.clear();
  std::vector<const OptionSummary*>& summary = ws.summary;
  brief.resize(proposal.size());
  summary.resize(proposal.size());
  ws.uniform.uniform.clear();
  std::vector<int>& order = ws.order;
  order.clear();
  bool all_paths_known = true;
  Storage proposal_storage;
  // The sort keys and the "every option ranked" test ride along in this pass
  // (see sort_by_unique_keys); they are only used if the proposal gets that far.
  bool ranked = !balance_modules_;
  std::vector<std::uint64_t>& key_of = ws.new_key_of;
  key_of.resize(proposal.size());
  const bool same_size = ws.key_of.size() == proposal.size();
  std::size_t changed = same_size ? 0 : proposal.size();
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const std::ptrdiff_t index = summaries_.index_of(proposal[i]);
    if (index >= 0) {
      brief[i] = &summaries_.brief(index);
      summary[i] = &summaries_.summary(index);
    } else {
      scratch.push_back(std::make_unique<OptionSummary>(summaries_.summarise(*proposal[i])));
      summary[i] = scratch.back().get();
      ws.foreign_briefs.push_back(std::make_unique<OptionBrief>(OptionSummaries::brief_of(*proposal[i], *summary[i])));
      brief[i] = ws.foreign_briefs.back().get();
    }
    all_paths_known = all_paths_known && brief[i]->path_id >= 0;
    proposal_storage += brief[i]->total_storage;
    if (brief[i]->partition_by == PartitionBy::kUniform) {
      ws.uniform.uniform.push_back(i);
    } else {
      order.push_back(static_cast<int>(i));
      ranked = ranked && (sort_by_ == SortBy::kStorage ? brief[i]->storage_rank : brief[i]->perf_rank) >= 0;
    }
    key_of[i] = sort_key(*brief[i], sort_by_, i);
    if (same_size) changed += ws.key_of[i] != key_of[i] ? 1 : 0;
  }

  // More storage than all devices together: no placement exists, so torchrec's
  // greedy fails too, somewhere; only where (its message) would need the steps.
  if (detail == FailureDetail::kVerdictOnly) {
    Storage capacity;
    for (const DeviceLoad& d : devices) capacity += d.free;
    if (!proposal_storage.fits_in(capacity)) return failure({});
  }

  // Uniform options first, in proposal order, shard i on device i.
  std::string uniform_error;
  const FastUniform fast =
      uniform_partition_fast(proposal, brief, summary, devices, detail, uniform_error, ws.uniform);
  if (fast == FastUniform::kFailed) return failure(std::move(uniform_error));

  PartitionOutcome outcome;
  Placement& placement = outcome.placement;
  placement.start(proposal.size());
  for (const OptionBrief* b : brief) {
    if (b->partition_by == PartitionBy::kUniform && ranks_are_positions)
      placement.add_consecutive(static_cast<std::size_t>(b->num_shards), 0);
    else
      placement.add(static_cast<std::size_t>(b->num_shards));
  }
  if (fast == FastUniform::kNotApplicable) {
    ws.slots.resize(devices.size());
    std::iota(ws.slots.begin(), ws.slots.end(), 0);
    for (std::size_t i : ws.uniform.uniform) {
      if (auto error = uniform_partition(proposal[i]->shards, devices, ws.slots, placement.ranks_of(i)))
        return failure(detail == FailureDetail::kMessage ? std::move(*error) : std::string());
    }
  }

  // torchrec groups the others by `dependency or fqn`; dependency is only set for
  // EmbeddingTower modules, which the config cannot express, so every group is
  // one option. param_count: how many options of the proposal (uniform ones too)
  // share the option's module path.
  // Counted on first use: only messages, host-level steps and balance_modules
  // need it.
  std::map<std::string, int> options_per_foreign_path;
  bool counted = false;
  auto param_count = [&](std::size_t i) {
    if (!counted) {
      counted = true;
      if (all_paths_known) {
        ws.per_path.assign(static_cast<std::size_t>(summaries_.path_count()), 0);
        for (const OptionBrief* b : brief) ++ws.per_path[static_cast<std::size_t>(b->path_id)];
      } else {
        for (const ShardingOption* option : proposal) ++options_per_foreign_path[option->path];
      }
    }
    return all_paths_known ? ws.per_path[static_cast<std::size_t>(brief[i]->path_id)]
                           : options_per_foreign_path[proposal[i]->path];
  };
  // torchrec sorts with key [-param_count?, storage_sum | perf_sum], reverse=True:
  // descending, and Python's sort stays stable under reverse, so ties keep
  // proposal order (hence stable_sort on "key greater").
  if (ranked) {
    sort_by_unique_keys(changed, ws);
  } else {
    std::vector<int> counts(proposal.size());
    for (std::size_t i = 0; i < proposal.size(); ++i) counts[i] = param_count(i);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      const auto x = static_cast<std::size_t>(a), y = static_cast<std::size_t>(b);
      if (balance_modules_ && counts[x] != counts[y]) return counts[x] < counts[y];
      if (sort_by_ == SortBy::kStorage) return summary[x]->total_storage > summary[y]->total_storage;
      return summary[x]->total_perf > summary[y]->total_perf;
    });
  }

  // One heap and one host order for the whole proposal, each kept current as
  // devices take shards (see DeviceHeap and HostOrder for why that is torchrec's
  // choice every time).
  bool heap_built = false;
  ws.hosts.reset(hosts);
  auto host_changed = [&](int host) {
    const std::size_t begin = static_cast<std::size_t>(host) * static_cast<std::size_t>(hosts.size);
    for (std::size_t p = begin; p < begin + static_cast<std::size_t>(hosts.size) && p < devices.size(); ++p) {
      ws.hosts.touch(p);
      if (heap_built) ws.heap.update(static_cast<int>(p));
    }
  };
  for (int index : order) {
    const auto i = static_cast<std::size_t>(index);
    const ShardingOption& option = *proposal[i];
    std::span<int> ranks = placement.ranks_of(i);
    StepError error;
    switch (brief[i]->partition_by) {
      case PartitionBy::kMultiHost:
        error = multi_host_partition(option, devices, hosts, ws.hosts, param_count(i), ranks, detail,
                                     ws.placed_hosts);
        if (!error)
          for (int host : ws.placed_hosts) host_changed(host);
        break;
      case PartitionBy::kHost: {
        int host = -1;
        error = cohost_partition(option, *brief[i], devices, hosts, ws.hosts, param_count(i), ranks, detail, ws.host_steps,
                                 host);
        if (!error) host_changed(host);
        break;
      }
      case PartitionBy::kDevice:
        if (!heap_built) {
          ws.heap.reset(devices, storage_constraint.local_world_size);
          heap_built = true;
        }
        error = device_partition(option, *brief[i], devices, ws.heap, ws.host_steps.skipped, ranks, detail, &ws.hosts);
        break;
      case PartitionBy::kUniform:
        break;
    }
    if (error) return failure(std::move(*error));
  }
  outcome.ok = true;
  return outcome;
}

}  // namespace shardplan
