#include "planner/proposers/proposer_util.h"

#include <algorithm>

namespace shardplan::proposer_util {

void sort_by_score(const SearchSpace& space, std::vector<OptionId>& options, bool use_depth) {
  std::stable_sort(options.begin(), options.end(),
                   [&](OptionId a, OptionId b) { return space.score(a, use_depth) < space.score(b, use_depth); });
}

}  // namespace shardplan::proposer_util
