#include "planner/perf_model.h"

#include <algorithm>
#include <span>

namespace shardplan {

void NoopPerfModel::prepare(const std::vector<ShardingOption>& search_space) {
  space_begin_ = search_space.data();
  space_size_ = search_space.size();
  first_shard_.clear();
  single_total_.clear();
  shard_totals_.clear();
  for (const auto& option : search_space) {
    first_shard_.push_back(shard_totals_.size());
    for (const auto& shard : option.shards) shard_totals_.push_back(shard.perf.value_or(Perf{}).total());
    // Data-parallel and even row-wise options repeat one total on every rank.
    const auto first = shard_totals_.begin() + static_cast<std::ptrdiff_t>(first_shard_.back());
    const bool single = first != shard_totals_.end() &&
                        std::all_of(first, shard_totals_.end(), [&](double t) { return t == *first; });
    single_total_.push_back(single ? 1 : 0);
    if (single) shard_totals_.resize(first_shard_.back() + 1);
  }
  shard_totals_.shrink_to_fit();
}

double NoopPerfModel::rate(const Proposal& proposal, const Placement& placement, int world_size) const {
  std::vector<double> perfs(static_cast<std::size_t>(std::max(world_size, 0)), 0.0);
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const ShardingOption* option = proposal[i];
    const int from = placement.consecutive_from(i);
    const std::span<const int> ranks = placement.ranks_of(i);
    const std::size_t n = placement.num_shards(i);
    if (option >= space_begin_ && option < space_begin_ + space_size_) {
      const auto index = static_cast<std::size_t>(option - space_begin_);
      const double* totals = shard_totals_.data() + first_shard_[index];
      if (from >= 0) {  // one shard per rank from `from` on: loops the compiler vectorises
        double* __restrict at = perfs.data() + from;
        if (single_total_[index]) {
          const double total = totals[0];  // a local: `at` cannot alias it
          for (std::size_t j = 0; j < n; ++j) at[j] += total;
        } else {
          const double* __restrict each = totals;
          for (std::size_t j = 0; j < n; ++j) at[j] += each[j];
        }
      } else if (single_total_[index]) {
        for (int rank : ranks) perfs[static_cast<std::size_t>(rank)] += totals[0];
      } else {
        for (std::size_t j = 0; j < n; ++j) perfs[static_cast<std::size_t>(ranks[j])] += totals[j];
      }
    } else {
      // An option a proposer made (not in the prepared search space).
      for (std::size_t j = 0; j < n; ++j)
        perfs[static_cast<std::size_t>(placement.rank(i, j))] += option->shards[j].perf.value_or(Perf{}).total();
    }
  }
  return perfs.empty() ? 0.0 : *std::max_element(perfs.begin(), perfs.end());
}

}  // namespace shardplan
