// A move of the optimizing search (issue 30): a table on the bottleneck takes
// another of its options, placed greedily, and the ranks that got heavier are
// then repaired by pair repartitions (pair_repartition.h); the whole kept only if
// the plan got better. An option change alone is refused whenever the new
// option's shards land on ranks with no room below the bottleneck (a one-rank
// table turned table_row_wise needs room on every rank of a host); the repair
// moves other shards out of the way first.
#pragma once

#include <cstdint>

#include "planner/partitioners/optimizing/search_state.h"

namespace shardplan::optimizing {

// Tables of the bottleneck tried (its heaviest there), and pair repartitions per try.
inline constexpr int kRepairTables = 4;
inline constexpr int kRepairSteps = 8;

// Applies the first option change with repair that lowers (max load, sum of
// squares) and returns true; else false, `state` as it was. Adds its work to `work`.
bool change_option_with_repair(SearchState& state, int b, std::int64_t& work);

}  // namespace shardplan::optimizing
