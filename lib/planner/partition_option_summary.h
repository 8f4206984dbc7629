// Per-option figures the partitioners and the perf model read on every proposal,
// computed once per option by the SearchSpace (search_space.h) so that
// partitioning a proposal does not walk every shard of every option again.
//
// A ShardingOption has four reduced views, one per reader, kept apart on purpose:
// PartitionOptionSummary and PartitionOptionBrief here (the partitioners': the brief is the packed
// subset of the summary that partition() reads for every option of every
// proposal, so it stays small and contiguous); BoundOptionFacts (bounds/option_facts.h:
// what the lower bounds read, which depends on the devices' capacities); and
// optimizing::RefinementOption (partitioners/optimizing/search_state.h: per-shard
// figures the optimizing search copies and moves). Merging any two would put
// fields one reader never reads into another's hot loop.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// What the partitioner needs to know about one option besides its shards.
struct PartitionOptionSummary {
  Storage total_storage;  // ShardingOption::total_storage()
  double total_perf = 0;  // ShardingOption::total_perf()
  int path_id = -1;       // dense id of option.path (for param_count)
  // Every shard has the same perf (bit for bit) and non-negative storage: a
  // uniform placement then adds the same perf to every device.
  bool perf_homogeneous = false;
  bool storage_homogeneous = false;  // also the same storage on every shard
  Perf shard_perf;                   // the shared perf (when perf_homogeneous)
  Storage shard_storage;             // the shared storage (when storage_homogeneous)
  // Shard storage as runs of equal values, shards [begin, end) holding `storage`
  // (row-wise splits have a few runs: full blocks, a remainder, empty shards).
  struct StorageRun {
    int begin = 0;
    int end = 0;
    Storage storage;
  };
  std::vector<StorageRun> storage_runs;
  // Dense ranks of total_storage / total_perf over the enumerated options, 0 =
  // largest, equal totals share a rank (-1 for a derived option): integer sort
  // keys that order options exactly as comparing the totals does.
  int storage_rank = -1;
  int perf_rank = -1;
};

// A run of equal shards as the placement steps read it, one cache line: where it
// starts in the option's shard list, how many shards, and each one's storage and
// perf (absent values read as zero, as placement treats them). A ShardRun also
// holds sizes, offsets and ranks, and lives with its option: reading those of
// thousands of options per proposal from all over the heap stalled on memory
// (5 000 tables x 1 024 ranks).
struct alignas(64) PlacementRun {
  std::int32_t begin = 0;
  std::int32_t count = 0;
  Storage storage;
  Perf perf;
};

// Appends the placement runs of `list` to `out`.
void append_placement_runs(const ShardList& list, std::vector<PlacementRun>& out);

// The few figures partition() reads for EVERY option of every proposal, packed
// apart from the options themselves: reading them from 5 000 scattered
// ShardingOptions per proposal made cache misses most of the partitioning time.
struct PartitionOptionBrief {
  Storage total_storage;              // PartitionOptionSummary::total_storage
  const ShardList* shards = nullptr;  // the option's shards (num_shards of them)
  // The placement runs of *shards (append_placement_runs), packed by the SearchSpace
  // with every other option's.
  const PlacementRun* runs = nullptr;
  PartitionBy partition_by = PartitionBy::kDevice;
  ShardingType sharding_type = ShardingType::kTableWise;
  std::int32_t num_shards = 0;
  std::int32_t storage_rank = -1;  // PartitionOptionSummary::storage_rank
  std::int32_t perf_rank = -1;     // PartitionOptionSummary::perf_rank
  std::int32_t path_id = -1;       // PartitionOptionSummary::path_id
  std::int32_t num_runs = 0;
  bool perf_homogeneous = false;  // PartitionOptionSummary::perf_homogeneous

  const ShardList& shard_list() const { return *shards; }
  std::span<const PlacementRun> shard_runs() const { return {runs, static_cast<std::size_t>(num_runs)}; }
  // Points shards, num_runs and num_shards at `list`, and runs at `list_runs`, its
  // placement runs.
  void point_at(const ShardList& list, const PlacementRun* list_runs) {
    shards = &list;
    runs = list_runs;
    num_runs = static_cast<std::int32_t>(list.runs().size());
    num_shards = static_cast<std::int32_t>(list.size());
  }
};

// The summary of `option` (ranks left at -1) whose module path has id `path_id`.
PartitionOptionSummary summarise(const ShardingOption& option, int path_id);

// The packed brief of `option` with summary `summary`, its runs at `runs`.
PartitionOptionBrief brief_of(const ShardingOption& option, const PartitionOptionSummary& summary,
                              const PlacementRun* runs);

// Sets storage_rank and perf_rank of every summary (perf ranks stay -1 when a
// total is NaN: then no order exists for them to reproduce).
void assign_dense_ranks(std::vector<PartitionOptionSummary>& summaries);

}  // namespace shardplan
