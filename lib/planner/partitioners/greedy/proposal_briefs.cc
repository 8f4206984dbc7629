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
  space_ = &space;
  proposal_ = &proposal;
  sort_by_ = sort_by;
  balance_modules_ = balance_modules;
  counted_ = false;
  brief_.resize(proposal.size());
  summary_.resize(proposal.size());
  uniform_.uniform.clear();
  order_.clear();
  all_paths_known_ = true;
  // The sort keys and the "every option ranked" test ride along in this pass;
  // they are only used if the proposal gets as far as placement_order().
  ranked_ = !balance_modules;
  new_key_of_.resize(proposal.size());
  const bool same_size = key_of_.size() == proposal.size();
  changed_ = same_size ? 0 : proposal.size();
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    brief_[i] = &space.brief(proposal[i]);
    summary_[i] = &space.summary(proposal[i]);
    all_paths_known_ = all_paths_known_ && brief_[i]->path_id >= 0;
    if (brief_[i]->partition_by == PartitionBy::kUniform) {
      uniform_.uniform.push_back(i);
    } else {
      order_.push_back(static_cast<int>(i));
      ranked_ = ranked_ && (sort_by == GreedySortBy::kStorage ? brief_[i]->storage_rank : brief_[i]->perf_rank) >= 0;
    }
    new_key_of_[i] = sort_key(*brief_[i], sort_by, i);
    if (same_size) changed_ += key_of_[i] != new_key_of_[i] ? 1 : 0;
  }
}

int ProposalBriefs::options_on_path(std::size_t i) {
  // torchrec groups options by `dependency or fqn`; dependency is only set for
  // EmbeddingTower modules, which the config cannot express, so every group is
  // one option and param_count counts options per module path.
  if (!counted_) {
    counted_ = true;
    if (all_paths_known_) {
      per_path_.assign(static_cast<std::size_t>(space_->path_count()), 0);
      for (const PartitionOptionBrief* b : brief_) ++per_path_[static_cast<std::size_t>(b->path_id)];
    } else {
      options_per_path_name_.clear();
      for (OptionId id : *proposal_) ++options_per_path_name_[(*space_)[id].path];
    }
  }
  return all_paths_known_ ? per_path_[static_cast<std::size_t>(brief_[i]->path_id)]
                          : options_per_path_name_[(*space_)[(*proposal_)[i]].path];
}

const std::vector<int>& ProposalBriefs::placement_order() {
  // torchrec sorts with key [-param_count?, storage_sum | perf_sum], reverse=True:
  // descending, and Python's sort stays stable under reverse, so ties keep
  // proposal order (hence stable_sort on "key greater").
  if (ranked_) {
    sort_by_unique_keys();
    return order_;
  }
  std::vector<int> counts(proposal_->size());
  for (std::size_t i = 0; i < proposal_->size(); ++i) counts[i] = options_on_path(i);
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
  if (key_of_.size() == new_key_of_.size() && changed_ <= kMaxPatchedOptions) {
    for (std::size_t i = 0; i < new_key_of_.size(); ++i) {
      if (key_of_[i] == new_key_of_[i]) continue;
      if (key_of_[i] != kUniformKey) keys_.erase(std::lower_bound(keys_.begin(), keys_.end(), key_of_[i]));
      if (new_key_of_[i] != kUniformKey)
        keys_.insert(std::lower_bound(keys_.begin(), keys_.end(), new_key_of_[i]), new_key_of_[i]);
    }
  } else {
    keys_.clear();
    for (std::uint64_t k : new_key_of_)
      if (k != kUniformKey) keys_.push_back(k);
    std::sort(keys_.begin(), keys_.end());
  }
  key_of_.swap(new_key_of_);
  order_.resize(keys_.size());
  for (std::size_t n = 0; n < keys_.size(); ++n) order_[n] = static_cast<int>(keys_[n] & 0xffffffffu);
}

}  // namespace shardplan
