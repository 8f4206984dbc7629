// What greedy partitioning reads about one proposal, gathered in one pass over its
// options: each option's packed brief and summary (columns of the search space),
// the uniform options, and the placement order of the other options (torchrec's sort).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "config/planner_names.h"
#include "planner/partition_option_summary.h"
#include "planner/partitioners/greedy/uniform_fast_step.h"
#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// Kept by one thread from one proposal to the next: consecutive proposals of a
// proposer mostly differ in one table, so only the options that changed are read
// again, and the previous proposal's sorted keys are patched rather than sorted
// afresh (same order either way: the keys are unique).
class ProposalBriefs {
 public:
  // Reads `proposal` (ids into `space`, which must outlive the next read()).
  void read(const SearchSpace& space, const Proposal& proposal, GreedySortBy sort_by, bool balance_modules);

  const std::vector<const PartitionOptionBrief*>& briefs() const { return brief_; }
  const std::vector<const PartitionOptionSummary*>& summaries() const { return summary_; }
  const PartitionOptionBrief& brief(std::size_t i) const { return *brief_[i]; }
  // The uniform options (proposal indices, in proposal order) and the scratch the
  // uniform step works in.
  UniformScratch& uniform() { return uniform_; }

  // torchrec's param_count: how many options of the proposal (uniform ones too)
  // share option i's module path (messages, host-level steps and balance_modules
  // need it), kept current as the proposal's options change.
  int options_on_path(std::size_t i);

  // The largest perf total of one shard of the non-uniform options (0 without any):
  // every plan of the proposal has a rank loaded at least that much.
  double largest_shard_perf();

  // The non-uniform options in torchrec's placement order: sorted descending by
  // storage or perf (balance_modules: options of modules with fewer options
  // first), ties in proposal order (Python's sort is stable under reverse).
  const std::vector<int>& placement_order();

 private:
  void read_all(const Proposal& proposal);
  void remember(std::size_t i, OptionId id);
  void forget(std::size_t i);
  int rank_of(const PartitionOptionBrief& b) const;
  void list_sides();
  bool all_paths_known() const { return unknown_paths_ == 0; }  // every option's path is an enumerated one's
  void sort_by_unique_keys();

  const SearchSpace* space_ = nullptr;
  std::size_t space_size_ = 0;
  const Proposal* proposal_ = nullptr;
  GreedySortBy sort_by_ = GreedySortBy::kStorage;
  bool balance_modules_ = false;
  Proposal read_;  // the ids brief_, summary_, is_uniform_ and new_key_of_ describe
  std::vector<const PartitionOptionBrief*> brief_;
  std::vector<const PartitionOptionSummary*> summary_;
  std::vector<char> is_uniform_;
  std::vector<int> nonuniform_;  // proposal indices of the non-uniform options, in order
  UniformScratch uniform_;
  std::size_t unknown_paths_ = 0;  // options whose path is not an enumerated option's
  std::size_t unranked_ = 0;       // non-uniform options without a rank in the search space
  bool counted_ = false;
  // largest_shard_perf() while !largest_stale_, and how many non-uniform options have it.
  double largest_shard_perf_ = 0;
  int largest_count_ = 0;
  bool largest_stale_ = true;
  std::vector<int> per_path_;                         // options per path id (kept by remember/forget)
  std::map<std::string, int> options_per_path_name_;  // when not all_paths_known()
  std::vector<int> order_;
  std::vector<std::uint64_t> keys_;        // sorted sort keys of the last ranked proposal
  std::vector<std::uint64_t> key_of_;      // its key per proposal index (kUniformKey: none)
  std::vector<std::uint64_t> new_key_of_;  // this proposal's keys
  // Proposal indices read again since keys_ was last sorted or patched (more than
  // kMaxPatchedOptions entries: sort afresh).
  std::vector<std::size_t> unsorted_;
};

}  // namespace shardplan
