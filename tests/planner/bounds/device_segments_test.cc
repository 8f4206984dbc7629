// The levels and local-index loads read over runs of shards and segments of alike
// devices must be, bit for bit, what the device-by-device and shard-by-shard loops
// of their definitions (lower_bound.cc, option_facts.h) give.
#include <bit>
#include <catch2/catch.hpp>
#include <cstdint>
#include <random>
#include <vector>

#include "planner/bounds/bound_test_util.h"
#include "planner/bounds/device_segments.h"
#include "planner/bounds/option_facts.h"
#include "planner/bounds/work_bounds.h"

namespace shardplan::testing {
namespace {

std::uint64_t bits(double x) { return std::bit_cast<std::uint64_t>(x); }

// Shards in runs: values drawn from few choices, repeated, so that runs form.
std::vector<ShardSpec> runs_of_shards(std::mt19937_64& rng, int count) {
  const double perfs[] = {0.1, 0.3, 1.0 / 3.0, 2.5e-7, 17.25};
  const Storage storages[] = {{100, 0}, {250, 10}, {0, 0}};
  std::vector<ShardSpec> out;
  while (static_cast<int>(out.size()) < count) {
    const ShardSpec spec{perfs[rng() % 5], storages[rng() % 3]};
    const int repeat = 1 + static_cast<int>(rng() % 40);
    for (int k = 0; k < repeat && static_cast<int>(out.size()) < count; ++k) out.push_back(spec);
  }
  return out;
}

// Floors with long stretches of equal values (and a few different ones).
void random_floors(std::mt19937_64& rng, int n, std::vector<double>& floor, std::vector<Storage>& floor_storage) {
  floor.assign(static_cast<std::size_t>(n), 0.0);
  floor_storage.assign(static_cast<std::size_t>(n), Storage{});
  for (int i = 0; i < n; ++i) {
    if (rng() % 8 == 0) {
      floor[static_cast<std::size_t>(i)] = 0.1 * static_cast<double>(rng() % 5);
      floor_storage[static_cast<std::size_t>(i)] = Storage{static_cast<std::int64_t>(rng() % 3) * 100, 0};
    } else if (i > 0) {
      floor[static_cast<std::size_t>(i)] = floor[static_cast<std::size_t>(i - 1)];
      floor_storage[static_cast<std::size_t>(i)] = floor_storage[static_cast<std::size_t>(i - 1)];
    }
  }
}

TEST_CASE("local-index loads: run by run, the same sums as shard by shard", "[bound]") {
  std::mt19937_64 rng(7);
  for (int trial = 0; trial < 200; ++trial) {
    const int local = 1 + static_cast<int>(rng() % 8);
    const int hosts = 1 + static_cast<int>(rng() % 6);
    const int devices = local * hosts;
    const Topology topology =
        bound_topology(std::vector<Storage>(static_cast<std::size_t>(devices), Storage{1000, 1000}), local);
    const DeviceCapacities capacities(topology);
    const ShardingOption option = bound_option("m.t", ShardingType::kRowWise, runs_of_shards(rng, devices));
    const BoundOptionFacts facts = option_facts(option, capacities);
    std::vector<double> fast;
    local_index_loads(facts, capacities, fast);
    // The definition: shard j adds its perf total to index j mod local, in order.
    std::vector<double> slow(static_cast<std::size_t>(local), 0.0);
    for (int j = 0; j < option.num_shards(); ++j)
      slow[static_cast<std::size_t>(j % local)] += option.shards[static_cast<std::size_t>(j)].perf->total();
    REQUIRE(fast.size() == slow.size());
    for (std::size_t k = 0; k < slow.size(); ++k) CHECK(bits(fast[k]) == bits(slow[k]));
  }
}

TEST_CASE("levels over device segments: the device-by-device values, bit for bit", "[bound]") {
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 200; ++trial) {
    const int n = 1 + static_cast<int>(rng() % 64);
    std::vector<Storage> free(static_cast<std::size_t>(n), Storage{600, 50});
    for (auto& f : free)
      if (rng() % 6 == 0) f = Storage{static_cast<std::int64_t>(200 + rng() % 500), 50};
    const Topology topology = bound_topology(free, 1);
    const DeviceCapacities devices(topology);
    std::vector<double> floor;
    std::vector<Storage> floor_storage;
    random_floors(rng, n, floor, floor_storage);
    const std::vector<DeviceSegment> segments = device_segments(devices, floor, floor_storage);
    REQUIRE(segments.front().begin == 0);
    REQUIRE(segments.back().end == n);

    // A uniform option: shard k on device k; the level is the largest floor plus
    // the device's load, infinite when a shard has no room beside the floor.
    const ShardingOption uniform = bound_option("m.u", ShardingType::kRowWise, runs_of_shards(rng, n));
    const BoundOptionFacts uniform_facts = option_facts(uniform, devices);
    double expected = 0;
    for (int i = 0; i < n && expected < kInfinity; ++i) {
      const auto at = static_cast<std::size_t>(i);
      const Storage room = devices.free(i) - floor_storage[at];
      const Shard shard = uniform.shards[at];
      if (!shard.storage->fits_in(room))
        expected = kInfinity;
      else
        expected = std::max(expected, floor[at] - 0.0 + (0.0 + shard.perf->total()));
    }
    CHECK(bits(uniform_option_level(uniform_facts, segments)) == bits(expected));

    // A table-wise option: its one shard on the device of least floor with room.
    const ShardingOption spread = bound_option("m.s", ShardingType::kTableWise, runs_of_shards(rng, 1));
    const BoundOptionFacts spread_facts = option_facts(spread, devices);
    double least = kInfinity;
    for (int i = 0; i < n; ++i) {
      const auto at = static_cast<std::size_t>(i);
      if (spread_facts.largest_shard_storage.fits_in(devices.free(i) - floor_storage[at]))
        least = std::min(least, floor[at] - 0.0 + spread_facts.largest_shard_perf);
    }
    CHECK(bits(spread_option_level(spread_facts, segments)) == bits(least));
  }
}

}  // namespace
}  // namespace shardplan::testing
