#include "planner/proposers/proposer_util.h"

#include <algorithm>
#include <string>
#include <unordered_map>

namespace shardplan::proposer_util {

double option_score(const ShardingOption& option, bool use_depth) {
  double score = 0;
  bool first = true;
  for (const auto& shard : option.shards) {
    double total = shard.perf.value_or(Perf{}).total();
    if (use_depth) {
      if (first || total > score) score = total;
    } else {
      score += total;
    }
    first = false;
  }
  return score;
}

std::vector<std::vector<const ShardingOption*>> group_by_fqn(const std::vector<ShardingOption>& search_space) {
  std::vector<std::vector<const ShardingOption*>> groups;
  std::unordered_map<std::string, std::size_t> index;  // lookup only, never iterated
  for (const auto& option : search_space) {
    auto [it, inserted] = index.emplace(option.fqn(), groups.size());
    if (inserted) groups.emplace_back();
    groups[it->second].push_back(&option);
  }
  return groups;
}

void sort_by_score(std::vector<const ShardingOption*>& options, bool use_depth) {
  std::vector<std::pair<double, const ShardingOption*>> scored;
  scored.reserve(options.size());
  for (const auto* option : options) scored.emplace_back(option_score(*option, use_depth), option);
  std::stable_sort(scored.begin(), scored.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (std::size_t i = 0; i < options.size(); ++i) options[i] = scored[i].second;
}

}  // namespace shardplan::proposer_util
