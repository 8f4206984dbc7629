#include "planner/perf_model.h"

#include <algorithm>
#include <vector>

namespace shardplan {

double NoopPerfModel::rate(const Proposal& proposal, const Placement& placement, int world_size) const {
  std::vector<double> perfs(static_cast<std::size_t>(std::max(world_size, 0)), 0.0);
  for (std::size_t i = 0; i < proposal.size(); ++i) {
    const auto& shards = proposal[i]->shards;
    for (std::size_t j = 0; j < shards.size(); ++j)
      perfs[static_cast<std::size_t>(placement.ranks[i][j])] += shards[j].perf.value_or(Perf{}).total();
  }
  return perfs.empty() ? 0.0 : *std::max_element(perfs.begin(), perfs.end());
}

}  // namespace shardplan
