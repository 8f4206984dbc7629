// rest_surely_fits promises that the options left will find room whatever device or
// host each of them is given, so long as every step follows the partition rules
// (a shard on a device that can hold it; a table_row_wise option's shard k on device
// k of one host; a table_column_wise option's shards within one host). Checked here
// against placements that try to break it: random choices and best fit (the device
// or host left with the least room), which packs devices full as fast as the rules
// allow. And partition_above, which stops on that proof, against partition().
#include <algorithm>
#include <catch2/catch.hpp>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "planner/partitioners/greedy/rest_fits.h"
#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/perf_model.h"
#include "planner/search_space.h"

namespace shardplan {
namespace {

struct RestCase {
  Hosts hosts;
  std::vector<DeviceLoad> devices;
  std::vector<ShardingOption> options;
};

Storage random_bytes(std::mt19937_64& rng, int most) {
  std::uniform_int_distribution<int> bytes(0, most), zero(0, 3);
  return Storage{bytes(rng), zero(rng) == 0 ? 0 : bytes(rng)};
}

// uniform_world > 0: a row_wise option over that many ranks instead, sometimes.
// perf: each shard's perf (fwd_compute; constant when not given).
ShardingOption rest_option(std::mt19937_64& rng, int index, int host_size, int most, int uniform_world = 0,
                           int most_perf = 0) {
  ShardingOption option;
  option.name = "t" + std::to_string(index);
  option.path = "ebc";
  std::uniform_int_distribution<int> kind(0, uniform_world > 0 ? 4 : 3), count(1, 4), perf(1, std::max(most_perf, 1));
  int shards = 1;
  switch (kind(rng)) {
    case 0:
      option.sharding_type = ShardingType::kTableWise;
      option.partition_by = PartitionBy::kDevice;
      break;
    case 1:
      option.sharding_type = ShardingType::kColumnWise;
      option.partition_by = PartitionBy::kDevice;
      shards = count(rng);
      break;
    case 2:
      option.sharding_type = ShardingType::kTableRowWise;
      option.partition_by = PartitionBy::kHost;
      shards = host_size;
      break;
    case 3:
      option.sharding_type = ShardingType::kTableColumnWise;
      option.partition_by = PartitionBy::kHost;
      shards = count(rng);
      break;
    default:
      option.sharding_type = ShardingType::kRowWise;
      option.partition_by = PartitionBy::kUniform;
      shards = uniform_world;
      break;
  }
  for (int s = 0; s < shards; ++s) {
    Shard shard;
    shard.size = {10, 8};
    shard.offset = {0, 8 * s};
    shard.storage = random_bytes(rng, option.partition_by == PartitionBy::kUniform ? most / 4 : most);
    shard.perf = Perf{most_perf > 0 ? static_cast<double>(perf(rng)) : 1.0, 0.5, 0, 0, 0};
    option.shards.push_back(shard);
  }
  return option;
}

RestCase random_rest_case(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> sizes(1, 4), host_counts(1, 5), extra(0, 2), tables(1, 14), most(1, 40);
  RestCase c;
  c.hosts.size = sizes(rng);
  c.hosts.count = host_counts(rng);
  const int world = c.hosts.size * c.hosts.count + (extra(rng) == 0 ? 1 : 0);  // a device of no host, sometimes
  const int capacity = most(rng) * std::uniform_int_distribution<int>(1, 12)(rng);
  for (int r = 0; r < world; ++r) c.devices.push_back(DeviceLoad{r, random_bytes(rng, capacity), Perf{}, 0.0});
  const int n = tables(rng), largest = most(rng);
  for (int i = 0; i < n; ++i) c.options.push_back(rest_option(rng, i, c.hosts.size, largest));
  return c;
}

// Places every option of `space` in order, each shard where `choose` says among the
// devices (or hosts) that the rules allow; false when some option finds no room.
enum class Strategy { kRandom, kBestFit };

bool fits_now(const Storage& need, const DeviceLoad& d) { return need.fits_in(d.free); }

// The allowed device with the least free HBM (then DDR), or a random allowed one.
int pick_device(const std::vector<int>& allowed, const std::vector<DeviceLoad>& devices, Strategy strategy,
                std::mt19937_64& rng) {
  if (allowed.empty()) return -1;
  if (strategy == Strategy::kRandom)
    return allowed[std::uniform_int_distribution<std::size_t>(0, allowed.size() - 1)(rng)];
  return *std::min_element(allowed.begin(), allowed.end(), [&](int a, int b) {
    return devices[static_cast<std::size_t>(a)].free < devices[static_cast<std::size_t>(b)].free;
  });
}

// Places the table_column_wise shards of `option` within host h (a copy of the
// devices): true and the devices updated when every shard found a device there.
bool place_within_host(const ShardingOption& option, int h, const Hosts& hosts, std::vector<DeviceLoad>& devices,
                       Strategy strategy, std::mt19937_64& rng) {
  std::vector<DeviceLoad> trial = devices;
  for (const Shard& shard : option.shards) {
    std::vector<int> allowed;
    for (int d = h * hosts.size; d < (h + 1) * hosts.size; ++d)
      if (fits_now(storage_of(shard), trial[static_cast<std::size_t>(d)])) allowed.push_back(d);
    const int d = pick_device(allowed, trial, strategy, rng);
    if (d < 0) return false;
    trial[static_cast<std::size_t>(d)].free -= storage_of(shard);
  }
  devices = std::move(trial);
  return true;
}

bool place_all(const RestCase& c, Strategy strategy, std::mt19937_64& rng) {
  std::vector<DeviceLoad> devices = c.devices;
  for (const ShardingOption& option : c.options) {
    if (option.partition_by == PartitionBy::kDevice) {
      for (const Shard& shard : option.shards) {
        std::vector<int> allowed;
        for (std::size_t d = 0; d < devices.size(); ++d)
          if (fits_now(storage_of(shard), devices[d])) allowed.push_back(static_cast<int>(d));
        const int d = pick_device(allowed, devices, strategy, rng);
        if (d < 0) return false;
        devices[static_cast<std::size_t>(d)].free -= storage_of(shard);
      }
      continue;
    }
    // Host-level: the hosts that can take it, best fit = least free on its fullest device.
    std::vector<int> hosts;
    for (int h = 0; h < c.hosts.count; ++h) {
      bool ok = true;
      if (option.sharding_type == ShardingType::kTableRowWise) {
        for (int k = 0; k < c.hosts.size && ok; ++k)
          ok = fits_now(storage_of(option.shards[static_cast<std::size_t>(k)]),
                        devices[static_cast<std::size_t>(h * c.hosts.size + k)]);
      } else {
        std::vector<DeviceLoad> copy = devices;
        ok = place_within_host(option, h, c.hosts, copy, Strategy::kBestFit, rng);
      }
      if (ok) hosts.push_back(h);
    }
    if (hosts.empty()) return false;
    auto room = [&](int h) {
      Storage least = devices[static_cast<std::size_t>(h * c.hosts.size)].free;
      for (int k = 1; k < c.hosts.size; ++k)
        least = std::min(least, devices[static_cast<std::size_t>(h * c.hosts.size + k)].free);
      return least;
    };
    const int h = strategy == Strategy::kRandom
                      ? hosts[std::uniform_int_distribution<std::size_t>(0, hosts.size() - 1)(rng)]
                      : *std::min_element(hosts.begin(), hosts.end(), [&](int a, int b) { return room(a) < room(b); });
    if (option.sharding_type == ShardingType::kTableRowWise) {
      for (int k = 0; k < c.hosts.size; ++k)
        devices[static_cast<std::size_t>(h * c.hosts.size + k)].free -=
            storage_of(option.shards[static_cast<std::size_t>(k)]);
    } else if (!place_within_host(option, h, c.hosts, devices, strategy, rng)) {
      return false;  // a random pick within the host can fail where best fit did not
    }
  }
  return true;
}

}  // namespace

TEST_CASE("rest_surely_fits: no placement that follows the rules runs out of room", "[partitioner][rest_fits]") {
  std::mt19937_64 rng(20261127);
  int proven = 0, unproven_but_fit = 0, some_placement_failed = 0;
  std::vector<std::pair<double, double>> scratch;
  for (int round = 0; round < 4000; ++round) {
    const RestCase c = random_rest_case(rng);
    std::vector<ShardingOption> options = c.options;
    const SearchSpace space(std::move(options));
    std::vector<const PartitionOptionBrief*> briefs;
    std::vector<int> rest;
    for (std::size_t i = 0; i < space.size(); ++i) {
      briefs.push_back(&space.brief(static_cast<OptionId>(i)));
      rest.push_back(static_cast<int>(i));
    }
    const RestDemand demand = rest_demand(rest, briefs, c.hosts.size);
    const bool sure = rest_surely_fits(demand, c.devices, c.hosts, scratch);
    bool all_placed = true;
    for (int attempt = 0; attempt < 6; ++attempt)
      all_placed = place_all(c, attempt == 0 ? Strategy::kBestFit : Strategy::kRandom, rng) && all_placed;
    if (sure) {
      ++proven;
      INFO("round " << round);
      CHECK(all_placed);
    } else if (all_placed) {
      ++unproven_but_fit;
    } else {
      ++some_placement_failed;
    }
  }
  // The rounds cover every outcome: proven, tight ones that fit anyway, and ones
  // where a placement does run out of room.
  CHECK(proven > 300);
  CHECK(unproven_but_fit > 300);
  CHECK(some_placement_failed > 1000);
}

namespace {
// rest_surely_fits for table_wise options of the given storages, in order, on
// devices with the given free storage (no hosts).
bool table_wise_rest_fits(const std::vector<Storage>& shards, const std::vector<Storage>& free) {
  std::vector<ShardingOption> options;
  for (const Storage& storage : shards) {
    ShardingOption option;
    option.name = "t" + std::to_string(options.size());
    option.path = "ebc";
    option.sharding_type = ShardingType::kTableWise;
    option.partition_by = PartitionBy::kDevice;
    Shard shard;
    shard.size = {10, 8};
    shard.storage = storage;
    option.shards.push_back(shard);
    options.push_back(std::move(option));
  }
  const SearchSpace space(std::move(options));
  std::vector<const PartitionOptionBrief*> briefs;
  std::vector<int> rest;
  for (std::size_t i = 0; i < space.size(); ++i) {
    briefs.push_back(&space.brief(static_cast<OptionId>(i)));
    rest.push_back(static_cast<int>(i));
  }
  std::vector<DeviceLoad> devices;
  for (const Storage& f : free) devices.push_back(DeviceLoad{static_cast<int>(devices.size()), f, Perf{}, 0.0});
  std::vector<std::pair<double, double>> scratch;
  return rest_surely_fits(rest_demand(rest, briefs, 1), devices, Hosts{1, 0}, scratch);
}
}  // namespace

TEST_CASE("rest_surely_fits at the edge of what the pigeonhole proves", "[partitioner][rest_fits]") {
  // HBM only. 4, 4, 3 on two devices of 10 always fit (slack 6 + 6 >= 11 bytes).
  CHECK(table_wise_rest_fits({{4, 0}, {4, 0}, {3, 0}}, {{10, 0}, {10, 0}}));
  // Five 4s do not: 4 + 4 on each device leaves 2 and 2 for the fifth.
  CHECK_FALSE(table_wise_rest_fits({{4, 0}, {4, 0}, {4, 0}, {4, 0}, {4, 0}}, {{10, 0}, {10, 0}}));
  // HBM and DDR: two HBM 4s on one device and two DDR 4s on the other leave no room
  // for (4, 4) (each kind alone could not spoil both devices: the sum of the lesser
  // shares is 1, and the knapsack takes it all).
  CHECK_FALSE(table_wise_rest_fits({{4, 0}, {4, 0}, {0, 4}, {0, 4}, {4, 4}}, {{10, 10}, {10, 10}}));
  // 97 bytes of HBM on each of two devices of 100 (24 x 4 and a 1 each) leave 3 for
  // the last (4, 4); the knapsack leaves 0.95 of the HBM shares, short of 1.
  std::vector<Storage> shards(48, Storage{4, 0});
  shards.push_back({1, 0});
  shards.push_back({1, 0});
  shards.push_back({4, 4});
  CHECK_FALSE(table_wise_rest_fits(shards, {{100, 100}, {100, 100}}));
  // With half the HBM bytes, both kinds of room outlast them.
  shards.erase(shards.begin(), shards.begin() + 24);
  CHECK(table_wise_rest_fits(shards, {{100, 100}, {100, 100}}));
  // A device that cannot hold the largest shard counts for nothing.
  CHECK_FALSE(table_wise_rest_fits({{4, 4}}, {{100, 3}}));
  CHECK(table_wise_rest_fits({{4, 4}}, {{100, 3}, {9, 9}}));
}

TEST_CASE("rest_demand: kinds the proof does not cover", "[partitioner][rest_fits]") {
  std::mt19937_64 rng(7);
  auto covered = [&](ShardingOption option, int host_size) {
    std::vector<ShardingOption> options{std::move(option)};
    const SearchSpace space(std::move(options));
    const std::vector<const PartitionOptionBrief*> briefs{&space.brief(0)};
    const std::vector<int> rest{0};
    return rest_demand(rest, briefs, host_size).covered;
  };
  ShardingOption twrw = rest_option(rng, 0, 2, 5);
  while (twrw.sharding_type != ShardingType::kTableRowWise) twrw = rest_option(rng, 0, 2, 5);
  CHECK(covered(twrw, 2));
  CHECK_FALSE(covered(twrw, 4));  // a shard count other than the host's devices fails on every host
  ShardingOption grid = twrw;
  grid.sharding_type = ShardingType::kGridShard;
  grid.partition_by = PartitionBy::kMultiHost;
  CHECK_FALSE(covered(grid, 2));
  ShardingOption negative = twrw;
  negative.shards = ShardList{};
  for (int k = 0; k < 2; ++k) {
    Shard shard;
    shard.size = {10, 8};
    shard.offset = {0, 8 * k};
    shard.storage = Storage{k == 0 ? -1 : 1, 0};
    negative.shards.push_back(shard);
  }
  CHECK_FALSE(covered(negative, 2));
}

namespace {

// A proposal of every option of a random space on `world` idle devices with
// `capacity` bytes of HBM each (DDR: a tenth as often set as not).
struct AboveCase {
  SearchSpace space;
  Proposal proposal;
  Topology topology;
};

AboveCase random_above_case(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> sizes(1, 4), host_counts(1, 6), tables(2, 40), most(1, 30);
  const int size = sizes(rng), world = size * host_counts(rng);
  std::vector<ShardingOption> options;
  const int n = tables(rng), largest = most(rng);
  for (int i = 0; i < n; ++i) options.push_back(rest_option(rng, i, size, largest, world, 100));
  AboveCase c{SearchSpace(std::move(options)), {}, {}};
  for (std::size_t i = 0; i < c.space.size(); ++i) c.proposal.push_back(static_cast<OptionId>(i));
  c.topology.world_size = world;
  c.topology.local_world_size = size;
  const std::int64_t capacity = std::uniform_int_distribution<std::int64_t>(largest, largest * n)(rng);
  for (int r = 0; r < world; ++r) c.topology.devices.push_back({r, Storage{capacity, capacity}, Perf{}});
  return c;
}

}  // namespace

TEST_CASE("partition_above stops only where partition() places everything, above the cutoff",
          "[partitioner][rest_fits]") {
  std::mt19937_64 rng(20261128);
  const GreedyPerfPartitioner partitioner;
  const NoopPerfModel model;
  int stopped = 0, finished = 0, failed = 0;
  for (int round = 0; round < 3000; ++round) {
    const AboveCase c = random_above_case(rng);
    const PartitionOutcome full = partitioner.partition(c.space, c.proposal, c.topology);
    const double rating = full.ok ? model.rate(c.space, c.proposal, full.placement, c.topology.world_size) : 0.0;
    // Cutoffs below the rating (the proposal cannot be kept), at it, and above it.
    for (double fraction : {0.0, 0.2, 0.5, 0.9, 1.0, 1.5}) {
      const double cutoff = rating * fraction;
      const double stop_above = model.load_above(c.space, c.proposal.size(), cutoff);
      const PartitionOutcome above = partitioner.partition_above(c.space, c.proposal, c.topology, nullptr, stop_above);
      INFO("round " << round << ", cutoff " << cutoff);
      REQUIRE(above.ok == full.ok);
      if (!full.ok) {
        ++failed;
        CHECK(above.failure.kind == full.failure.kind);
        continue;
      }
      if (above.complete) {
        ++finished;
        CHECK(above.placement.rank_lists() == full.placement.rank_lists());
        CHECK(above.largest_rank_load == full.largest_rank_load);
        continue;
      }
      ++stopped;
      CHECK(above.largest_rank_load <= full.largest_rank_load);
      CHECK(model.rated_above(c.space, above, cutoff));
      CHECK(rating > cutoff);
    }
  }
  CHECK(stopped > 3000);
  CHECK(finished > 4000);
  CHECK(failed > 1000);
}

TEST_CASE("partition_above places everything without a finite stop load", "[partitioner][rest_fits]") {
  std::mt19937_64 rng(3);
  const GreedyPerfPartitioner partitioner;
  for (int round = 0; round < 200; ++round) {
    const AboveCase c = random_above_case(rng);
    const PartitionOutcome above =
        partitioner.partition_above(c.space, c.proposal, c.topology, nullptr, std::numeric_limits<double>::infinity());
    CHECK(above.complete);
  }
}

}  // namespace shardplan
