// torchrec's search space (the enumerated sharding options) as one owner that
// gives every option an id: proposals are lists of ids into it (STYLE.md §4), and
// the per-option figures read on hot paths are columns here, computed once.
#pragma once

#include <cstddef>
#include <deque>
#include <map>
#include <span>
#include <string>
#include <tuple>
#include <unordered_map>
#include <vector>

#include "planner/partition_option_summary.h"
#include "planner/types.h"

namespace shardplan {

// Every sharding option of one planning run, by id: the enumerated ones first
// (ids 0..enumerated_size()-1 in enumeration order), then the options proposers
// derive (offload_scaleup's re-estimated copies), numbered in the order added.
//
// Thread safety: add() happens only while proposers load, which the planner does
// on one thread in proposer order before any proposal is evaluated, so ids are
// the same whatever the thread count; afterwards the space is read-only and any
// number of threads may read it. Options never move (ids and references stay valid).
class SearchSpace {
 public:
  SearchSpace() = default;
  // Takes the enumerated, estimated options and computes their columns.
  explicit SearchSpace(std::vector<ShardingOption> enumerated);
  SearchSpace(SearchSpace&&) = default;
  SearchSpace& operator=(SearchSpace&&) = default;
  SearchSpace(const SearchSpace&) = delete;  // briefs point into the options
  SearchSpace& operator=(const SearchSpace&) = delete;

  // Every option, derived ones included.
  std::size_t size() const { return briefs_.size(); }
  bool empty() const { return briefs_.empty(); }
  // The enumerated options, in enumeration order (ids 0..n-1).
  const std::vector<ShardingOption>& enumerated() const { return enumerated_; }
  const ShardingOption& operator[](OptionId id) const {
    return id < enumerated_.size() ? enumerated_[id] : derived_[id - enumerated_.size()];
  }

  // Adds an option a proposer derived from the space and returns its id. An
  // option with the same content as one already here (same_option_content) is
  // that option: torchrec's proposal cache hashes options by content.
  OptionId add(ShardingOption derived);

  // Columns, one entry per id.
  const Storage& total_storage(OptionId id) const { return briefs_[id].total_storage; }
  const PartitionOptionSummary& summary(OptionId id) const { return summaries_[id]; }
  const PartitionOptionBrief& brief(OptionId id) const { return briefs_[id]; }
  // The shards' perf totals in shard order, or only the first when every shard
  // has the same total (single_perf_total).
  const double* shard_perf_totals(OptionId id) const { return shard_perf_totals_.data() + perf_[id].first; }
  bool single_perf_total(OptionId id) const { return perf_[id].single; }
  // torchrec's _sharding_option_score: the largest shard perf total (use_depth),
  // else the sum of shard totals in shard order.
  double score(OptionId id, bool use_depth) const {
    return use_depth ? perf_[id].max_total : summaries_[id].total_perf;
  }

  // The enumerated options grouped by table (fqn): tables in order of first
  // appearance, ids ascending within a table.
  const std::vector<std::vector<OptionId>>& tables() const { return tables_; }
  // Distinct module paths of the enumerated options (path ids 0..n-1).
  int path_count() const { return static_cast<int>(path_ids_.size()); }
  // Shards of all enumerated options.
  std::size_t total_shards() const { return total_shards_; }
  // Every perf component of every shard (derived options' too) is finite and not
  // negative: then any order of summing a rank's shards rounds to within a known
  // relative distance of the exact sum (NoopPerfModel::rated_above).
  bool perfs_finite_nonnegative() const { return perfs_finite_nonnegative_; }
  // The most shards any option here has (derived options too).
  std::size_t max_option_shards() const { return max_option_shards_; }

 private:
  struct PerfColumn {
    std::size_t first = 0;  // into shard_perf_totals_
    bool single = false;    // every shard has the same total, stored once
    double max_total = 0;   // largest shard total (0 without shards)
  };
  void add_columns(const ShardingOption& option, PartitionOptionSummary summary);

  std::vector<ShardingOption> enumerated_;
  std::deque<ShardingOption> derived_;  // a deque: adding never moves an option
  std::vector<PartitionOptionSummary> summaries_;
  std::vector<PartitionOptionBrief> briefs_;
  std::vector<PlacementRun> placement_runs_;  // every option's, in id order; briefs_ point here
  std::vector<PerfColumn> perf_;
  std::vector<double> shard_perf_totals_;
  std::vector<std::vector<OptionId>> tables_;
  std::unordered_map<std::string, int> path_ids_;  // lookup only, never iterated
  std::size_t total_shards_ = 0;
  bool perfs_finite_nonnegative_ = true;
  std::size_t max_option_shards_ = 0;
  // (fqn, sharding type, kernel) -> ids, built on the first add().
  std::map<std::tuple<std::string, ShardingType, ComputeKernel>, std::vector<OptionId>> by_name_;
};

// True when two options would hash alike in torchrec (same content).
bool same_option_content(const ShardingOption& a, const ShardingOption& b);

}  // namespace shardplan
