#include "planner/partitioners/greedy_perf_partitioner.h"

#include <algorithm>
#include <map>
#include <memory>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/error.h"
#include "planner/partitioners/device_heap.h"
#include "planner/partitioners/host_order.h"
#include "planner/partitioners/partition_steps.h"
#include "planner/partitioners/uniform_fast_step.h"

namespace shardplan {
namespace {

// Buffers reused by every partition() call on one thread: a big proposal is
// partitioned tens of thousands of times, and allocating these afresh each time
// costs as much as the partitioning.
struct Workspace {
  std::vector<DeviceLoad> devices;
  std::vector<const OptionSummary*> summary;
  std::vector<int> param_count;
  std::vector<int> order;
  std::vector<std::uint64_t> keys;
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

// param_count per proposal entry: how many options of the proposal share its
// module path (torchrec counts them per path, uniform options included).
void param_counts(const Proposal& proposal, const std::vector<const OptionSummary*>& summary, int path_count,
                  std::vector<int>& out) {
  out.assign(proposal.size(), 0);
  bool all_known = true;
  for (const OptionSummary* s : summary) all_known = all_known && s->path_id >= 0;
  if (all_known) {
    std::vector<int> per_path(static_cast<std::size_t>(path_count), 0);
    for (const OptionSummary* s : summary) ++per_path[static_cast<std::size_t>(s->path_id)];
    for (std::size_t i = 0; i < proposal.size(); ++i)
      out[i] = per_path[static_cast<std::size_t>(summary[i]->path_id)];
    return;
  }
  std::map<std::string, int> options_per_path;
  for (const ShardingOption* option : proposal) ++options_per_path[option->path];
  for (std::size_t i = 0; i < proposal.size(); ++i) out[i] = options_per_path[proposal[i]->path];
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

  // Summaries of options outside the prepared search space live here (rare).
  std::vector<std::unique_ptr<OptionSummary>> scratch;
  std::vector<const OptionSummary*>& summary = ws.summary;
  summary.resize(proposal.size());
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    summary[i] = summaries_.find(*proposal[i]);
    if (!summary[i]) {
      scratch.push_back(std::make_unique<OptionSummary>(summaries_.summarise(*proposal[i])));
      summary[i] = scratch.back().get();
    }
  }

  // Uniform options first, in proposal order, shard i on device i.
  std::string uniform_error;
  const FastUniform fast = uniform_partition_fast(proposal, summary, devices, detail, uniform_error, ws.uniform);
  if (fast == FastUniform::kFailed) return failure(std::move(uniform_error));

  PartitionOutcome outcome;
  Placement& placement = outcome.placement;
  placement.start(proposal.size());
  for (const ShardingOption* option : proposal) {
    if (option->partition_by == PartitionBy::kUniform && ranks_are_positions)
      placement.add_consecutive(option->shards.size(), 0);
    else
      placement.add(option->shards.size());
  }
  if (fast == FastUniform::kNotApplicable) {
    ws.slots.resize(devices.size());
    std::iota(ws.slots.begin(), ws.slots.end(), 0);
    for (std::size_t i = 0; i < proposal.size(); ++i) {
      if (proposal[i]->partition_by != PartitionBy::kUniform) continue;
      if (auto error = uniform_partition(*proposal[i], devices, ws.slots, placement.ranks_of(i)))
        return failure(detail == FailureDetail::kMessage ? std::move(*error) : std::string());
    }
  }

  // torchrec groups the others by `dependency or fqn`; dependency is only set for
  // EmbeddingTower modules, which the config cannot express, so every group is
  // one option. param_count counts ALL options of the module path, uniform ones too.
  std::vector<int>& param_count = ws.param_count;
  param_counts(proposal, summary, summaries_.path_count(), param_count);
  std::vector<int>& order = ws.order;
  order.clear();
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
    std::vector<std::uint64_t>& keys = ws.keys;
    keys.clear();
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
    switch (option.partition_by) {
      case PartitionBy::kMultiHost:
        error = multi_host_partition(option, devices, hosts, ws.hosts, param_count[i], ranks, detail,
                                     ws.placed_hosts);
        if (!error)
          for (int host : ws.placed_hosts) host_changed(host);
        break;
      case PartitionBy::kHost: {
        int host = -1;
        error = cohost_partition(option, devices, hosts, ws.hosts, param_count[i], ranks, detail, ws.host_steps,
                                 host);
        if (!error) host_changed(host);
        break;
      }
      case PartitionBy::kDevice:
        if (!heap_built) {
          ws.heap.reset(devices, storage_constraint.local_world_size);
          heap_built = true;
        }
        error = device_partition(option, devices, ws.heap, ws.host_steps.skipped, ranks, detail, &ws.hosts);
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
