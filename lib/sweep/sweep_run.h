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

// Plans the points `indices` of `grid` on `base` with up to `threads` threads
// (0: one per core) and calls `emit` with each result in the order of `indices`,
// as soon as it and every point before it are done (under a lock: one call at a time).
void run_sweep_points(const PlanningInput& base, const SweepGrid& grid, const std::vector<std::size_t>& indices,
                      int threads, bool want_plan_text, const std::function<void(SweepPointResult&&)>& emit);

}  // namespace shardplan
