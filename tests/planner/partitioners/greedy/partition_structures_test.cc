// The data structures the fast partitioner and proposer rely on, checked against
// the plain rule each one replaces (a scan, a sort, a full rebuild) on many
// random inputs: any divergence would change plans.
#include <catch2/catch.hpp>

#include <algorithm>
#include <atomic>
#include <iterator>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <stdexcept>
#include <vector>

#include "planner/partitioners/greedy/device_heap.h"
#include "planner/partitioners/greedy/host_order.h"
#include "planner/placement.h"
#include "planner/proposers/advance_tree.h"

namespace shardplan {
namespace {

// torchrec's device order: (perf total, rank % local_world_size, rank).
bool key_less(const DeviceLoad& a, const DeviceLoad& b, int lws) {
  if (a.perf_total != b.perf_total) return a.perf_total < b.perf_total;
  if (a.rank % lws != b.rank % lws) return a.rank % lws < b.rank % lws;
  return a.rank < b.rank;
}

// Perf totals for the heap test: few distinct values, so that ties on perf (decided
// by rank) are common, with the doubles whose order the queue's integer keys must
// keep: -0 equal to +0, negatives, the least subnormal, neighbours, infinity.
double heap_test_perf(std::mt19937_64& rng) {
  static const double values[] = {
      -3.5, -0.0, 0.0, 4.9e-324, 1.0, 1.0000000000000002, 2.0, 1e300, std::numeric_limits<double>::infinity()};
  return values[rng() % std::size(values)];
}

TEST_CASE("the device heap always tops the least device, through pops, pushes and updates",
          "[partitioner][structures]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 80; ++trial) {
    // Up to 300 devices: several chunks of the queue's tournament, the last one partial.
    const int world = 1 + static_cast<int>(rng() % (trial < 50 ? 40 : 300));
    const int lws = 1 + static_cast<int>(rng() % 8);
    std::vector<DeviceLoad> devices(static_cast<std::size_t>(world));
    // Few distinct perf values, so ties on perf (decided by rank) are common.
    // Ranks in position order, or (a third of the trials) shuffled: the queue keys on
    // ranks and answers positions.
    std::vector<int> ranks(static_cast<std::size_t>(world));
    std::iota(ranks.begin(), ranks.end(), 0);
    if (trial % 3 == 2) std::shuffle(ranks.begin(), ranks.end(), rng);
    for (int d = 0; d < world; ++d)
      devices[static_cast<std::size_t>(d)] = {ranks[static_cast<std::size_t>(d)], {}, {}, heap_test_perf(rng)};
    DeviceHeap heap;
    heap.reset(devices, lws);
    std::vector<char> in(devices.size(), 1);
    for (int step = 0; step < 200; ++step) {
      // Expected top: the least key among devices in the heap.
      std::optional<int> least;
      for (int d = 0; d < world; ++d)
        if (in[static_cast<std::size_t>(d)] &&
            (!least || key_less(devices[static_cast<std::size_t>(d)], devices[static_cast<std::size_t>(*least)], lws)))
          least = d;
      REQUIRE(heap.empty() == !least.has_value());
      if (!least) break;
      REQUIRE(heap.top() == *least);
      switch (rng() % 4) {
        case 0: {  // the top takes load
          devices[static_cast<std::size_t>(*least)].perf_total =
              std::max(devices[static_cast<std::size_t>(*least)].perf_total, heap_test_perf(rng));
          heap.update(*least);
          break;
        }
        case 1: {  // the top is skipped (popped), another device comes back
          heap.pop();
          in[static_cast<std::size_t>(*least)] = 0;
          for (int d = 0; d < world; ++d)
            if (!in[static_cast<std::size_t>(d)] && rng() % 2) {
              heap.push(d);
              in[static_cast<std::size_t>(d)] = 1;
              break;
            }
          break;
        }
        case 2: {  // a run of devices changes, re-seated later (a host-level step)
          const auto begin = static_cast<std::size_t>(rng() % static_cast<std::uint64_t>(world));
          const std::size_t end = std::min(devices.size(), begin + 1 + static_cast<std::size_t>(rng() % 9));
          for (std::size_t d = begin; d < end; ++d) devices[d].perf_total = heap_test_perf(rng);
          heap.defer_update(begin, end);
          heap.apply_deferred();
          break;
        }
        default: {  // any device in the heap changes (a host-level step)
          const int d = static_cast<int>(rng() % static_cast<std::uint64_t>(world));
          if (!in[static_cast<std::size_t>(d)]) break;
          devices[static_cast<std::size_t>(d)].perf_total = heap_test_perf(rng);
          heap.update(d);
        }
      }
    }
  }
}

// The host order as it was kept before hosts were moved one by one (take every
// changed host out, found by its old sum, re-sum it and insert it back): with a NaN
// sum no strict order exists, and HostOrder must still give exactly these bytes.
class HostOrderByReinsertion {
 public:
  explicit HostOrderByReinsertion(const Hosts& hosts)
      : hosts_(hosts), sums_(static_cast<std::size_t>(hosts.count)), dirty_(sums_.size()) {}
  void touch(std::size_t position) {
    const int host = hosts_.host_of(position);
    if (host >= 0 && !dirty_[static_cast<std::size_t>(host)]) {
      dirty_[static_cast<std::size_t>(host)] = 1;
      dirty_hosts_.push_back(host);
    }
  }
  const std::vector<int>& sorted(std::span<const DeviceLoad> devices) {
    auto less = [this](int a, int b) {
      const double x = sums_[static_cast<std::size_t>(a)], y = sums_[static_cast<std::size_t>(b)];
      return x < y || (!(y < x) && a < b);
    };
    auto sum_of = [&](int h) {
      double sum = 0.0;
      for (const DeviceLoad& d : hosts_.devices_of(devices, h)) sum += d.perf_total;
      return sum;
    };
    if (first_) {
      for (int h = 0; h < hosts_.count; ++h) sums_[static_cast<std::size_t>(h)] = sum_of(h);
      order_.resize(sums_.size());
      std::iota(order_.begin(), order_.end(), 0);
      std::sort(order_.begin(), order_.end(), less);
      first_ = false;
    } else if (!dirty_hosts_.empty()) {
      bool found_all = true;
      for (int h : dirty_hosts_) {
        auto at = std::lower_bound(order_.begin(), order_.end(), h, less);
        if (at == order_.end() || *at != h) {
          found_all = false;
          break;
        }
        order_.erase(at);
      }
      if (!found_all)
        order_.erase(std::remove_if(order_.begin(), order_.end(),
                                    [this](int h) { return dirty_[static_cast<std::size_t>(h)] != 0; }),
                     order_.end());
      for (int h : dirty_hosts_) {
        sums_[static_cast<std::size_t>(h)] = sum_of(h);
        order_.insert(std::lower_bound(order_.begin(), order_.end(), h, less), h);
      }
    }
    for (int h : dirty_hosts_) dirty_[static_cast<std::size_t>(h)] = 0;
    dirty_hosts_.clear();
    return order_;
  }

 private:
  Hosts hosts_;
  std::vector<double> sums_;
  std::vector<char> dirty_;
  std::vector<int> dirty_hosts_;
  std::vector<int> order_;
  bool first_ = true;
};

TEST_CASE("the host order gives the bytes of taking changed hosts out and back in, NaN sums included",
          "[partitioner][structures]") {
  std::mt19937_64 rng(2830);
  int nan_steps = 0, steps = 0;
  for (int trial = 0; trial < 200; ++trial) {
    Hosts hosts;
    hosts.size = 1 + static_cast<int>(rng() % 4);
    hosts.count = 1 + static_cast<int>(rng() % 16);
    const std::size_t world = static_cast<std::size_t>(hosts.size * hosts.count);
    std::vector<DeviceLoad> devices(world);
    for (std::size_t d = 0; d < world; ++d) devices[d] = {static_cast<int>(d), {}, {}, static_cast<double>(rng() % 4)};
    HostOrder order;
    order.reset(hosts);
    HostOrderByReinsertion reference(hosts);
    // Some trials get a NaN load part way (a NaN perf estimate): from then on no order
    // is strict, and only the exact sequence of searches decides the result.
    const int nan_at = trial % 3 == 0 ? static_cast<int>(rng() % 20) : -1;
    for (int step = 0; step < 60; ++step) {
      REQUIRE(order.sorted(devices) == reference.sorted(devices));
      ++steps;
      for (std::uint64_t k = 0, n = 1 + rng() % 4; k < n; ++k) {
        const std::size_t d = rng() % world;
        if (step == nan_at && k == 0)
          devices[d].perf_total = std::numeric_limits<double>::quiet_NaN();
        else
          devices[d].perf_total += static_cast<double>(rng() % 3);
        order.touch(d);
        reference.touch(d);
      }
      if (nan_at >= 0 && step >= nan_at) ++nan_steps;
    }
  }
  CHECK(steps == 200 * 60);
  CHECK(nan_steps > 1000);
}

TEST_CASE("the host order equals a fresh stable sort by summed perf after every change, its free sums fresh sums",
          "[partitioner][structures]") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 50; ++trial) {
    Hosts hosts;
    hosts.size = 1 + static_cast<int>(rng() % 4);
    hosts.count = 1 + static_cast<int>(rng() % 12);
    // Sometimes a few devices past the last whole host (they belong to none).
    const std::size_t world = static_cast<std::size_t>(hosts.size * hosts.count) + rng() % 3;
    std::vector<DeviceLoad> devices(world);
    for (std::size_t d = 0; d < world; ++d) devices[d] = {static_cast<int>(d), {}, {}, static_cast<double>(rng() % 3)};
    HostOrder order;
    order.reset(hosts);
    for (int step = 0; step < 100; ++step) {
      std::vector<double> sums(static_cast<std::size_t>(hosts.count), 0.0);
      for (int h = 0; h < hosts.count; ++h)
        for (const DeviceLoad& d : hosts.devices_of(std::span<const DeviceLoad>(devices), h))
          sums[static_cast<std::size_t>(h)] += d.perf_total;
      std::vector<int> want(static_cast<std::size_t>(hosts.count));
      std::iota(want.begin(), want.end(), 0);
      std::stable_sort(want.begin(), want.end(), [&](int a, int b) {
        return sums[static_cast<std::size_t>(a)] < sums[static_cast<std::size_t>(b)];
      });
      REQUIRE(order.sorted(devices) == want);
      // Each host's free storage, summed afresh (the host-level step reads it).
      for (int h = 0; h < hosts.count; ++h) {
        Storage free;
        for (const DeviceLoad& d : hosts.devices_of(std::span<const DeviceLoad>(devices), h)) free += d.free;
        REQUIRE(order.free_of(h) == free);
      }
      // Change one to three devices (load and free storage), telling the order about each.
      for (std::uint64_t k = 0, n = 1 + rng() % 3; k < n; ++k) {
        const std::size_t d = rng() % world;
        devices[d].perf_total += static_cast<double>(rng() % 3);
        devices[d].free -= Storage{static_cast<std::int64_t>(rng() % 5), static_cast<std::int64_t>(rng() % 5)};
        order.touch(d);
      }
    }
  }
}

TEST_CASE("the advance tree names the table torchrec's scan picks", "[proposer][structures]") {
  std::mt19937_64 rng(3);
  for (int trial = 0; trial < 50; ++trial) {
    const std::size_t tables = 1 + rng() % 30;
    std::vector<AdvanceTree::Key> keys(tables);
    std::vector<char> open(tables);
    AdvanceTree tree;
    tree.reset(tables);
    auto random_key = [&] {
      // Small values: equal keys (ties) and all-zero keys (never advanced) are common.
      return AdvanceTree::Key{static_cast<std::int64_t>(rng() % 3), static_cast<std::int64_t>(rng() % 2), 0,
                              static_cast<std::int64_t>(rng() % 2)};
    };
    for (std::size_t t = 0; t < tables; ++t) {
      keys[t] = random_key();
      open[t] = rng() % 4 != 0;
      tree.set(t, keys[t], open[t] != 0);
    }
    for (int step = 0; step < 60; ++step) {
      // torchrec's scan: strictly larger than the running maximum, from all zeros.
      std::optional<std::size_t> want;
      AdvanceTree::Key largest{};
      for (std::size_t t = 0; t < tables; ++t)
        if (open[t] && keys[t] > largest) {
          want = t;
          largest = keys[t];
        }
      REQUIRE(tree.best() == want);
      const std::size_t t = rng() % tables;
      keys[t] = random_key();
      open[t] = rng() % 4 != 0;
      tree.set(t, keys[t], open[t] != 0);
    }
  }
}

TEST_CASE("a placement stores consecutive ranks without spelling them out", "[partitioner][structures]") {
  Placement p;
  p.start(3);
  p.add_consecutive(4, 0);  // a uniform option on ranks 0..3
  p.add(2);                 // a device-placed option
  p.add(3);                 // placed later on one host
  p.ranks_of(1)[0] = 3;
  p.ranks_of(1)[1] = 1;
  p.set_consecutive(2, 4);
  CHECK(p.rank_lists() == std::vector<std::vector<int>>{{0, 1, 2, 3}, {3, 1}, {4, 5, 6}});
  CHECK(p.consecutive_from(0) == 0);
  CHECK(p.consecutive_from(1) == -1);
  CHECK(p.ranks_of(0).empty());
  CHECK(p.num_shards(2) == 3);
}

}  // namespace
}  // namespace shardplan
