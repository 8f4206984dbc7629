// How many threads the planner may use, and a minimal parallel loop. Work split
// this way must not depend on the thread count for its result: callers write
// item i's result to slot i and merge in item order.
#pragma once

#include <cstddef>
#include <functional>

namespace shardplan {

// The planner's thread count: set_planner_threads(n) with n >= 1, or the
// hardware concurrency when never set or set to 0.
void set_planner_threads(int threads);
int planner_threads();

// Work of fewer (estimated) shards than this stays on one thread, where handing
// it out would cost more than it saves: proposals of fewer shards, models of
// fewer tables x ranks to enumerate. Default 20 000.
void set_planner_parallel_min_shards(std::size_t shards);
std::size_t planner_parallel_min_shards();

// Models of at least this many tables are enumerated, loaded and rendered on all
// threads whatever their shard count: per-table work then outweighs waking the pool.
inline constexpr std::size_t kParallelMinTables = 64;

// Proposals of fewer (estimated) shards than this are planned by walking later
// proposers ahead on a second thread rather than by evaluating single proposals
// ahead. Measured on the 2-core VM: walking took 1 000 tables x 512 ranks (130 000
// shards a proposal) from 1.05 to 0.72 s, but 5 000 x 1 024 (1.2 million) from 20
// to 28 s, the two threads then competing for cache. Default 400 000.
void set_planner_walk_max_shards(std::size_t shards);
std::size_t planner_walk_max_shards();

// Calls fn(i) for i in [0, n) on up to `threads` threads (the caller's and
// threads - 1 kept-alive pool threads; items handed out in order, one at a time);
// returns when all are done and rethrows the first exception. Serial when
// threads <= 1 or n <= 1. Not re-entrant: fn must not call parallel_for.
void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

}  // namespace shardplan
