// An exact search (branch and bound) over the enumerated options: one option per
// table and a rank for every shard, minimising the max-rank perf (NoopPerfModel's
// rating: per rank, the sum of the perf totals of its shards) with every rank's
// HBM and DDR within its reserved capacity and every partition rule torchrec's
// partitioners apply (lower_bound.h states the model; here grid_shard follows
// torchrec exactly: its blocks of local_world_size shards go to distinct hosts,
// or, with at least as many blocks as hosts, block b to the host of block
// b mod hosts, the first blocks on distinct hosts).
//
// It proves: when it explores the whole tree, the best plan it holds (or the
// plan it was given) is optimal; when its work budget ends first, the least
// lower bound of the nodes it left unexplored (or the incumbent, if lower) is
// still a lower bound on every plan. Why each pruning step is sound:
// docs/exact-search.md.
//
// Deterministic: a fixed branching order and a work budget counted in rank
// visits; the wall-clock cap (--time-budget) only ends a search the budget would
// have ended later, and `stopped_by_clock` says when it did.
#pragma once

#include <cstdint>
#include <limits>
#include <vector>

#include "planner/bounds/lower_bound.h"
#include "planner/types.h"

namespace shardplan::exact {

// Work units: each node costs one per rank it scans plus a fixed overhead
// (exact_search.cc); 2e6 is about 0.1 s on this project's 2-core VM.
inline constexpr std::int64_t kDefaultWorkBudget = 2'000'000;
// Instances with more shard decisions than this (tables plus shards placed one
// by one) are not searched: the tree is far too deep to finish.
inline constexpr int kMaxDecisions = 4096;
// Worlds larger than this are not searched (each node scans every rank).
inline constexpr int kMaxRanks = 1024;

struct ExactOptions {
  // A known feasible max-rank perf (the current plan's): only strictly better
  // plans are kept; +infinity when none is known.
  double incumbent = std::numeric_limits<double>::infinity();
  // A proven lower bound (the LP-type bound): the search stops when it reaches it.
  double floor = 0;
  std::int64_t work_budget = kDefaultWorkBudget;
  double time_budget_seconds = 0;  // > 0: wall-clock cap (outer limit only)
};

struct ExactResult {
  bool searched = false;  // false: the instance is too large (see kMaxDecisions, kMaxRanks)
  bool complete = false;  // the whole tree was explored (or the floor reached): `bound` is the optimum
  // A lower bound on every plan's max-rank perf over these options and
  // capacities (when searched); +infinity when no plan exists.
  double bound = 0;
  // A plan strictly better than `incumbent`, when one was found: per table (in
  // BoundInput order) the chosen option and its shards' ranks.
  std::vector<const ShardingOption*> options;
  std::vector<std::vector<int>> ranks;
  double value = std::numeric_limits<double>::infinity();  // its max-rank perf (summed in search order)
  std::int64_t nodes = 0;
  std::int64_t work_used = 0;
  std::int64_t work_budget = 0;
  bool stopped_by_clock = false;

  bool found_better() const { return !options.empty(); }
};

// Whether `input` is small enough to search (kMaxDecisions, kMaxRanks); cheap.
bool exact_searchable(const BoundInput& input);

// Searches `input` (tables and their candidate options, reserved capacities).
ExactResult exact_search(const BoundInput& input, const ExactOptions& options);

}  // namespace shardplan::exact
