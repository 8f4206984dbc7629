#include "planner/partitioners/greedy/proposal_briefs.h"

#include <algorithm>

namespace shardplan {

namespace {

constexpr std::uint64_t kUniformKey = ~std::uint64_t{0};
// Proposals differing from the previous one in at most this many options get
// their order patched rather than sorted afresh.
constexpr std::size_t kMaxPatchedOptions = 16;

// The key of option i in the placement order: dense rank of its sort total, then
// its proposal index (kUniformKey for uniform options, which are placed first).
std::uint64_t sort_key(const PartitionOptionBrief& b, GreedySortBy sort_by, std::size_t i) {
  const int rank = sort_by == GreedySortBy::kStorage ? b.storage_rank : b.perf_rank;
  return b.partition_by == PartitionBy::kUniform
             ? kUniformKey
             : static_cast<std::uint64_t>(rank) << 32 | static_cast<std::uint32_t>(i);
}

}  // namespace

void ProposalBriefs::read(const SearchSpace& space, const Proposal& proposal, GreedySortBy sort_by,
                          bool balance_modules) {
  // What was read stays valid while the space has not grown (adding options may
  // move the briefs) and the sort is the same.
  const bool patch = space_ == &space && space_size_ == space.size() && sort_by_ == sort_by &&
                     balance_modules_ == balance_modules && read_.size() == proposal.size() && !read_.empty();
  space_ = &space;
  space_size_ = space.size();
  proposal_ = &proposal;
  sort_by_ = sort_by;
  balance_modules_ = balance_modules;
  counted_ = false;
  if (!patch) {
    read_all(proposal);
    return;
  }
  // Consecutive proposals of a proposer mostly differ in one or two options: only
  // those are read again (each read is a cache miss among tens of thousands of
  // options), and the uniform and non-uniform lists are rebuilt only when an option
  // changed sides.
  bool sides_changed = false;
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    if (proposal[i] == read_[i]) continue;
    const bool was_uniform = is_uniform_[i] != 0;
    forget(i);
    remember(i, proposal[i]);
    if (unsorted_.size() <= kMaxPatchedOptions) unsorted_.push_back(i);
    sides_changed = sides_changed || was_uniform != (is_uniform_[i] != 0);
  }
  if (sides_changed) list_sides();
}

void ProposalBriefs::read_all(const Proposal& proposal) {
  const std::size_t n = proposal.size();
  read_.assign(n, OptionId{});
  brief_.assign(n, nullptr);
  summary_.assign(n, nullptr);
  is_uniform_.assign(n, 0);
  new_key_of_.assign(n, 0);
  unknown_paths_ = 0;
  unranked_ = 0;
  largest_stale_ = true;
  per_path_.assign(static_cast<std::size_t>(space_->path_count()), 0);
  for (std::size_t i = 0; i < n; ++i) remember(i, proposal[i]);
  unsorted_.assign(kMaxPatchedOptions + 1, 0);  // more than can be patched: sort afresh
  list_sides();
}

// Option `id` at proposal index i: its brief, summary, side and sort key, and the
// counts behind all_paths_known() and the sort by unique keys (unranked_).
void ProposalBriefs::remember(std::size_t i, OptionId id) {
  read_[i] = id;
  const PartitionOptionBrief& b = space_->brief(id);
  brief_[i] = &b;
  summary_[i] = &space_->summary(id);
  is_uniform_[i] = b.partition_by == PartitionBy::kUniform ? 1 : 0;
  if (b.path_id < 0)
    ++unknown_paths_;
  else
    ++per_path_[static_cast<std::size_t>(b.path_id)];
  unranked_ += !is_uniform_[i] && rank_of(b) < 0 ? 1 : 0;
  new_key_of_[i] = sort_key(b, sort_by_, i);
  if (!largest_stale_ && !is_uniform_[i]) {
    const double perf = space_->score(id, true);
    if (perf > largest_shard_perf_) {
      largest_shard_perf_ = perf;
      largest_count_ = 1;
    } else if (perf == largest_shard_perf_) {
      ++largest_count_;
    }
  }
}

// Undoes remember(i, ...) in the counts.
void ProposalBriefs::forget(std::size_t i) {
  const PartitionOptionBrief& b = *brief_[i];
  if (b.path_id < 0)
    --unknown_paths_;
  else
    --per_path_[static_cast<std::size_t>(b.path_id)];
  unranked_ -= !is_uniform_[i] && rank_of(b) < 0 ? 1 : 0;
  // The option that held the largest shard perf leaves: summed afresh when next asked.
  if (!largest_stale_ && !is_uniform_[i] && space_->score(read_[i], true) == largest_shard_perf_ &&
      --largest_count_ == 0)
    largest_stale_ = true;
}

double ProposalBriefs::largest_shard_perf() {
  if (largest_stale_) {
    largest_shard_perf_ = 0;
    largest_count_ = 0;
    for (int i : nonuniform_) {
      const double perf = space_->score(read_[static_cast<std::size_t>(i)], true);
      if (perf > largest_shard_perf_) {
        largest_shard_perf_ = perf;
        largest_count_ = 1;
      } else if (perf == largest_shard_perf_) {
        ++largest_count_;
      }
    }
    largest_stale_ = false;
  }
  return largest_shard_perf_;
}

int ProposalBriefs::rank_of(const PartitionOptionBrief& b) const {
  return sort_by_ == GreedySortBy::kStorage ? b.storage_rank : b.perf_rank;
}

void ProposalBriefs::list_sides() {
  uniform_.uniform.clear();
  nonuniform_.clear();
  for (std::size_t i = 0; i < is_uniform_.size(); ++i) {
    if (is_uniform_[i])
      uniform_.uniform.push_back(i);
    else
      nonuniform_.push_back(static_cast<int>(i));
  }
}

int ProposalBriefs::options_on_path(std::size_t i) {
  // torchrec groups options by `dependency or fqn`; dependency is only set for
  // EmbeddingTower modules, which the config cannot express, so every group is
  // one option and param_count counts options per module path. Counted as options
  // come and go (remember/forget) while every path is an enumerated one's; else
  // by name, on first use.
  if (all_paths_known()) return per_path_[static_cast<std::size_t>(brief_[i]->path_id)];
  if (!counted_) {
    counted_ = true;
    options_per_path_name_.clear();
    for (OptionId id : *proposal_) ++options_per_path_name_[(*space_)[id].path];
  }
  return options_per_path_name_[(*space_)[(*proposal_)[i]].path];
}

const std::vector<int>& ProposalBriefs::placement_order() {
  // torchrec sorts with key [-param_count?, storage_sum | perf_sum], reverse=True:
  // descending, and Python's sort stays stable under reverse, so ties keep
  // proposal order (hence stable_sort on "key greater").
  if (!balance_modules_ && unranked_ == 0) {
    sort_by_unique_keys();
    return order_;
  }
  std::vector<int> counts(proposal_->size());
  for (std::size_t i = 0; i < proposal_->size(); ++i) counts[i] = options_on_path(i);
  order_ = nonuniform_;
  std::stable_sort(order_.begin(), order_.end(), [&](int a, int b) {
    const auto x = static_cast<std::size_t>(a), y = static_cast<std::size_t>(b);
    if (balance_modules_ && counts[x] != counts[y]) return counts[x] < counts[y];
    if (sort_by_ == GreedySortBy::kStorage) return summary_[x]->total_storage > summary_[y]->total_storage;
    return summary_[x]->total_perf > summary_[y]->total_perf;
  });
  return order_;
}

// The placement order from the unique keys in new_key_of_: the order torchrec's
// stable sort gives, by patching the last ranked proposal's sorted keys (one erase
// and one insert per changed option) when few changed, else by sorting.
void ProposalBriefs::sort_by_unique_keys() {
  if (key_of_.size() == new_key_of_.size() && unsorted_.size() <= kMaxPatchedOptions) {
    for (std::size_t i : unsorted_) {
      if (key_of_[i] == new_key_of_[i]) continue;  // changed back, or listed twice
      if (key_of_[i] != kUniformKey) keys_.erase(std::lower_bound(keys_.begin(), keys_.end(), key_of_[i]));
      if (new_key_of_[i] != kUniformKey)
        keys_.insert(std::lower_bound(keys_.begin(), keys_.end(), new_key_of_[i]), new_key_of_[i]);
      key_of_[i] = new_key_of_[i];
    }
  } else {
    keys_.clear();
    for (std::uint64_t k : new_key_of_)
      if (k != kUniformKey) keys_.push_back(k);
    std::sort(keys_.begin(), keys_.end());
    key_of_ = new_key_of_;
  }
  unsorted_.clear();
  order_.resize(keys_.size());
  for (std::size_t n = 0; n < keys_.size(); ++n) order_[n] = static_cast<int>(keys_[n] & 0xffffffffu);
}

}  // namespace shardplan
