// A proven lower bound on the best max-rank perf a plan can have, over the same
// sharding options and the same reserved capacities (issue 18).
//
// The problem bounded: choose one option per table and place every shard of it
// on a device of the reserved topology so that no device holds more HBM or DDR
// than it has left, following each option's partition_by the way torchrec's
// partitioners do: uniform (row_wise, data_parallel) puts shard k on device k;
// host (table_row_wise: shard k on local device k; table_column_wise: any device)
// keeps every shard on one host; multi_host (grid_shard) puts each block of
// local_world_size shards on one host, shard k on local device k mod
// local_world_size (hosts may repeat: a relaxation); device puts any shard on any
// device. The cost of a placement is NoopPerfModel's rating: the largest, over
// devices, of the sum of the perf totals of the shards on it. Every bound below
// is <= the minimum of that cost (proofs beside each one in lower_bound.cc and
// work_bounds.cc), so also <= whatever any partitioner finds. Perf totals are taken
// as >= 0 (the estimators' formulas never give less).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/names.h"
#include "planner/parallelism.h"
#include "planner/types.h"

namespace shardplan {

// The bounds computed, cheapest argument first; the reported bound is the largest.
enum class BoundKind {
  kAverageWork,          // least total work of every table, spread evenly over the ranks
  kLargestShard,         // the largest shard no option of some table avoids
  kForcedLoad,           // what uniform options put on one rank whatever the choice
  kForcedLoadPlusShard,  // a table's largest shard on top of the least forced load it can join
  kMemoryWork,           // average work when the cheap options do not fit in total memory
  kShardLimitedWork,     // average work when options whose own load exceeds the level are ruled out
  kHostLocalWork,        // what must land on the k-th device of the hosts, spread over the hosts
  kPacking,           // shards counted as whole ranks or shares (packing_bound.h): only under --partitioner optimizing
  kPrunedForcedLoad,  // forced loads once options that reach a target are ruled out (pruned_forced_load.h): likewise
  kBranchAndBound,    // the exact search's (planner/exact): only under --partitioner optimizing
};

inline constexpr NameTable<BoundKind, 10> kBoundKindNames{{
    {BoundKind::kAverageWork, "average_work", "sum over tables of the least total perf of an option, / ranks"},
    {BoundKind::kLargestShard, "largest_shard", "max over tables of the least largest-shard perf of an option"},
    {BoundKind::kForcedLoad, "forced_load", "max over ranks of the perf uniform options must put there"},
    {BoundKind::kForcedLoadPlusShard, "forced_load_plus_shard",
     "max over tables of (least forced load of a rank that can hold its largest shard + that shard)"},
    {BoundKind::kMemoryWork, "memory_work",
     "Lagrangian (LP) bound on the average work when total HBM/DDR forces costlier options"},
    {BoundKind::kShardLimitedWork, "shard_limited_work",
     "least T such that the least work of options whose forced load plus largest shard is <= T fits in T per rank, "
     "and no more tables than ranks must have a shard above T/2"},
    {BoundKind::kHostLocalWork, "host_local_work",
     "max over local device indices k of the perf options must put on some host's k-th device, / hosts"},
    {BoundKind::kPacking, "packing",
     "largest T such that, counting a shard as one rank when it and a threshold a sum to >= T, as perf / T when "
     "smaller but >= a, else 0, the tables' least counts sum above the ranks (--partitioner optimizing, small "
     "instances)"},
    {BoundKind::kPrunedForcedLoad, "pruned_forced_load",
     "largest T such that, ruling out every option that forces some rank to T (its forced loads, or a shard on the "
     "least loaded rank with room, beside the forced loads and storage of tables left with only forced options) "
     "until nothing changes, some table has no option left or the rest does not fit (--partitioner optimizing, "
     "small instances)"},
    {BoundKind::kBranchAndBound, "branch_and_bound",
     "the least max-rank perf an exact search over every option and placement leaves possible "
     "(--partitioner optimizing, small instances)"},
}};

inline std::string_view to_string(BoundKind v) { return name_of(kBoundKindNames, v); }

// One bound's value (ms).
struct BoundValue {
  BoundKind kind = BoundKind::kAverageWork;
  double value = 0;
};

// What the exact search (planner/exact/prove_plan.h) added to a bound; set only
// under --partitioner optimizing, so that greedy's outputs stay as they were.
struct ExactSearchFacts {
  bool searched = false;  // false: the instance was too large, or the plan already met the bound
  bool complete = false;  // the plan is proven optimal (by the search, or already by the LP-type bound)
  long long nodes = 0;    // nodes of the search tree visited
};

// The lower bound and how it was reached.
struct LowerBound {
  bool feasible = true;                         // false: some table has no option that fits anywhere (no plan exists)
  double value = 0;                             // the largest of `bounds` (ms)
  BoundKind binding = BoundKind::kAverageWork;  // which bound gave `value` (the first on a tie)
  std::vector<BoundValue> bounds;               // every bound computed, in kBoundKindNames order
  std::optional<ExactSearchFacts> exact;        // under --partitioner optimizing only
};

// What the bound reads: each table's candidate options (estimates filled in) and
// the capacities left per device after the storage reservation.
struct BoundInput {
  std::vector<std::vector<const ShardingOption*>> tables;  // one list of options per table
  const Topology* reserved = nullptr;                      // devices in rank order
};

// Groups `search_space` by table (fqn) and adds the options of `plan` (a placed
// plan, possibly with options a proposer made) so that the plan is always one of
// the candidates: then the bound can never exceed the plan's rating.
BoundInput bound_input(const std::vector<ShardingOption>& search_space, const std::vector<ShardingOption>& plan,
                       const Topology& reserved);

// Every bound of `input` and the largest of them. Deterministic; linear in the
// number of shards and options (times the world size for the forced-load bounds).
// Per-table work runs on the threads of `parallelism` for large models; the
// result is the same for any thread count.
LowerBound compute_lower_bound(const BoundInput& input, const Parallelism& parallelism = {});

// The plan is one of the bound's candidates, so a bound above its rating by at most
// 1e-9 (relative) can only be rounding (sums in another order): such bounds are set
// to the rating, and the binding bound is again the first reaching the value.
// Larger excesses are left as they are (they would be a bug to see).
void clamp_to_plan(LowerBound& bound, double plan_rating);

// (plan - bound) / bound; 0 when both are 0; NaN when only the bound is 0.
double bound_gap(double plan_rating, double bound);

}  // namespace shardplan
