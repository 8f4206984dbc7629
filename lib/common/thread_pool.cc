#include "common/thread_pool.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <thread>
#include <vector>

namespace shardplan {

// Worker threads kept for the pool's life. Items are handed out one at a time
// from a shared counter, so a slow item does not hold up the items queued behind
// it on one thread.
class ThreadPool::Workers {
 public:
  explicit Workers(std::size_t workers) {
    for (std::size_t w = 0; w < workers; ++w) threads_.emplace_back([this] { serve(); });
  }
  ~Workers() {
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

ThreadPool::ThreadPool(int threads)
    : threads_(threads > 0 ? threads : std::max(1, static_cast<int>(std::thread::hardware_concurrency()))) {}

ThreadPool::~ThreadPool() = default;

void ThreadPool::parallel_for(std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
  const std::size_t workers = std::min<std::size_t>(n, static_cast<std::size_t>(std::clamp(threads, 1, threads_)));
  if (workers <= 1) {
    for (std::size_t i = 0; i < n; ++i) fn(i);
    return;
  }
  Workers* pool = nullptr;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (!workers_ || workers_->size() < workers - 1) {
      workers_.reset();
      workers_ = std::make_unique<Workers>(workers - 1);
    }
    pool = workers_.get();
  }
  pool->run(n, workers - 1, fn);
}

void parallel_for(ThreadPool* pool, std::size_t n, int threads, const std::function<void(std::size_t)>& fn) {
  if (pool) {
    pool->parallel_for(n, threads, fn);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) fn(i);
}

}  // namespace shardplan
