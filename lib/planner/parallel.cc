#include "planner/parallel.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <thread>
#include <vector>

namespace shardplan {

namespace {
std::atomic<int> g_threads{0};
std::atomic<std::size_t> g_min_shards{20'000};
std::atomic<std::size_t> g_walk_max_shards{400'000};

// Worker threads kept for the whole process: the planner hands out tens of
// thousands of small batches, and starting threads per batch cost more than
// some batches take. Items are handed out one at a time from a shared counter,
// so a slow item does not hold up the items queued behind it on one thread.
class Pool {
 public:
  explicit Pool(std::size_t workers) {
    for (std::size_t w = 0; w < workers; ++w) threads_.emplace_back([this] { serve(); });
  }
  ~Pool() {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stopping_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  std::size_t size() const { return threads_.size(); }

  // Runs fn(i) for i in [0, n) on the calling thread and `helpers` pool threads.
  void run(std::size_t n, std::size_t helpers, const std::function<void(std::size_t)>& fn) {
    std::unique_lock<std::mutex> lock(mutex_);
    fn_ = &fn;
    n_ = n;
    next_.store(0);
    error_ = nullptr;
    invited_ = std::min(helpers, threads_.size());
    busy_ = invited_;
    ++generation_;
    lock.unlock();
    wake_.notify_all();
    work();  // the caller takes items too
    lock.lock();
    done_.wait(lock, [this] { return busy_ == 0; });
    fn_ = nullptr;
    if (error_) std::rethrow_exception(error_);
  }

 private:
  void work() {
    for (std::size_t i = next_.fetch_add(1); i < n_; i = next_.fetch_add(1)) {
      try {
        (*fn_)(i);
      } catch (...) {
        std::lock_guard<std::mutex> lock(mutex_);
        if (!error_) error_ = std::current_exception();
        next_.store(n_);  // stop handing out items
      }
    }
  }
  void serve() {
    std::uint64_t seen = 0;
    std::unique_lock<std::mutex> lock(mutex_);
    while (true) {
      wake_.wait(lock, [&] { return stopping_ || (generation_ != seen && invited_ > 0); });
      if (stopping_) return;
      seen = generation_;
      --invited_;
      lock.unlock();
      work();
      lock.lock();
      if (--busy_ == 0) done_.notify_one();
    }
  }

  std::vector<std::thread> threads_;
  std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable done_;
  bool stopping_ = false;
  std::uint64_t generation_ = 0;
  std::size_t invited_ = 0;  // helpers still to join the current job
  std::size_t busy_ = 0;     // helpers not yet done with the current job
  const std::function<void(std::size_t)>* fn_ = nullptr;
  std::size_t n_ = 0;
  std::atomic<std::size_t> next_{0};
  std::exception_ptr error_;
};

std::mutex g_pool_mutex;
std::unique_ptr<Pool> g_pool;  // grown on demand, joined at exit

Pool& pool_with(std::size_t helpers) {
  std::lock_guard<std::mutex> lock(g_pool_mutex);
  if (!g_pool || g_pool->size() < helpers) {
    g_pool.reset();
    g_pool = std::make_unique<Pool>(helpers);
  }
  return *g_pool;
}
}  // namespace

void set_planner_threads(int threads) { g_threads = std::max(threads, 0); }

void set_planner_parallel_min_shards(std::size_t shards) { g_min_shards = shards; }
std::size_t planner_parallel_min_shards() { return g_min_shards; }

void set_planner_walk_max_shards(std::size_t shards) { g_walk_max_shards = shards; }
std::size_t planner_walk_max_shards() { return g_walk_max_shards; }

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
  pool_with(workers - 1).run(n, workers - 1, fn);
}

}  // namespace shardplan
