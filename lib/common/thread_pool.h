// A minimal parallel loop over a pool of kept-alive threads. Work split this way
// must not depend on the thread count for its result: callers write item i's
// result to slot i and merge in item order.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <mutex>

namespace shardplan {

// Threads for parallel_for. Workers start on first need and are joined when the
// pool is destroyed; one pool serves a whole run, so that the tens of thousands
// of small batches the planner hands out do not each start threads.
class ThreadPool {
 public:
  // `threads`: the most threads a loop may use, the caller's included; 0 means
  // one per core.
  explicit ThreadPool(int threads = 0);
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  // The most threads a loop may use (at least 1).
  int threads() const { return threads_; }

  // Calls fn(i) for i in [0, n) on up to min(threads, threads()) threads (the
  // caller's and kept-alive workers; items handed out in order, one at a time);
  // returns when all are done and rethrows the first exception. Serial when
  // threads <= 1 or n <= 1. Not re-entrant: fn must not call parallel_for.
  void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

 private:
  class Workers;
  int threads_;
  std::mutex mutex_;
  std::unique_ptr<Workers> workers_;  // grown on demand
};

// fn(i) for i in [0, n) on `pool` with up to `threads` threads, or serially when
// `pool` is null.
void parallel_for(ThreadPool* pool, std::size_t n, int threads, const std::function<void(std::size_t)>& fn);

}  // namespace shardplan
