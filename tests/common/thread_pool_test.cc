// The thread pool runs every item once on any thread count, reuses its workers
// across many small loops, and rethrows an item's exception.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <stdexcept>
#include <vector>

#include "common/thread_pool.h"

namespace shardplan {
namespace {

TEST_CASE("parallel_for runs every item once on any thread count and rethrows", "[parallel]") {
  for (int threads : {1, 2, 4}) {
    ThreadPool pool(threads);
    CHECK(pool.threads() == threads);
    std::vector<std::atomic<int>> hits(1000);
    pool.parallel_for(hits.size(), threads, [&](std::size_t i) { hits[i].fetch_add(1); });
    CHECK(std::all_of(hits.begin(), hits.end(), [](const std::atomic<int>& h) { return h.load() == 1; }));
    // Many small jobs in a row reuse the pool.
    std::atomic<long> sum{0};
    for (int job = 0; job < 200; ++job)
      pool.parallel_for(7, threads, [&](std::size_t i) { sum += static_cast<long>(i); });
    CHECK(sum.load() == 200 * 21);
    CHECK_THROWS_AS(pool.parallel_for(50, threads,
                                      [](std::size_t i) {
                                        if (i == 17) throw std::runtime_error("item 17");
                                      }),
                    std::runtime_error);
  }
}

TEST_CASE("parallel_for without a pool runs serially, in item order", "[parallel]") {
  std::vector<std::size_t> order;
  parallel_for(nullptr, 5, 4, [&](std::size_t i) { order.push_back(i); });
  CHECK(order == std::vector<std::size_t>{0, 1, 2, 3, 4});
}

}  // namespace
}  // namespace shardplan
