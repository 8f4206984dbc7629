// The optimizing search past 32 000 tables x ranks: the searches from its starts
// (greedy's plan and the best scratch starts) run at once on the threads they are
// given, each on a share of the work fixed before its stage begins, so the plan is
// the same on one, two or three threads. Up to 32 000 tables x ranks they run one
// after another, as before, whatever the threads.
#include <catch2/catch.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "common/thread_pool.h"
#include "planner/partitioners/optimizing/optimize_plan.h"
#include "planner/partitioners/plan_validity.h"

namespace shardplan::testing {
namespace {

ShardingOption concurrent_case_option(const std::string& name, ShardingType type, std::vector<double> perfs,
                                      Storage per_shard) {
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

struct ConcurrentCase {
  std::vector<ShardingOption> space;
  std::vector<ShardingOption> start;  // every table table_wise in HBM, round robin over the ranks
  Topology topology;
};

// `tables` tables on `ranks` ranks (8 to a host), each with three options: one
// shard in HBM, four shards of 30 % of its perf each (a quarter of the HBM each),
// or one shard 2.5x as slow in DDR. Perfs are skewed (a few heavy tables) and HBM
// is tight (1.3x what all tables take in HBM), so the search keeps finding gains
// until its work budget ends it.
ConcurrentCase concurrent_case(std::uint64_t seed, int tables, int ranks) {
  std::uint64_t x = seed * 0x9e3779b97f4a7c15ULL + 11;
  const auto next = [&x] {
    x ^= x << 13;
    x ^= x >> 7;
    x ^= x << 17;
    return x;
  };
  ConcurrentCase in;
  std::int64_t hbm_total = 0;
  std::vector<std::int64_t> hbm(static_cast<std::size_t>(tables));
  std::vector<double> perf(static_cast<std::size_t>(tables));
  for (int t = 0; t < tables; ++t) {
    const double u = static_cast<double>(next() % 1000) / 1000.0;
    perf[static_cast<std::size_t>(t)] = 1.0 + 30.0 * u * u * u;
    hbm[static_cast<std::size_t>(t)] = 4 * (1 + static_cast<std::int64_t>(next() % 8));
    hbm_total += hbm[static_cast<std::size_t>(t)];
  }
  in.topology = uniform_topology(ranks, 8, Storage{hbm_total * 13 / 10 / ranks + 32, 1'000'000});
  std::vector<std::int64_t> used(static_cast<std::size_t>(ranks), 0);
  for (int t = 0; t < tables; ++t) {
    const std::string name = fmt::format("t{}", t);
    const double p = perf[static_cast<std::size_t>(t)];
    const std::int64_t h = hbm[static_cast<std::size_t>(t)];
    in.space.push_back(concurrent_case_option(name, ShardingType::kTableWise, {p}, Storage{h, 0}));
    in.space.push_back(concurrent_case_option(name, ShardingType::kColumnWise, {0.3 * p, 0.3 * p, 0.3 * p, 0.3 * p},
                                              Storage{h / 4, 0}));
    in.space.push_back(concurrent_case_option(name, ShardingType::kTableWise, {2.5 * p}, Storage{0, h}));
    ShardingOption o = in.space[in.space.size() - 3];
    int rank = t % ranks;
    while (used[static_cast<std::size_t>(rank)] + h > in.topology.devices[0].storage.hbm) rank = (rank + 1) % ranks;
    used[static_cast<std::size_t>(rank)] += h;
    o.shards.with_ranks([&](std::size_t) { return rank; });
    in.start.push_back(std::move(o));
  }
  return in;
}

// Every table's option (type and the first shard's perf tell them apart) and its
// shards' ranks, one line per table.
std::string concurrent_plan_text(const std::vector<ShardingOption>& plan) {
  std::string out;
  for (const ShardingOption& o : plan) {
    out += fmt::format("{} {} {}:", o.name, static_cast<int>(o.sharding_type), o.shards.size());
    for (const Shard& s : o.shards) out += fmt::format(" {}@{}", s.perf.value_or(Perf{}).total(), s.rank.value_or(-1));
    out += '\n';
  }
  return out;
}

// optimize_plan of `in` on `threads` threads (0: no pool at all).
optimizing::OptimizeResult optimize_on_threads(const ConcurrentCase& in, int threads, std::int64_t work_budget) {
  optimizing::OptimizeOptions options;
  options.work_budget = work_budget;
  options.time_budget_seconds = 600;  // only the work budget may end the search
  std::optional<ThreadPool> pool;
  if (threads > 0) {
    pool.emplace(threads);
    options.parallelism.pool = &*pool;
  }
  return optimizing::optimize_plan(in.start, in.space, in.topology, options);
}

TEST_CASE("optimizing past 32 000 tables x ranks: the same plan on 1, 2 and 3 threads",
          "[optimizing][determinism][concurrent]") {
  // 300 x 128 = 38 400 tables x ranks: the concurrent schedule.
  for (std::uint64_t seed : {1, 2}) {
    INFO("seed " << seed);
    const ConcurrentCase in = concurrent_case(seed, 300, 128);
    REQUIRE(plan_violation(in.start, in.topology) == "");
    constexpr std::int64_t kBudget = 3'000'000;
    const optimizing::OptimizeResult serial = optimize_on_threads(in, 0, kBudget);
    REQUIRE(serial.improved);
    CHECK(plan_violation(serial.plan, in.topology) == "");
    CHECK(serial.perf_rating < optimizing::max_rank_perf(in.start, 128));
    // Greedy's start and two scratch starts: three searches in stage 1.
    REQUIRE(serial.scratch_starts >= 2);
    CHECK(serial.search_threads == 1);
    CHECK(serial.travel_work == 0);  // stage 3 is for small instances only
    // The budget, not a stall, ended the search (the shares are what decides the plan).
    CHECK(serial.work_used >= kBudget);
    const std::string expected = concurrent_plan_text(serial.plan);
    for (int threads : {1, 2, 3}) {
      INFO("threads " << threads);
      const optimizing::OptimizeResult r = optimize_on_threads(in, threads, kBudget);
      CHECK(r.search_threads == threads);  // 3 starts in stage 1: up to 3 at once
      CHECK(concurrent_plan_text(r.plan) == expected);
      CHECK(r.perf_rating == serial.perf_rating);
      CHECK(r.work_used == serial.work_used);
      CHECK(r.options_changed == serial.options_changed);
      CHECK(r.best_start == serial.best_start);
    }
  }
}

TEST_CASE("optimizing up to 32 000 tables x ranks: one search at a time, whatever the threads",
          "[optimizing][determinism][concurrent]") {
  // 100 x 64 = 6 400 tables x ranks: the sequential schedule (and stage 3).
  const ConcurrentCase in = concurrent_case(3, 100, 64);
  REQUIRE(plan_violation(in.start, in.topology) == "");
  const optimizing::OptimizeResult serial = optimize_on_threads(in, 0, 1'000'000);
  const optimizing::OptimizeResult two = optimize_on_threads(in, 2, 1'000'000);
  REQUIRE(serial.improved);
  CHECK(serial.travel_work > 0);
  CHECK(two.search_threads == 1);
  CHECK(concurrent_plan_text(two.plan) == concurrent_plan_text(serial.plan));
  CHECK(two.work_used == serial.work_used);
}

}  // namespace
}  // namespace shardplan::testing
