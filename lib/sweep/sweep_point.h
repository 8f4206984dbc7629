// One point of a sweep: the base input with the point's overrides, planned by the
// planner's top-level run (planner/run.h), reduced to the figures a sweep reports.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include "config/config.h"
#include "planner/parallelism.h"
#include "planner/plan_stop.h"
#include "sweep/sweep_grid.h"

namespace shardplan {

// What a sweep reports of one point. Figures of an infeasible point stay unset.
struct SweepPointResult {
  std::size_t index = 0;
  bool feasible = false;
  // torchrec's PlannerErrorType name (INSUFFICIENT_STORAGE, ...), NO_SHARDING_OPTION
  // when enumeration left a table without options, or kSweepTimeoutFailure; "" when
  // feasible.
  std::string failure;
  // Where planning stopped: reservation, proposer, plan, crash (planner.h's
  // kFailureStageNames), enumerate, or kSweepTimeoutStage; "" when feasible.
  std::string failure_stage;
  // The point ran past --timeout and was stopped (failure and stage say so too;
  // no figures, proposals 0, so that the row of a timed-out point is always the same).
  bool timed_out = false;
  std::optional<double> max_rank_perf_ms;     // max over ranks of the total perf (the plan's rating)
  std::optional<std::int64_t> max_hbm_bytes;  // max over ranks of the HBM used
  std::optional<std::int64_t> max_ddr_bytes;
  // Max over ranks of used / usable (planner/memory_basis.h: shards plus the
  // dense/KJT reservation, against the device less the reservation's percentage);
  // unset when a rank with load has no usable capacity of that kind.
  std::optional<double> max_hbm_fraction;
  std::optional<double> max_ddr_fraction;
  std::optional<double> imbalance;  // max-rank perf / mean rank perf; unset when the mean is 0
  // Samples per second: the global batch (batch_size per rank x world_size) over the
  // max-rank perf; unset when infeasible or the perf is 0.
  std::optional<double> throughput_samples_per_s;
  int proposals = 0;      // proposals the planner tried
  std::string plan_text;  // the plan file, when asked for and feasible
  // The point's planning time (run_sweep_points sets it); for people only: never in
  // the jsonl/csv rows, which stay byte-identical from run to run.
  std::optional<double> wall_seconds;
};

// The failure and failure_stage of a point stopped by --timeout.
inline constexpr const char* kSweepTimeoutFailure = "TIMEOUT";
inline constexpr const char* kSweepTimeoutStage = "timeout";

// Plans point `index` of `grid` on `base` (whose values the grid was checked
// against with check_grid_applies) on the threads of `parallelism`; when `stop`
// (may be null) asks before planning ends, the result is a timed-out point.
SweepPointResult evaluate_sweep_point(const PlanningInput& base, const SweepGrid& grid, std::size_t index,
                                      const Parallelism& parallelism, bool want_plan_text,
                                      const PlanStop* stop = nullptr);

}  // namespace shardplan
