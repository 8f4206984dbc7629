// Per-option figures the greedy partitioner reads on every proposal, computed once
// per search space so that partitioning a proposal does not walk every shard of
// every uniform option again.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// What the partitioner needs to know about one option besides its shards.
struct OptionSummary {
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
  // Dense ranks of total_storage / total_perf over the search space, 0 = largest,
  // equal totals share a rank (-1 outside the space): integer sort keys that order
  // options exactly as comparing the totals does.
  int storage_rank = -1;
  int perf_rank = -1;
};

// The few figures partition() reads for EVERY option of every proposal, packed
// apart from the options themselves: reading them from 5 000 scattered
// ShardingOptions per proposal made cache misses most of the partitioning time.
struct OptionBrief {
  Storage total_storage;          // OptionSummary::total_storage
  const Shard* shards = nullptr;  // the option's shards (num_shards of them)
  PartitionBy partition_by = PartitionBy::kDevice;
  ShardingType sharding_type = ShardingType::kTableWise;
  bool perf_homogeneous = false;  // OptionSummary::perf_homogeneous
  std::int32_t num_shards = 0;
  std::int32_t storage_rank = -1;  // OptionSummary::storage_rank
  std::int32_t perf_rank = -1;     // OptionSummary::perf_rank
  std::int32_t path_id = -1;       // OptionSummary::path_id

  std::span<const Shard> shard_span() const { return {shards, static_cast<std::size_t>(num_shards)}; }
};

// Summaries of one search space, looked up by option address; options outside
// it (copies a proposer made) are summarised on demand.
class OptionSummaries {
 public:
  void prepare(const std::vector<ShardingOption>& search_space);
  // The index of `option` in the prepared search space, or -1 (no dereference).
  std::ptrdiff_t index_of(const ShardingOption* option) const {
    return option >= begin_ && option < begin_ + size_ ? option - begin_ : -1;
  }
  const OptionSummary& summary(std::ptrdiff_t index) const { return summaries_[static_cast<std::size_t>(index)]; }
  const OptionBrief& brief(std::ptrdiff_t index) const { return briefs_[static_cast<std::size_t>(index)]; }
  // The precomputed summary of `option`, or nullptr for an option outside the space.
  const OptionSummary* find(const ShardingOption& option) const;
  // Computes the summary of any option (path_id -1 for an unknown path).
  OptionSummary summarise(const ShardingOption& option) const;
  static OptionBrief brief_of(const ShardingOption& option, const OptionSummary& summary);
  int path_count() const { return static_cast<int>(path_ids_.size()); }

 private:
  const ShardingOption* begin_ = nullptr;
  std::size_t size_ = 0;
  std::vector<OptionSummary> summaries_;
  std::vector<OptionBrief> briefs_;
  std::unordered_map<std::string, int> path_ids_;  // lookup only, never iterated
};

}  // namespace shardplan
