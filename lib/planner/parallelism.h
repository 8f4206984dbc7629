// How the planner may use threads and when it pays to: passed in by the caller
// (plan_command builds it from --threads), never a global.
#pragma once

#include <cstddef>

#include "common/thread_pool.h"

namespace shardplan {

// Models of at least this many tables are enumerated, loaded and rendered on all
// threads whatever their shard count: per-table work then outweighs waking the pool.
inline constexpr std::size_t kParallelMinTables = 64;

struct Parallelism {
  // The threads to use; null: everything on the calling thread.
  ThreadPool* pool = nullptr;
  // Work of fewer (estimated) shards than this stays on one thread, where handing
  // it out would cost more than it saves: proposals of fewer shards, models of
  // fewer tables x ranks to enumerate.
  std::size_t min_shards = 20'000;
  // Proposals of fewer (estimated) shards than this are planned by walking later
  // proposers ahead on a second thread rather than by evaluating single proposals
  // ahead. Measured on the 2-core VM: walking took 1 000 tables x 512 ranks (130 000
  // shards a proposal) from 1.05 to 0.72 s, but 5 000 x 1 024 (1.2 million) from 20
  // to 28 s, the two threads then competing for cache.
  std::size_t walk_max_shards = 400'000;

  // The most threads a loop may use (1 without a pool).
  int threads() const { return pool ? pool->threads() : 1; }
  // fn(i) for i in [0, n) on up to `threads` threads of the pool.
  void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) const {
    shardplan::parallel_for(pool, n, threads, fn);
  }
};

}  // namespace shardplan
