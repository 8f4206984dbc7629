#include "planner/perf_model.h"

#include <algorithm>

namespace shardplan {

void NoopPerfModel::prepare(const std::vector<ShardingOption>& search_space) {
  space_begin_ = search_space.data();
  space_size_ = search_space.size();
  first_shard_.clear();
  shard_totals_.clear();
  for (const auto& option : search_space) {
    first_shard_.push_back(shard_totals_.size());
    for (const auto& shard : option.shards) shard_totals_.push_back(shard.perf.value_or(Perf{}).total());
  }
}

double NoopPerfModel::rate(const Proposal& proposal, const Placement& placement, int world_size) const {
  std::vector<double> perfs(static_cast<std::size_t>(std::max(world_size, 0)), 0.0);
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const ShardingOption* option = proposal[i];
    const auto& ranks = placement.ranks[i];
    if (option >= space_begin_ && option < space_begin_ + space_size_) {
      const double* totals = shard_totals_.data() + first_shard_[static_cast<std::size_t>(option - space_begin_)];
      for (std::size_t j = 0; j < ranks.size(); ++j) perfs[static_cast<std::size_t>(ranks[j])] += totals[j];
    } else {
      // An option a proposer made (not in the prepared search space).
      for (std::size_t j = 0; j < option->shards.size(); ++j)
        perfs[static_cast<std::size_t>(ranks[j])] += option->shards[j].perf.value_or(Perf{}).total();
    }
  }
  return perfs.empty() ? 0.0 : *std::max_element(perfs.begin(), perfs.end());
}

}  // namespace shardplan
