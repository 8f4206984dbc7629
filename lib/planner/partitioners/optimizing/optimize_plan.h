// The optimizing partitioner's search: from a placed plan (torchrec's greedy
// placement of the best proposal), lower the max-rank perf (NoopPerfModel's
// rating) by moving and swapping shards off the bottleneck rank, by changing a
// table's option (sharding type x kernel, any option the enumerator produced for
// it), and by ruin-and-recreate of the bottleneck's tables. Every step respects
// the reserved HBM/DDR per rank and each option's partition_by rule (torchrec's
// partitioners.py: uniform shard k on rank k; table_row_wise shard k on local
// device k of one host; table_column_wise shards within one host; device free;
// grid_shard kept where it is).
//
// Deterministic: a fixed iteration order, a seeded PRNG, and a work budget counted
// in evaluations (derived from the instance size), split into shares that do not
// depend on the thread count; past 32 000 tables x ranks the searches from the
// different starts run at once on the threads of OptimizeOptions::parallelism, and
// the plan is the same on any number of threads. The wall-clock budget is only a
// safety cap: when it, rather than the work budget, ends the search the result can
// depend on the machine, and `stopped_by_clock` says so.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "planner/parallelism.h"
#include "planner/types.h"

namespace shardplan::optimizing {

// The PRNG seed (fixed: the same input gives the same plan).
inline constexpr std::uint64_t kSeed = 0x5eed'0f'5a'4d'91a2ULL;
// Default wall-clock safety cap of the search, in seconds (--time-budget).
inline constexpr double kDefaultTimeBudgetSeconds = 2.0;

struct OptimizeOptions {
  double time_budget_seconds = kDefaultTimeBudgetSeconds;  // safety cap; <= 0: no search
  std::int64_t work_budget = 0;                            // evaluations; 0: derived from the size
  std::uint64_t seed = kSeed;
  // Threads the searches from the starts may use (past 32 000 tables x ranks); the
  // plan is the same for any count. None: one thread.
  Parallelism parallelism;
};

struct OptimizeResult {
  std::vector<ShardingOption> plan;  // same tables, same order; shard ranks set
  double perf_rating = 0;            // NoopPerfModel's rating of `plan`
  bool improved = false;             // false: `plan` is the input plan unchanged
  int options_changed = 0;           // tables whose option differs from the input's
  std::int64_t work_used = 0;
  std::int64_t work_budget = 0;
  // Stage 3 (record-to-record travel from the best plan, on small instances only):
  // its work (part of work_used, beyond work_budget) and the max-rank perf it began
  // from (0: it did not run). It ends at that plan or a better one.
  std::int64_t travel_work = 0;
  double travel_from = 0;
  bool stopped_by_clock = false;
  int scratch_starts = 0;  // complete placements built from scratch
  std::string best_start;  // where the kept plan's search began: "greedy" or "scratch"
  int search_threads = 1;  // the most searches that ran at once
};

// The work budget used when OptimizeOptions::work_budget is 0.
std::int64_t default_work_budget(std::size_t num_tables, int world_size);
// The work the scratch starts may use out of it (checked before each price bisection).
std::int64_t default_scratch_limit(std::size_t num_tables, int world_size);

// NoopPerfModel's rating of a placed plan: per rank, shard perf totals summed in
// plan then shard order; the largest sum.
double max_rank_perf(const std::vector<ShardingOption>& plan, int world_size);

// Improves `plan` (every shard's rank set, within `reserved`) over the options of
// `search_space`; never returns a plan rated worse than the input (it returns the
// input unchanged unless the rating is strictly lower).
OptimizeResult optimize_plan(const std::vector<ShardingOption>& plan, const std::vector<ShardingOption>& search_space,
                             const Topology& reserved, const OptimizeOptions& options);

// A plan from nothing, for when the proposals gave none: every table's options of
// `search_space` (grouped by fqn, in order of first appearance), scratch starts
// (scratch_start.h) improved by the same search. `plan` is empty when no start
// placed every table. The search runs even at time_budget_seconds <= 0 (then
// under the default cap).
OptimizeResult search_plan(const std::vector<ShardingOption>& search_space, const Topology& reserved,
                           const OptimizeOptions& options);

}  // namespace shardplan::optimizing
