// Helpers the proposers share: grouping by table and torchrec's option score.
#pragma once

#include <vector>

#include "planner/types.h"

namespace shardplan::proposer_util {

// torchrec's _sharding_option_score: max of shard perf totals when use_depth, else
// their sum in shard order.
double option_score(const ShardingOption& option, bool use_depth);

// The search space grouped by fqn, tables in order of first appearance, options in
// search-space order within a table.
std::vector<std::vector<const ShardingOption*>> group_by_fqn(const std::vector<ShardingOption>& search_space);

// Stable sort of one table's options by score (Python's list.sort is stable).
void sort_by_score(std::vector<const ShardingOption*>& options, bool use_depth);

}  // namespace shardplan::proposer_util
