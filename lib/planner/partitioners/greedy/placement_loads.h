// What a placed proposal puts on each rank: the per-device totals that torchrec's
// stats and perf models read after partitioning.
#pragma once

#include <vector>

#include "planner/rank_load.h"
#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// Per-rank sums over `proposal` placed by `placement`, shards visited in proposal
// order (option by option, shard by shard). Ranks outside [0, world_size) are
// ignored.
std::vector<RankLoad> rank_loads(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
                                 int world_size);

// torchrec's NoopPerfModel.rate: the largest per-rank sum of shard perf totals,
// summed in proposal order (the figure the planner minimises).
double noop_perf_rating(const SearchSpace& space, const Proposal& proposal, const Placement& placement, int world_size);

}  // namespace shardplan
