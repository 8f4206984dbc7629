// What the proposers share: torchrec's sort of one table's options by score.
#pragma once

#include <vector>

#include "planner/search_space.h"

namespace shardplan::proposer_util {

// Stable sort of one table's options by score (SearchSpace::score; Python's
// list.sort is stable).
void sort_by_score(const SearchSpace& space, std::vector<OptionId>& options, bool use_depth);

}  // namespace shardplan::proposer_util
