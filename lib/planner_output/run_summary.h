// The few lines a person reads after `shardplan plan` (--stats summary, the
// default): what the plan uses, its slowest rank, its fullest memory, how much was
// searched and where the plan went. Built from the run's stats report (the same
// figures `--stats json` gives), rendered to fit 100 columns.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "planner/run.h"
#include "planner/stats_report.h"

namespace shardplan {

// How many tables use one sharding type with one compute kernel.
struct TableKindCount {
  std::string sharding_type;   // "table_wise"
  std::string compute_kernel;  // "fused"
  int tables = 0;
};

// The fullest rank of one memory kind on the one basis of every output
// (planner/memory_basis.h): bytes in use (shards plus what the storage reservation
// sets aside for dense and KJT inputs) against the usable capacity.
struct MemoryPeak {
  std::int64_t bytes = 0;
  int rank = 0;
  double capacity = 0;  // usable bytes; HBM: after the reservation's percentage; DDR: the device's
  double ratio = 0;     // bytes / capacity (EmbeddingStats' hbm_ratio / ddr_ratio); 0 when no capacity
};

// Everything the summary shows. A later line (e.g. a lower bound and optimality
// gap) is one more optional field here and one more line in the renderer.
struct RunSummary {
  bool has_plan = false;
  int num_tables = 0;
  int world_size = 0;
  std::string compute_device;
  std::int64_t num_proposals = 0;
  std::int64_t num_plans = 0;
  std::vector<TableKindCount> table_kinds;  // torchrec's sharding type order, then kernel order
  // Present when the plan places at least one shard.
  std::optional<double> max_rank_perf;  // ms
  int max_perf_rank = 0;                // the first rank at the maximum
  double mean_rank_perf = 0;            // ms
  double perf_over_mean_pct = 0;
  std::optional<MemoryPeak> hbm, ddr;
  // The lower bound on the max-rank perf (planner/bounds/lower_bound.h), when computed.
  std::optional<double> bound;
  std::string bound_binding;  // the bound's name that gave `bound`
  std::optional<double> gap;  // (plan - bound) / bound; unset when the bound is 0
  // --partitioner optimizing only (the exact search ran): the plan meets its bound.
  bool proven_optimal = false;
  // --time-budget ended a search before its work budget (PlanRun::stopped_by_clock).
  bool stopped_by_clock = false;
  std::string destination;  // where the plan went: a file name, or "" for stdout
};

// The summary of `run` from its stats report (`report` = stats_report_of(run, ...)).
RunSummary summarize_run(const PlanRun& run, const StatsReport& report, const std::string& destination);

// The summary as text lines of at most 100 columns (but for a long plan file name
// on the last line), each ending in "\n"; "" for a run without a plan.
std::string render_summary_text(const RunSummary& summary);

}  // namespace shardplan
