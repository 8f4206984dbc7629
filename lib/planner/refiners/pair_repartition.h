// A move of the optimizing search (issue 30): re-split the shards of the
// bottleneck rank and one other rank between the two, every way at once.
//
// Moves and swaps (one shard for none, one for one) cannot balance two ranks
// whose shards are large and few: {2.9, 1.7, 1.3} against {2.7, 2.7} needs two
// shards for one. This move takes the shards that may sit on either rank (device
// shards; table_column_wise shards when both ranks are on one host), keeps the
// others where they are, and tries every assignment of them to the two ranks
// (Gray code: one shard changes side per step), within both ranks' reserved
// HBM and DDR. It keeps the assignment whose larger load is least, when that is
// below the bottleneck's old load; over every other rank, the best pair wins.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/partitioners/optimizing/search_state.h"

namespace shardplan::optimizing {

// Shards of the two ranks re-assigned at most (the largest by perf; the others
// stay): 2^this assignments per pair.
inline constexpr int kPairRepartitionShards = 10;

// Re-splits rank `b`'s (the bottleneck's) and one other rank's shards as above;
// applies the best such change and returns true, or returns false (state
// unchanged) when no pair can lower b. Adds its work (assignments tried, ranks
// scanned) to `work`.
// `moves`, when given, gets each shard moved as (shard, from rank), in order (to undo).
struct PairMoveRecord {
  ShardRef ref;
  int from = 0;
};
bool repartition_pair(SearchState& state, int b, std::int64_t& work, std::vector<PairMoveRecord>* moves = nullptr);

}  // namespace shardplan::optimizing
