// Hand-worked examples of torchrec's partitioning rules.
#include <catch2/catch.hpp>
#include <chrono>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/units.h"
#include "planner/partitioners/greedy/placement_loads.h"
#include "planner/partitioners/greedy/torchrec_repr.h"
#include "planner/partitioners/partitioner_factory.h"
#include "planner/refiners/optimizing_refiner.h"
#include "planner_output/partition_failure_text.h"

namespace shardplan {
namespace {

// One shard: hbm bytes and a perf whose total is `perf` (all in fwd_compute).
struct ShardSpec {
  std::int64_t hbm;
  double perf;
};

ShardingOption make_option(const std::string& name, ShardingType type, const std::vector<ShardSpec>& shards,
                           const std::string& path = "ebc") {
  ShardingOption option;
  option.name = name;
  option.path = path;
  option.sharding_type = type;
  switch (type) {
    case ShardingType::kDataParallel:
    case ShardingType::kRowWise:
      option.partition_by = PartitionBy::kUniform;
      break;
    case ShardingType::kTableRowWise:
    case ShardingType::kTableColumnWise:
      option.partition_by = PartitionBy::kHost;
      break;
    case ShardingType::kGridShard:
      option.partition_by = PartitionBy::kMultiHost;
      break;
    default:
      option.partition_by = PartitionBy::kDevice;
      break;
  }
  for (const auto& spec : shards) {
    Shard shard;
    shard.size = {10, 8};
    shard.offset = {0, 0};
    shard.storage = Storage{spec.hbm, 0};
    shard.perf = Perf{spec.perf, 0, 0, 0, 0};
    option.shards.push_back(shard);
  }
  return option;
}

Topology make_topology(const std::vector<std::int64_t>& hbm, int local_world_size) {
  Topology topology;
  topology.world_size = static_cast<int>(hbm.size());
  topology.local_world_size = local_world_size;
  for (std::size_t r = 0; r < hbm.size(); ++r)
    topology.devices.push_back({static_cast<int>(r), Storage{hbm[r], 0}, Perf{}});
  return topology;
}

// A search space of `options` and the proposal of all of them, in order.
struct Proposed {
  SearchSpace space;
  Proposal proposal;
};

Proposed proposed(std::vector<ShardingOption> options) {
  Proposed p{SearchSpace(std::move(options)), {}};
  for (std::size_t i = 0; i < p.space.size(); ++i) p.proposal.push_back(static_cast<OptionId>(i));
  return p;
}

// torchrec's text of a failed outcome.
std::string text_of(const PartitionOutcome& outcome, const Proposed& p) {
  return partition_failure_text(outcome.failure, p.space);
}

using Ranks = std::vector<std::vector<int>>;

}  // namespace

TEST_CASE("greedy places each shard on the least-loaded rank that fits", "[partitioner]") {
  // 3 ranks of 100 bytes, one host. Sorted by storage: T1 90, T2 60, T3 50, T4 20.
  //   T1: all perf 0, tie-break by local rank -> r0 (free 10, perf 1)
  //   T2: r1 and r2 at perf 0 -> r1 (free 40, perf 10)
  //   T3: r2 (perf 0) -> r2 (free 50, perf 1)
  //   T4: r0 (perf 1, local 0) has 10 < 20 free: skipped; r2 (perf 1) -> r2
  const Proposed options = proposed({
      make_option("t4", ShardingType::kTableWise, {{20, 1}}),
      make_option("t2", ShardingType::kTableWise, {{60, 10}}),
      make_option("t1", ShardingType::kTableWise, {{90, 1}}),
      make_option("t3", ShardingType::kTableWise, {{50, 1}}),
  });
  const Topology topology = make_topology({100, 100, 100}, 3);
  const auto outcome = GreedyPerfPartitioner().partition(options.space, options.proposal, topology);
  REQUIRE(outcome.ok);
  CHECK(outcome.placement.rank_lists() == Ranks{{2}, {1}, {0}, {2}});
  const auto loads = rank_loads(options.space, options.proposal, outcome.placement, 3);
  CHECK(loads[0].storage.hbm == 90);
  CHECK(loads[2].storage.hbm == 70);
  CHECK(loads[2].num_shards == 2);
  // NoopPerfModel: max per-rank perf = r1's 10.
  CHECK(noop_perf_rating(options.space, options.proposal, outcome.placement, 3) == 10.0);
}

TEST_CASE("greedy breaks perf ties by local rank, then rank", "[partitioner]") {
  // 2 hosts x 2: key (perf, rank % 2, rank) orders idle devices r0, r2, r1, r3.
  // Equal storage: the stable sort keeps proposal order a, b, c, d.
  const Proposed options = proposed({
      make_option("a", ShardingType::kTableWise, {{10, 1}}),
      make_option("b", ShardingType::kTableWise, {{10, 1}}),
      make_option("c", ShardingType::kTableWise, {{10, 1}}),
      make_option("d", ShardingType::kTableWise, {{10, 1}}),
  });
  const auto outcome =
      GreedyPerfPartitioner().partition(options.space, options.proposal, make_topology({50, 50, 50, 50}, 2));
  REQUIRE(outcome.ok);
  CHECK(outcome.placement.rank_lists() == Ranks{{0}, {2}, {1}, {3}});
}

TEST_CASE("greedy sort_by perf and balance_modules change the order", "[partitioner]") {
  // 2 ranks. big: 50 bytes, perf 1; hot: 10 bytes, perf 5; warm: 20 bytes, perf 2.
  const Proposed options = proposed({
      make_option("big", ShardingType::kTableWise, {{50, 1}}, "m1"),
      make_option("hot", ShardingType::kTableWise, {{10, 5}}, "m2"),
      make_option("warm", ShardingType::kTableWise, {{20, 2}}, "m2"),
  });
  const Topology topology = make_topology({100, 100}, 2);
  // storage: big -> r0 (p1), warm -> r1 (p2), hot -> r0 (p1 < p2).
  auto by_storage = GreedyPerfPartitioner(SortBy::kStorage).partition(options.space, options.proposal, topology);
  REQUIRE(by_storage.ok);
  CHECK(by_storage.placement.rank_lists() == Ranks{{0}, {0}, {1}});
  // perf: hot -> r0 (p5), warm -> r1 (p2), big -> r1 (p2 < p5).
  auto by_perf = GreedyPerfPartitioner(SortBy::kPerf).partition(options.space, options.proposal, topology);
  REQUIRE(by_perf.ok);
  CHECK(by_perf.placement.rank_lists() == Ranks{{1}, {0}, {1}});
  // balance_modules: m1 (1 table) before m2 (2 tables); by storage within:
  // big -> r0, warm -> r1, hot -> r0: same as storage here; by perf within m2:
  // big -> r0 (p1), hot -> r1 (p5), warm -> r0 (p1 < p5).
  auto balanced = GreedyPerfPartitioner(SortBy::kPerf, true).partition(options.space, options.proposal, topology);
  REQUIRE(balanced.ok);
  CHECK(balanced.placement.rank_lists() == Ranks{{0}, {1}, {0}});
}

TEST_CASE("uniform options go first, shard i on rank i", "[partitioner]") {
  // rw loads r0 with perf 5 and r1 with perf 1 before tw is placed: tw -> r1,
  // although tw sorts first by storage.
  const Proposed options = proposed({
      make_option("tw", ShardingType::kTableWise, {{80, 1}}),
      make_option("rw", ShardingType::kRowWise, {{10, 5}, {10, 1}}),
  });
  const auto outcome = GreedyPerfPartitioner().partition(options.space, options.proposal, make_topology({100, 100}, 2));
  REQUIRE(outcome.ok);
  CHECK(outcome.placement.rank_lists() == Ranks{{1}, {0, 1}});

  // A data_parallel shard larger than a rank fails with torchrec's text.
  const Proposed too_big = proposed({make_option("dp", ShardingType::kDataParallel, {{50, 1}, {150, 1}})});
  const auto failed = GreedyPerfPartitioner().partition(too_big.space, too_big.proposal, make_topology({100, 100}, 2));
  CHECK_FALSE(failed.ok);
  CHECK(failed.error_type == PlannerErrorType::kPartition);
  CHECK(text_of(failed, too_big) ==
        "Shard of size Storage(hbm=150, ddr=0) bytes does not fit on any rank. Device memory "
        "cap: Storage(hbm=100, ddr=0).");

  const Proposed wrong_count = proposed({make_option("rw3", ShardingType::kRowWise, {{1, 1}, {1, 1}, {1, 1}})});
  const auto mismatch =
      GreedyPerfPartitioner().partition(wrong_count.space, wrong_count.proposal, make_topology({100, 100}, 2));
  CHECK(text_of(mismatch, wrong_count) ==
        "For a uniform partition, the number of shards (3) must equal the number of devices (2)");
}

TEST_CASE("host partitioning picks the least-loaded host that fits", "[partitioner]") {
  // 2 hosts x 2 ranks. tw (100 bytes, perf 10) sorts first and goes to r0, so
  // host 0 has perf 10 and host 1 perf 0.
  const ShardingOption tw = make_option("tw", ShardingType::kTableWise, {{100, 10}});
  const ShardingOption twrw = make_option("twrw", ShardingType::kTableRowWise, {{40, 1}, {40, 1}});
  const Proposed proposal = proposed({tw, twrw});

  // Roomy host 1: twrw's shards on its devices 2 and 3, in order.
  auto roomy =
      GreedyPerfPartitioner().partition(proposal.space, proposal.proposal, make_topology({200, 200, 200, 200}, 2));
  REQUIRE(roomy.ok);
  CHECK(roomy.placement.rank_lists() == Ranks{{0}, {2, 3}});

  // Host 1 holds 30 + 30 < 80 bytes: skipped; host 0 takes twrw on r0, r1.
  auto tight =
      GreedyPerfPartitioner().partition(proposal.space, proposal.proposal, make_topology({200, 200, 30, 30}, 2));
  REQUIRE(tight.ok);
  CHECK(tight.placement.rank_lists() == Ranks{{0}, {0, 1}});

  // table_column_wise: a device heap inside host 1: shard 0 -> r2, shard 1 -> r3
  // (perf tie at 0, local rank), shard 2 -> r2 (perf 1 each, local rank again).
  const ShardingOption twcw = make_option("twcw", ShardingType::kTableColumnWise, {{10, 1}, {10, 1}, {10, 1}});
  const Proposed tw_twcw = proposed({tw, twcw});
  auto column =
      GreedyPerfPartitioner().partition(tw_twcw.space, tw_twcw.proposal, make_topology({200, 200, 200, 200}, 2));
  REQUIRE(column.ok);
  CHECK(column.placement.rank_lists() == Ranks{{0}, {2, 3, 2}});

  // No host can hold it: torchrec's "can't find a host" error.
  auto none = GreedyPerfPartitioner().partition(proposal.space, proposal.proposal, make_topology({100, 30, 30, 30}, 2));
  CHECK_FALSE(none.ok);
  CHECK(text_of(none, proposal).rfind("can't find a host for sharding option group ShardingOptionGroup(", 0) == 0);
}

TEST_CASE("grid_shard takes whole hosts by perf", "[partitioner]") {
  // tw loads host 0, so the 2-shard grid option (one host's worth) goes to host 1.
  const ShardingOption tw = make_option("tw", ShardingType::kTableWise, {{100, 10}});
  const ShardingOption grid = make_option("grid", ShardingType::kGridShard, {{40, 1}, {40, 1}});
  const Proposed tw_grid = proposed({tw, grid});
  auto outcome =
      GreedyPerfPartitioner().partition(tw_grid.space, tw_grid.proposal, make_topology({200, 200, 200, 200}, 2));
  REQUIRE(outcome.ok);
  CHECK(outcome.placement.rank_lists() == Ranks{{0}, {2, 3}});

  const ShardingOption odd = make_option("odd", ShardingType::kGridShard, {{1, 1}, {1, 1}, {1, 1}});
  const Proposed odd_only = proposed({odd});
  auto failed =
      GreedyPerfPartitioner().partition(odd_only.space, odd_only.proposal, make_topology({200, 200, 200, 200}, 2));
  CHECK(text_of(failed, odd_only) ==
        "Grid Sharding is unable to place shards equally over hosts without overlapping. "
        "num_shards=3 % local_world_size=2 != 0");
}

TEST_CASE("device partition failure names the shard and the largest free device", "[partitioner]") {
  ShardingOption big = make_option("big", ShardingType::kTableWise, {{300, 0.5}});
  big.shards.update(0, [](Shard& s) { s.size = {1000, 64}; });
  const Proposed big_only = proposed({big});
  auto outcome = GreedyPerfPartitioner().partition(big_only.space, big_only.proposal, make_topology({100, 200}, 2));
  CHECK_FALSE(outcome.ok);
  CHECK(text_of(outcome, big_only) ==
        "Device partition failed. Couldn't find a rank for shard Shard size: (1000, 64), offset: "
        "(0, 0), storage: Storage(hbm=300, ddr=0), perf: Perf(fwd_compute=0.5, fwd_comms=0.0, "
        "bwd_compute=0.0, bwd_comms=0.0, prefetch_compute=0.0), rank: None of table big, largest "
        "device storage: Storage(hbm=200, ddr=0)");
}

TEST_CASE("memory_balanced searches the lowest HBM cap within tolerance", "[partitioner]") {
  // 2 ranks of 1 GiB; sizes in MiB. Greedy by perf: a (100M, p10) -> r0,
  // b (10M, p9) -> r1, c (10M, p1) -> r1 (p9 < p10), d (100M, p1): tie at p10,
  // local rank -> r0. Rating 11 (r0), max HBM 200M.
  // Search (min, max] = (max(avg 110M, shard 100M), 200M]:
  //   mid 155M: d skips r0 (55M free), fits r1 -> rating 11 <= 11.22: accept, max 155M
  //   mid 132.5M, 121.25M: same placement, accepted; mid 115.625M: d fits nowhere
  //   -> min 115.625M; then 115.625M + 10M >= 121.25M stops.
  const Proposed options = proposed({
      make_option("a", ShardingType::kTableWise, {{100 * kMiB, 10}}),
      make_option("b", ShardingType::kTableWise, {{10 * kMiB, 9}}),
      make_option("c", ShardingType::kTableWise, {{10 * kMiB, 1}}),
      make_option("d", ShardingType::kTableWise, {{100 * kMiB, 1}}),
  });
  const Topology topology = make_topology({1024 * kMiB, 1024 * kMiB}, 2);
  const auto greedy = GreedyPerfPartitioner(SortBy::kPerf).partition(options.space, options.proposal, topology);
  REQUIRE(greedy.ok);
  CHECK(greedy.placement.rank_lists() == Ranks{{0}, {1}, {1}, {0}});

  const auto balanced = MemoryBalancedPartitioner(10, 0.02).partition(options.space, options.proposal, topology);
  REQUIRE(balanced.ok);
  CHECK(balanced.placement.rank_lists() == Ranks{{0}, {1}, {1}, {1}});

  // No search: the greedy-by-perf placement.
  const auto no_search = MemoryBalancedPartitioner(0, 0.02).partition(options.space, options.proposal, topology);
  CHECK(no_search.placement.rank_lists() == greedy.placement.rank_lists());

  // b at perf 9.5 makes the capped plan 11.5 > 11 * 1.02 (r1: 9.5 + 1 + 1):
  // rejected, the default placement stays.
  std::vector<ShardingOption> slower_options = options.space.enumerated();
  slower_options[1].shards.update(0, [](Shard& s) { s.perf = Perf{9.5, 0, 0, 0, 0}; });
  const Proposed slower = proposed(slower_options);
  const auto rejected = MemoryBalancedPartitioner(10, 0.02).partition(slower.space, slower.proposal, topology);
  CHECK(rejected.placement.rank_lists() == Ranks{{0}, {1}, {1}, {0}});
}

TEST_CASE("partitioners are made by kind; one table names them", "[partitioner]") {
  PartitionerOptions options;
  options.type = PartitionerKind::kGreedy;
  options.sort_by = GreedySortBy::kPerf;
  CHECK(dynamic_cast<GreedyPerfPartitioner*>(make_partitioner(options).get()) != nullptr);
  options.type = PartitionerKind::kMemoryBalanced;
  CHECK(dynamic_cast<MemoryBalancedPartitioner*>(make_partitioner(options).get()) != nullptr);
  options.type = PartitionerKind::kOptimizing;
  // "optimizing" places as greedy does, then refines the best plan.
  CHECK(dynamic_cast<GreedyPerfPartitioner*>(make_partitioner(options).get()) != nullptr);
  CHECK(dynamic_cast<OptimizingRefiner*>(make_refiner(options).get()) != nullptr);
  options.type = PartitionerKind::kGreedy;
  CHECK(make_refiner(options) == nullptr);
  CHECK(names_of(kPartitionerNames) == std::vector<std::string>{"greedy", "memory_balanced", "optimizing"});
  CHECK(torchrec_name_of(kPartitionerNames, PartitionerKind::kMemoryBalanced) == "MemoryBalancedPartitioner");
  CHECK(unknown_name_message("partitioner", "gredy", names_of(kPartitionerNames)) ==
        "unknown partitioner 'gredy', did you mean 'greedy'?");
  CHECK(unknown_name_message("partitioner", "annealing", names_of(kPartitionerNames)) ==
        "unknown partitioner 'annealing' (expected one of: greedy, memory_balanced, optimizing)");
}

TEST_CASE("floats are rendered like Python's repr", "[partitioner]") {
  CHECK(python_repr(0.0) == "0.0");
  CHECK(python_repr(1.0) == "1.0");
  CHECK(python_repr(0.5) == "0.5");
  CHECK(python_repr(0.0001) == "0.0001");
  CHECK(python_repr(0.00001) == "1e-05");
  CHECK(python_repr(1.5e-07) == "1.5e-07");
  CHECK(python_repr(1e16) == "1e+16");
  CHECK(python_repr(1e15) == "1000000000000000.0");
  CHECK(python_repr(123.456) == "123.456");
  CHECK(python_repr(-2.5) == "-2.5");
  CHECK(python_repr(0.00874360934016165) == "0.00874360934016165");
  CHECK(python_repr(0.1 + 0.2) == "0.30000000000000004");
}

}  // namespace shardplan

namespace shardplan {

// Not a correctness test: times one greedy partition of 1000 tables on 512 ranks
// (run with "[.partitioner-bench]").
TEST_CASE("greedy partition speed, 1000 tables x 512 ranks", "[.partitioner-bench]") {
  constexpr int kRanks = 512;
  std::vector<ShardingOption> options;
  for (int t = 0; t < 1000; ++t) {
    const std::int64_t hbm = 1000 + (t * 7919) % 100000;
    const double perf = 0.001 * (1 + (t * 104729) % 997);
    if (t % 10 < 6) {
      options.push_back(make_option("tw" + std::to_string(t), ShardingType::kTableWise, {{hbm, perf}}));
    } else if (t % 10 < 9) {
      options.push_back(make_option("rw" + std::to_string(t), ShardingType::kRowWise,
                                    std::vector<ShardSpec>(kRanks, {hbm / kRanks, perf})));
    } else {
      options.push_back(make_option("twrw" + std::to_string(t), ShardingType::kTableRowWise,
                                    std::vector<ShardSpec>(8, {hbm / 8, perf})));
    }
  }
  const Topology topology = make_topology(std::vector<std::int64_t>(kRanks, 1LL << 40), 8);
  const Proposed proposal = proposed(std::move(options));
  const GreedyPerfPartitioner greedy;
  constexpr int kRuns = 20;
  const auto start = std::chrono::steady_clock::now();
  int placed = 0;
  for (int run = 0; run < kRuns; ++run)
    placed += greedy.partition(proposal.space, proposal.proposal, topology).ok ? 1 : 0;
  const std::chrono::duration<double, std::milli> elapsed = std::chrono::steady_clock::now() - start;
  CHECK(placed == kRuns);
  WARN("greedy partition of 1000 tables on 512 ranks: " << elapsed.count() / kRuns << " ms per call");
}

}  // namespace shardplan
