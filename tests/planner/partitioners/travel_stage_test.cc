// Stage 3 of the optimizing search (record-to-record travel from the best plan of
// stages 1 and 2, on small instances only): it keeps a plan worse than the one it
// replaced only while that plan is near the best seen, and always ends at the best
// plan it saw, so the result is never above the plan it began from.
#include <catch2/catch.hpp>

#include <cstdint>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "planner/partitioners/optimizing/optimize_plan.h"
#include "planner/partitioners/plan_validity.h"

namespace shardplan::testing {
namespace {

ShardingOption travel_option(const std::string& name, ShardingType type, std::vector<double> perfs, Storage per_shard) {
  ShardingOption o;
  o.name = name;
  o.path = "ebc";
  o.sharding_type = type;
  o.partition_by = PartitionBy::kDevice;
  for (double p : perfs) {
    Shard s;
    s.perf = Perf{p, 0, 0, 0, 0};
    s.storage = per_shard;
    o.shards.push_back(s);
  }
  return o;
}

struct TravelInstance {
  std::vector<ShardingOption> space;
  std::vector<ShardingOption> start;  // every table table_wise, round robin over the ranks
  Topology topology;
};

// `tables` tables on `ranks` ranks, each with three options: one shard in HBM, two
// shards of 60 % of its perf each (half the HBM each), or one shard 2.5x as slow in
// DDR. HBM is tight (about 1.3x what all tables take table_wise in HBM).
TravelInstance travel_instance(std::uint64_t seed, int tables, int ranks) {
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 7;
  const auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  TravelInstance in;
  std::int64_t hbm_total = 0;
  std::vector<std::int64_t> hbm(static_cast<std::size_t>(tables));
  std::vector<double> perf(static_cast<std::size_t>(tables));
  for (int t = 0; t < tables; ++t) {
    perf[static_cast<std::size_t>(t)] = 1.0 + static_cast<double>(next() % 1000) / 37.0;
    hbm[static_cast<std::size_t>(t)] = 2 * (1 + static_cast<std::int64_t>(next() % 8));
    hbm_total += hbm[static_cast<std::size_t>(t)];
  }
  in.topology = uniform_topology(ranks, ranks / 2, Storage{hbm_total * 13 / 10 / ranks + 16, 1'000'000});
  std::vector<std::int64_t> used(static_cast<std::size_t>(ranks), 0);
  for (int t = 0; t < tables; ++t) {
    const std::string name = fmt::format("t{}", t);
    const double p = perf[static_cast<std::size_t>(t)];
    const std::int64_t h = hbm[static_cast<std::size_t>(t)];
    in.space.push_back(travel_option(name, ShardingType::kTableWise, {p}, Storage{h, 0}));
    in.space.push_back(travel_option(name, ShardingType::kRowWise, {0.6 * p, 0.6 * p}, Storage{h / 2, 0}));
    in.space.push_back(travel_option(name, ShardingType::kTableWise, {2.5 * p}, Storage{0, h}));
    // The start: table_wise in HBM on the first rank (round robin) with room.
    ShardingOption o = in.space[in.space.size() - 3];
    int rank = t % ranks;
    while (used[static_cast<std::size_t>(rank)] + h > in.topology.devices[0].storage.hbm) rank = (rank + 1) % ranks;
    used[static_cast<std::size_t>(rank)] += h;
    o.shards.with_ranks([&](std::size_t) { return rank; });
    in.start.push_back(std::move(o));
  }
  return in;
}

TEST_CASE("stage 3 runs on small instances and never ends above the plan it began from", "[optimizing][travel]") {
  int strictly_better = 0;
  constexpr int kSeeds = 12;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    INFO("seed " << seed);
    const TravelInstance in = travel_instance(static_cast<std::uint64_t>(seed), 40, 8);
    REQUIRE(plan_violation(in.start, in.topology) == "");
    optimizing::OptimizeOptions options;
    options.work_budget = 400'000;
    const optimizing::OptimizeResult result = optimizing::optimize_plan(in.start, in.space, in.topology, options);
    CHECK(plan_violation(result.plan, in.topology) == "");
    CHECK(result.perf_rating <= optimizing::max_rank_perf(in.start, 8));
    REQUIRE(result.travel_work > 0);  // 40 x 8 is small: stage 3 ran
    CHECK(result.work_used >= result.travel_work);
    REQUIRE(result.travel_from > 0);
    // It may only gain (the plan is re-rated in plan order: allow float-order noise).
    CHECK(result.perf_rating <= result.travel_from * (1 + 1e-12));
    strictly_better += result.perf_rating < result.travel_from * (1 - 1e-9) ? 1 : 0;
  }
  WARN(fmt::format("stage 3 lowered the max-rank perf on {} of {} instances", strictly_better, kSeeds));
  // Its plan is kept where it gains (the stage is not a no-op on these fixed instances).
  CHECK(strictly_better >= 1);
}

TEST_CASE("stage 3 does not run past 32 000 tables x ranks", "[optimizing][travel]") {
  const TravelInstance in = travel_instance(3, 40, 1024);  // 40 960 tables x ranks
  REQUIRE(plan_violation(in.start, in.topology) == "");
  optimizing::OptimizeOptions options;
  options.work_budget = 200'000;
  const optimizing::OptimizeResult result = optimizing::optimize_plan(in.start, in.space, in.topology, options);
  CHECK(result.travel_work == 0);
  CHECK(result.travel_from == 0);
  CHECK(plan_violation(result.plan, in.topology) == "");
}

}  // namespace
}  // namespace shardplan::testing
