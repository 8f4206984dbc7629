// Running the points of a sweep (or of one slice of it) on all cores, handing the
// results out in grid order whatever the thread count.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "sweep/sweep_grid.h"
#include "sweep/sweep_point.h"

namespace shardplan {

// Slice K of N of a grid (--shard K/N).
struct SweepShard {
  std::size_t index = 0;
  std::size_t count = 1;
};

// "K/N" with 0 <= K < N; nullopt otherwise.
std::optional<SweepShard> parse_sweep_shard(std::string_view text);

// The points of `shard`, in grid order: those whose index % N == K. Round-robin
// rather than contiguous blocks, so that every slice gets its share of the slow
// points (the last field varies fastest: neighbours differ in one value, while
// blocks would give one slice all the largest world sizes).
std::vector<std::size_t> shard_points(std::size_t points, SweepShard shard);

// Hears of each point as it starts and as it ends, on the thread that plans it:
// calls may come from several threads at once and in any order (a job log).
class SweepPointListener {
 public:
  virtual ~SweepPointListener() = default;
  virtual void point_started(std::size_t index) = 0;
  // `point` has its wall time set.
  virtual void point_finished(const SweepPointResult& point) = 0;
};

struct SweepRunSettings {
  int threads = 0;  // 0: one per core
  bool want_plan_text = false;
  // Per point: a point still planning this long after it started is stopped at
  // the planner's next check (planner/plan_stop.h) and reported timed out.
  std::optional<double> timeout_seconds;
  SweepPointListener* listener = nullptr;  // not owned; may be null
};

// Plans the points `indices` of `grid` on `base` and calls `emit` with each result
// in the order of `indices`, as soon as it and every point before it are done
// (under a lock: one call at a time). Without a timeout the results do not depend
// on the threads; with one, only which points time out does.
void run_sweep_points(const PlanningInput& base, const SweepGrid& grid, const std::vector<std::size_t>& indices,
                      const SweepRunSettings& settings, const std::function<void(SweepPointResult&&)>& emit);

}  // namespace shardplan
