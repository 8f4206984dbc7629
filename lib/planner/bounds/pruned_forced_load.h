// The pruned forced-load bound (issue 30): memory priced per rank. Computed only
// under --partitioner optimizing (planner/exact/prove_plan.cc), on instances the
// exact search would search, so that greedy's outputs stay as they were.
//
// The other bounds see the forced loads of tables whose every option is uniform
// (row_wise, data_parallel: shard k on rank k), but a table that also has, say, a
// table_wise option is never counted there, even when that option is too slow to
// be in a good plan. This bound asks, for a target T: can a plan have a max-rank
// perf below T? Such a plan chooses only options that cannot force a rank to T or
// more. Rule out every other option; a table left with only forced options puts
// its least forced load, and its least forced storage, on every rank; that load
// raises what other options force, and that storage takes room their shards
// needed; rule out again, until nothing changes. When some table is left with no
// option, or the tables' forced storage or least total storage does not fit, or
// their least work exceeds T per rank, no plan is below T: every plan's max-rank
// perf is >= T. The bound is the largest T proven (bisection on the doubles).
//
// What forces a rank to T, given the floors F_i (forced perf), G_i (forced
// storage) of the all-forced tables on rank i (each table's least over its
// remaining options; for an all-forced table's own options, the floors of the
// others):
//   - a forced option o putting perf p_i and storage s_i on rank i: if s_i does
//     not fit in free_i - G_i for some i, no plan below T chooses it; else some
//     plan choosing it has rank i at F_i + p_i or more (in float, see below), and
//     it is ruled out when that is >= T for some i;
//   - any other option: each of its shards (perf p, storage s) lands on a rank i
//     with s within free_i - G_i; the rank holds F_i + p or more. The option is
//     ruled out when, for some shard, every rank with room gives >= T (or none
//     has room), or its total storage exceeds the total room sum_i (free_i - G_i).
// Host and multi-host options placed on more than one host are treated as "any
// rank" (a relaxation: never more than the partition rule allows).
//
// Floating point. A rank's perf, as the planner rates it, is the float sum of its
// shards' perf totals from 0 in some order. With perfs >= 0 and rounding to
// nearest (monotonic), a float sum of a list is >= the float sum of a sub-list in
// the same order, and a sum of k positive terms in any order is >= E (1 - u)^(k-1)
// (E: the exact sum, u = 2^-53), while our own sum C of those terms (or of terms
// no larger: the floors are least values), in any summation tree, is <= E (1 + u)^(k-1).
// So the plan's rank sum is >= C (1 - (k - 1) eps) (eps = 2u), and we compare
// fl(C * (1 - 2 k eps)) (1 - 2 k eps is a double; the product's rounding is inside
// the slack) with T, where k bounds the positive terms (shards) the sub-list can
// have. With k <= 2 the sub-list is at most two positive shards x, y, whose float
// sum in any order is fl(x + y) >= C exactly: no factor, so that where the best
// plan's bottleneck rank is one forced shard beside one other shard, the bound is
// that rank's rating to the last bit and the plan is shown optimal. Likewise three
// shards, each the only positive one its table (or option) can put there: their
// float sum in any order is one of fl(fl(x + y) + z) over the three pairs added
// first, so the least of those three (monotonic in x, y, z) is a bound with no
// factor. The work test
// (least total perf summed over tables > T ranks) keeps a 1e-9 relative margin on
// each side, far above its rounding at the sizes it runs on.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/bounds/lower_bound.h"

namespace shardplan {

// Its work, in (option, rank) visits over the whole bisection; the test that
// runs past it proves nothing (deterministic: no clock).
inline constexpr std::int64_t kPrunedForcedWorkBudget = 30'000'000;

// One usable option as the bound reads it.
struct PrunedOption {
  bool forced = false;
  // Forced options: per rank, the float sum of its shards' perfs there (shard
  // order), their storage, and how many of them have a positive perf.
  std::vector<double> perf;
  std::vector<Storage> storage;
  std::vector<int> terms;
  // Other options: its distinct shards (perf, storage).
  std::vector<std::pair<double, Storage>> shards;
  double total_perf = 0;  // float sum of every shard's perf (shard order)
  Storage total_storage;
};

struct PrunedInstance {
  std::vector<std::vector<PrunedOption>> tables;  // usable options only
  std::vector<Storage> free;                      // per rank, after the reservation
};

// The instance of `input`; empty (no tables, no ranks) when it has more than 200 000
// shards over all options, some perf is negative or not finite, or some table has no
// usable option (the other bounds say so).
PrunedInstance pruned_instance(const BoundInput& input);

// Whether every plan's max-rank perf is >= `target` by the argument above.
// `work` is raised by the (option, rank) visits; past kPrunedForcedWorkBudget it
// answers false.
bool pruned_excludes(const PrunedInstance& instance, double target, std::int64_t& work);

// The largest target pruned_excludes proves, at most `ceiling` (the plan's
// rating); `known` (a bound already proven, or 0) is tried first. 0 when
// nothing is proven. Deterministic.
double pruned_forced_bound(const PrunedInstance& instance, double known, double ceiling);

}  // namespace shardplan
