#include "planner/parallel.h"

#include <algorithm>
#include <atomic>
#include <exception>
#include <thread>
#include <vector>

namespace shardplan {

namespace {
std::atomic<int> g_threads{0};
std::atomic<std::size_t> g_min_shards{20'000};
}  // namespace

void set_planner_threads(int threads) { g_threads = std::max(threads, 0); }

void set_planner_parallel_min_shards(std::size_t shards) { g_min_shards = shards; }
std::size_t planner_parallel_min_shards() { return g_min_shards; }

int planner_threads() {
  const int set = g_threads;
  if (set > 0) return set;
  return std::max(1, static_cast<int>(std::thread::hardware_concurrency()));
}

void parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
  const std::size_t workers = std::min<std::size_t>(n, static_cast<std::size_t>(std::max(threads, 1)));
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  std::vector<std::exception_ptr> errors(workers);
  auto work = [&](std::size_t w) {
    try {
      for (std::size_t i = w; i < n; i += workers) fn(i);
    } catch (...) {
      errors[w] = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (std::size_t w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
  for (auto& e : errors)
    if (e) std::rethrow_exception(e);
}

}  // namespace shardplan
