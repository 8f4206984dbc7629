// torchrec's PlannerError text for a partitioner's structured failure (types.h
// PartitionFailure), rendered only where it is shown: the final error of a run
// and tests that compare it with torchrec's.
#pragma once

#include <string>

#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// The text torchrec's GreedyPerfPartitioner raises for `failure`, whose option id
// is one of `space`.
std::string partition_failure_text(const PartitionFailure& failure, const SearchSpace& space);

// The same facts in shardplan's words, for the "last partitioner error" line of a
// failed run (failure_text.h): sizes as "1.50 GiB HBM" instead of Storage(hbm=..,
// ddr=..) reprs, a shard as "of ROWS x COLS (its storage)", and an option group as
// "of table FQN".
std::string partition_failure_words(const PartitionFailure& failure, const SearchSpace& space);

}  // namespace shardplan
