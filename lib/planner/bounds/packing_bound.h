// The packing bound (issue 30): a dual feasible function argument that sees
// what the work bounds cannot, that shards do not split. Computed only under
// --partitioner optimizing (planner/exact/prove_plan.cc), on instances the
// exact search would search, so that greedy's outputs stay as they were.
//
// For a target T and a threshold a, a shard of perf p counts
//   1      when p >= a and fl(p + a) >= T       ("big"),
//   p / T' when p >= a and fl(p + a) <  T       ("medium"; T' = T (1 + eta), below),
//   0      when p <  a                          ("small"),
// and an option counts the sum over its shards. Claim: a rank whose shards count
// more than 1 in total has a load (the float sum of its shards' perf totals, in
// any order, from 0, as the planner rates) of at least T. Hence, when the sum over
// tables of the least count over that table's options exceeds the number of
// ranks, every plan has such a rank (the ranks' counts sum to the chosen options'
// counts), so every plan's max-rank perf, as computed, is >= T.
//
// Proof of the claim (perfs >= 0; fl = round to nearest). Adding a perf >= 0 to a
// running sum never lowers it, and fl is monotonic in each argument, so the float
// sum of a list that contains x and y is >= fl(x + y), and the float sum of a list
// is >= the float sum of any sub-list (in the same order). A rank with count > 1
// (1) holds a big shard p and another shard q of positive count (q >= a: medium
// or big): its load is >= fl(p + q) >= fl(p + a) >= T; or (2) holds no big shard,
// so its medium shards' perfs sum (exactly) to S > T': the float sum of those m
// shards is >= S (1 - u)^(m - 1) >= T' (1 - (m - 1) u) >= T by the choice of eta,
// with m at most the shards one rank can hold (M below). No threshold condition
// such as a <= T / 2 is needed: the comparisons themselves are in floating point.
//
// Forced options (every shard's rank fixed: row_wise, data_parallel, ...) that put
// at least F on every rank are first ruled out at T when the other tables alone
// count above the ranks at T2 = T - F + 1e-9 T (for some threshold): a plan
// choosing such an option then has a rank whose other shards sum to T2 or more
// (the claim, on that sub-list) beside F of this option's, so its float sum is
// >= T (the 1e-9 T covers the rounding between those sums: at most a few units
// per shard, relative, at the sizes it runs on; F itself is taken 1e-9 low). A
// table whose every option is ruled out proves T outright.
//
// The counts are summed in floating point: the test asks the computed sum to
// exceed ranks (1 + 1e-9), far beyond its rounding for the sizes it runs on.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/bounds/lower_bound.h"

namespace shardplan {

// The instances it runs on: at most this many shards over all options.
inline constexpr std::size_t kPackingMaxShards = 200'000;
// Its work, in shard visits (each test of a (T, a) visits every shard once).
inline constexpr std::int64_t kPackingWorkBudget = 20'000'000;

// What the bound reads: per table, the shard perf totals of each usable option
// (sorted ascending; options with the same list kept once), and the ranks.
struct PackingOption {
  std::vector<double> perfs;  // ascending
  double forced_floor = 0;    // > 0: a forced option putting at least this on every rank (a little below)
  bool operator<(const PackingOption& o) const {
    return perfs != o.perfs ? perfs < o.perfs : forced_floor < o.forced_floor;
  }
  bool operator==(const PackingOption& o) const { return perfs == o.perfs && forced_floor == o.forced_floor; }
};
struct PackingInstance {
  std::vector<std::vector<PackingOption>> tables;
  int ranks = 0;
  std::size_t most_per_rank = 0;  // M: the most shards one rank can hold (sum over tables of the most per option)
};

// The instance of `input` (usable options only, as lower_bound.cc decides);
// nullopt-like: ranks == 0 when it is too large, a perf is negative or not
// finite, or some table has no usable option.
PackingInstance packing_instance(const BoundInput& input);

// Whether the counts at (target, threshold) prove every plan's max-rank perf
// >= target: the sum over tables of the least option count > ranks (1 + 1e-9),
// where that fails again with forced options ruled out as above.
// `work` is raised by the shards visited.
bool packing_excludes(const PackingInstance& instance, double target, double threshold, std::int64_t& work);

// The largest target proven by packing_excludes over candidate thresholds (the
// distinct shard perfs, at most 256 of them evenly spread), each by bisection on
// the doubles up to `ceiling` (the plan's rating: no larger target can be proven);
// 0 when nothing is proven or the instance is empty. Deterministic (a work budget,
// no clock).
double packing_bound(const PackingInstance& instance, double ceiling);

}  // namespace shardplan
