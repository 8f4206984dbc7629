#include "planner/partitioners/greedy_perf_partitioner.h"

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <memory>
#include <numeric>
#include <span>
#include <vector>

#include "planner/partitioners/greedy/device_heap.h"
#include "planner/partitioners/greedy/host_order.h"
#include "planner/partitioners/greedy/partition_steps.h"
#include "planner/partitioners/greedy/proposal_briefs.h"
#include "planner/partitioners/greedy/rest_fits.h"
#include "planner/partitioners/greedy/uniform_fast_step.h"

namespace shardplan {
namespace {

// Buffers reused by the partition() calls of one thread: a big proposal is
// partitioned tens of thousands of times, and allocating these afresh each time
// costs as much as the partitioning.
struct Workspace final : PartitionWorkspace {
  ProposalBriefs briefs;
  std::vector<DeviceLoad> devices;
  std::vector<int> slots;
  std::vector<int> placed_hosts;
  DeviceHeap heap;
  HostOrder hosts;
  HostStepScratch host_steps;
  std::vector<std::size_t> proof_starts;  // where partition_above tries its proof
  std::vector<RestDemand> proof_demands;  // what the options from there on need
  std::vector<std::pair<double, double>> proof_units;
  int finished_despite_proof = 0;  // partitions in a row that tried the proof and placed everything
  std::uint64_t probe_clock = 0;   // partitions while the proof is paused
};

PartitionOutcome failure(PartitionFailure why) {
  PartitionOutcome outcome;
  outcome.ok = false;
  outcome.error_type = PlannerErrorType::kPartition;
  outcome.failure = why;
  return outcome;
}

// The devices of `storage_constraint` with their free storage; a non-zero
// hbm_per_device replaces every HBM capacity (torchrec: Storage(hbm=hbm_per_device
// or d.storage.hbm, ...)). True when device k is rank k.
bool load_devices(const Topology& storage_constraint, std::int64_t hbm_per_device, std::vector<DeviceLoad>& devices) {
  devices.clear();
  bool ranks_are_positions = true;
  for (const DeviceHardware& d : storage_constraint.devices) {
    ranks_are_positions = ranks_are_positions && d.rank == static_cast<int>(devices.size());
    devices.push_back(DeviceLoad{
        d.rank, {hbm_per_device != 0 ? hbm_per_device : d.storage.hbm, d.storage.ddr}, d.perf, d.perf.total()});
  }
  return ranks_are_positions;
}

// A hint to fetch the cache line at p; no effect on results. GCC 12 dropped
// __builtin_prefetch from the loop below (none was emitted at -O1 and up), so on x86
// the instruction is written out.
inline void prefetch_line(const void* p) {
#if defined(__x86_64__) || defined(__i386__)
  asm volatile("prefetcht0 %0" : : "m"(*static_cast<const char*>(p)));
#else
  __builtin_prefetch(p);
#endif
}

// Asks the memory for what the placement loop reads a few options after the k-th
// of `order`: each option's brief and its shard runs lie in two places among tens
// of thousands of options, and waiting for them one after the other was most of
// the loop's time on big proposals (5 000 tables x 1 024 ranks, 1 thread: 16.7 s
// CPU -> 11.1 s). The second stage reads the pointer that the first fetched some
// options earlier, so neither waits.
void prefetch_ahead(const ProposalBriefs& briefs, const std::vector<int>& order, std::size_t k) {
  constexpr std::size_t kBriefAhead = 8, kRunsAhead = 4;
  if (k + kBriefAhead < order.size()) prefetch_line(&briefs.brief(static_cast<std::size_t>(order[k + kBriefAhead])));
  if (k + kRunsAhead < order.size()) {
    const PartitionOptionBrief& ahead = briefs.brief(static_cast<std::size_t>(order[k + kRunsAhead]));
    if (ahead.num_runs > 0) prefetch_line(ahead.runs);  // its first run, one line
  }
}

// partition_above pauses its proof after this many partitions in a row that tried it
// in vain, and then tries it on one partition in kProbeEvery.
constexpr int kFinishedBeforeProbing = 16;
constexpr std::uint64_t kProbeEvery = 16;
// Options placed between the first and the second try of the proof that the rest
// fits; the gap doubles after every second try.
constexpr std::size_t kOptionsBeforeSecondProof = 64;

// Raises `largest` to the load of every device the option just placed loaded
// (ranks are device positions here).
void note_loads(PartitionBy partition_by, std::span<const int> ranks, const std::vector<int>& placed_hosts,
                int placed_host, const Hosts& hosts, std::span<const DeviceLoad> devices, double& largest) {
  auto host_loads = [&](int host) {
    for (const DeviceLoad& d : hosts.devices_of(devices, host)) largest = std::max(largest, d.perf_total);
  };
  switch (partition_by) {
    case PartitionBy::kDevice:
      for (int rank : ranks) largest = std::max(largest, devices[static_cast<std::size_t>(rank)].perf_total);
      break;
    case PartitionBy::kHost:
      host_loads(placed_host);
      break;
    case PartitionBy::kMultiHost:
      for (int host : placed_hosts) host_loads(host);
      break;
    case PartitionBy::kUniform:
      break;
  }
}

}  // namespace

std::unique_ptr<PartitionWorkspace> GreedyPerfPartitioner::make_workspace() const {
  return std::make_unique<Workspace>();
}

PartitionOutcome GreedyPerfPartitioner::partition(const SearchSpace& space, const Proposal& proposal,
                                                  const Topology& storage_constraint,
                                                  PartitionWorkspace* workspace) const {
  return partition_capped(space, proposal, storage_constraint, 0, workspace);
}

PartitionOutcome GreedyPerfPartitioner::partition_above(const SearchSpace& space, const Proposal& proposal,
                                                        const Topology& storage_constraint,
                                                        PartitionWorkspace* workspace, double stop_above) const {
  return partition_capped(space, proposal, storage_constraint, 0, workspace, stop_above);
}

// torchrec's GreedyPerfPartitioner.partition: uniform options first, one shard
// per rank; then the others in sort_by order, each placed by its partition_by.
PartitionOutcome GreedyPerfPartitioner::partition_capped(const SearchSpace& space, const Proposal& proposal,
                                                         const Topology& storage_constraint,
                                                         std::int64_t hbm_per_device, PartitionWorkspace* workspace,
                                                         double stop_above) const {
  std::unique_ptr<PartitionWorkspace> own;
  if (!workspace) {
    own = make_workspace();
    workspace = own.get();
  }
  Workspace& ws = static_cast<Workspace&>(*workspace);
  std::vector<DeviceLoad>& devices = ws.devices;
  const bool ranks_are_positions = load_devices(storage_constraint, hbm_per_device, devices);
  const bool devices_started_idle = std::all_of(devices.begin(), devices.end(), [](const DeviceLoad& d) {
    return d.perf == Perf{};  // torchrec's devices start at zero perf; a topology may say otherwise
  });
  Hosts hosts;
  hosts.size = std::max(storage_constraint.local_world_size, 1);
  hosts.count = storage_constraint.world_size / hosts.size;
  ProposalBriefs& briefs = ws.briefs;
  briefs.read(space, proposal, sort_by_, balance_modules_);

  // Uniform options first, in proposal order, shard i on device i.
  PartitionFailure uniform_failure;
  const FastUniform fast =
      uniform_partition_fast(briefs.briefs(), briefs.summaries(), devices, uniform_failure, briefs.uniform());
  if (fast == FastUniform::kFailed) return failure(uniform_failure);
  // The others go largest first. Most proposals that do not fit fail at the first of
  // them, when it is device-level and its first shard fits no device: that is found
  // here, before the placement is laid out (the same failure the loop below gives).
  const std::vector<int>& order = briefs.placement_order();
  if (fast != FastUniform::kNotApplicable && !order.empty()) {
    const auto first = static_cast<std::size_t>(order.front());
    const PartitionOptionBrief& brief = briefs.brief(first);
    if (brief.partition_by == PartitionBy::kDevice)
      if (auto error = first_shard_misfit(proposal[first], brief, devices)) return failure(*error);
  }
  PartitionOutcome outcome;
  Placement& placement = outcome.placement;
  placement = ws.take_spare();
  placement.start(proposal.size());
  // A failed proposal's placement goes back to the workspace.
  auto fail = [&](const PartitionFailure& why) {
    ws.recycle(std::move(placement));
    return failure(why);
  };
  for (const PartitionOptionBrief* b : briefs.briefs()) {
    if (b->partition_by == PartitionBy::kUniform && ranks_are_positions)
      placement.add_consecutive(static_cast<std::size_t>(b->num_shards), 0);
    else
      placement.add(static_cast<std::size_t>(b->num_shards));
  }
  if (fast == FastUniform::kNotApplicable) {
    ws.slots.resize(devices.size());
    std::iota(ws.slots.begin(), ws.slots.end(), 0);
    for (std::size_t i : briefs.uniform().uniform) {
      if (auto error = uniform_partition(briefs.brief(i).shard_list(), devices, ws.slots, placement.ranks_of(i)))
        return fail(*error);
    }
  }

  // partition_above: a lower bound of the most loaded device's final load, which only
  // grows (the perfs are not negative where load_above gives a finite bound): the
  // most loaded device so far, or the largest shard that some device takes.
  // Where the proof keeps failing (proposals that fill the devices), it is tried on one
  // partition in kProbeEvery only, once kFinishedBeforeProbing partitions in a row tried
  // it and placed everything: it costs a pass over the options and saves nothing there.
  const bool proofs_paused = ws.finished_despite_proof >= kFinishedBeforeProbing && ++ws.probe_clock % kProbeEvery != 0;
  const bool may_stop = stop_above < std::numeric_limits<double>::infinity() && devices_started_idle &&
                        ranks_are_positions && !proofs_paused;
  double largest = 0;
  if (may_stop) {
    largest = briefs.largest_shard_perf();  // some device takes that shard
    for (const DeviceLoad& d : devices) largest = std::max(largest, d.perf_total);
  }
  // The proof is tried at a few places from the first option after which a load is
  // above stop_above, further apart each time (the rest's demands there are summed
  // in one pass); it costs a pass over the devices each.
  std::size_t proofs_tried = 0;
  ws.proof_starts.clear();
  // True when the options from order[next] on surely fit.
  auto rest_is_placeable = [&](std::size_t next) {
    if (ws.proof_starts.empty()) {
      std::size_t gap = kOptionsBeforeSecondProof;
      for (std::size_t at = next; at < order.size(); at += gap) {
        ws.proof_starts.push_back(at);
        if (ws.proof_starts.size() % 2 == 0) gap *= 2;
      }
      if (ws.proof_starts.empty()) return false;
      rest_demands_from(order, ws.proof_starts, briefs.briefs(), hosts.size, ws.proof_demands);
    }
    if (proofs_tried >= ws.proof_starts.size() || ws.proof_starts[proofs_tried] != next) return false;
    return rest_surely_fits(ws.proof_demands[proofs_tried++], devices, hosts, ws.proof_units);
  };
  auto stopped = [&]() {
    ws.finished_despite_proof = 0;
    outcome.ok = true;
    outcome.complete = false;
    outcome.largest_rank_load = largest;
    return std::move(outcome);
  };
  if (may_stop && largest > stop_above && rest_is_placeable(0)) return stopped();

  // The others, largest first. One heap and one host order for the whole
  // proposal, each kept current as devices take shards (see DeviceHeap and
  // HostOrder for why that is torchrec's choice every time).
  bool heap_built = false;
  ws.hosts.reset(hosts);
  auto host_changed = [&](int host) {
    const std::size_t begin = static_cast<std::size_t>(host) * static_cast<std::size_t>(hosts.size);
    ws.hosts.touch_host(host);
    if (heap_built) ws.heap.defer_update(begin, std::min(begin + static_cast<std::size_t>(hosts.size), devices.size()));
  };
  for (std::size_t k = 0; k < order.size(); ++k) {
    prefetch_ahead(briefs, order, k);
    const auto i = static_cast<std::size_t>(order[k]);
    const OptionId id = proposal[i];
    std::span<int> ranks = placement.ranks_of(i);
    StepError error;
    int placed_host = -1;
    switch (briefs.brief(i).partition_by) {
      case PartitionBy::kMultiHost:
        error = multi_host_partition(id, space[id], devices, hosts, ws.hosts, briefs.options_on_path(i), ranks,
                                     ws.placed_hosts);
        if (!error)
          for (int host : ws.placed_hosts) host_changed(host);
        break;
      case PartitionBy::kHost:
        error = cohost_partition(id, briefs.brief(i), devices, hosts, ws.hosts, briefs.options_on_path(i), ranks,
                                 ws.host_steps, placed_host);
        if (!error) host_changed(placed_host);
        break;
      case PartitionBy::kDevice:
        if (!heap_built) {
          if ((error = first_shard_misfit(id, briefs.brief(i), devices))) break;
          ws.heap.reset(devices, storage_constraint.local_world_size);
          heap_built = true;
        }
        error = device_partition(id, briefs.brief(i), devices, ws.heap, ranks, &ws.hosts);
        break;
      case PartitionBy::kUniform:
        break;
    }
    if (error) return fail(*error);
    if (may_stop) {
      // Any bound above stop_above serves: no need to raise it further.
      if (!(largest > stop_above))
        note_loads(briefs.brief(i).partition_by, ranks, ws.placed_hosts, placed_host, hosts, devices, largest);
      if (largest > stop_above && rest_is_placeable(k + 1)) return stopped();
    }
  }
  if (!ws.proof_starts.empty()) ++ws.finished_despite_proof;
  outcome.ok = true;
  if (devices_started_idle) {
    double largest = 0;
    for (const DeviceLoad& d : devices) largest = std::max(largest, d.perf_total);
    outcome.largest_rank_load = largest;
  }
  return outcome;
}

}  // namespace shardplan
