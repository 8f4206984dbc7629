// Starts of the optimizing search that owe nothing to greedy's plan (issue 30).
//
// Option choice: every byte of HBM and DDR gets a price in ms of total perf, and
// each table takes the option of least `total perf + price x memory` among those
// whose largest shard stays within a target max-rank perf (a Lagrangian
// relaxation of "fit the ranks' total capacity"). The price is found by bisection:
// the least price at which the chosen options fit the ranks' total HBM and DDR
// (times a fill factor, lowered when the placement then fails to pack). Prices
// are tried along three directions (HBM and DDR together, HBM alone, DDR alone)
// and for a few targets (none, 1.5x and 1x the average rank load of the
// unlimited choice).
//
// Placement: tables heaviest first (by largest shard, or by memory share in a
// second order), each by its partition rule on the least-loaded rank(s) with room
// (SearchState::greedy_ranks); a table that no longer fits takes its next-cheapest
// option (priced) that does.
#pragma once

#include <chrono>
#include <cstdint>
#include <vector>

#include "planner/partitioners/optimizing/search_state.h"

namespace shardplan::optimizing {

// Prices of memory in ms of total perf per byte.
struct MemoryPrices {
  double hbm = 0;
  double ddr = 0;
};

// total perf + the priced memory of all its shards.
double priced_cost(const RefinementOption& shape, const MemoryPrices& prices);

// A complete placement built from nothing.
struct ScratchStart {
  std::vector<int> shapes;              // per table: index into TableState::shapes
  std::vector<std::vector<int>> ranks;  // per table, per shard
  Objective objective;
  MemoryPrices prices;  // the prices its options were chosen at
};

// Every distinct start that placed all tables of `state` (whose tables have their
// shapes and none is placed; it is left so on return), best objective first.
// Counts its work (option scans and rank scans) into `work` and stops starting
// new placements once `work` reaches `work_limit` or the clock passes `deadline`
// (the --time-budget cap).
std::vector<ScratchStart> scratch_starts(SearchState& state, std::int64_t work_limit, std::int64_t& work,
                                         std::chrono::steady_clock::time_point deadline);

// Places `start` on `state` (no table placed).
void apply_start(SearchState& state, const ScratchStart& start);

}  // namespace shardplan::optimizing
