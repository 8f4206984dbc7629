// optimize_plan on small hand-made plans: what each kind of step must find, and
// what it must respect (capacities, partition rules, never worse).
#include <catch2/catch.hpp>
#include <cmath>

#include "planner/partitioners/optimizing/optimize_plan.h"
#include "planner/partitioners/optimizing/start_stages.h"
#include "planner/partitioners/plan_validity.h"

namespace shardplan::testing {
namespace {

// An option of table `name` with one shard per entry of `perfs` (fwd_compute only).
ShardingOption option(const std::string& name, ShardingType type, PartitionBy rule, std::vector<double> perfs,
                      std::int64_t hbm_per_shard = 1) {
  ShardingOption o;
  o.name = name;
  o.path = "ebc";
  o.sharding_type = type;
  o.partition_by = rule;
  for (double p : perfs) {
    Shard s;
    s.perf = Perf{p, 0, 0, 0, 0};
    s.storage = Storage{hbm_per_shard, 0};
    o.shards.push_back(s);
  }
  return o;
}

ShardingOption placed(ShardingOption o, std::vector<int> ranks) {
  o.shards.with_ranks([&](std::size_t j) { return ranks.at(j); });
  return o;
}

const Storage kRoomy{1000, 1000};

TEST_CASE("optimize_plan moves shards off the bottleneck to the optimum", "[optimizing]") {
  // 3, 3, 2 all on rank 0 of 2 ranks: the best max is 5 (3 + 2 | 3).
  const std::vector<ShardingOption> space{option("a", ShardingType::kTableWise, PartitionBy::kDevice, {3}),
                                          option("b", ShardingType::kTableWise, PartitionBy::kDevice, {3}),
                                          option("c", ShardingType::kTableWise, PartitionBy::kDevice, {2})};
  const std::vector<ShardingOption> plan{placed(space[0], {0}), placed(space[1], {0}), placed(space[2], {0})};
  const Topology t = uniform_topology(2, 2, kRoomy);
  const auto result = optimizing::optimize_plan(plan, space, t, {});
  CHECK(result.improved);
  CHECK(result.perf_rating == 5);
  CHECK(optimizing::max_rank_perf(result.plan, 2) == 5);
  CHECK(plan_violation(result.plan, t) == "");
}

TEST_CASE("optimize_plan respects capacities", "[optimizing]") {
  // Rank 1 holds at most one storage unit: only one of the two tables may move there.
  std::vector<ShardingOption> space{option("a", ShardingType::kTableWise, PartitionBy::kDevice, {4}),
                                    option("b", ShardingType::kTableWise, PartitionBy::kDevice, {4}),
                                    option("c", ShardingType::kTableWise, PartitionBy::kDevice, {4})};
  const std::vector<ShardingOption> plan{placed(space[0], {0}), placed(space[1], {0}), placed(space[2], {0})};
  Topology t = uniform_topology(2, 2, kRoomy);
  t.devices[1].storage = Storage{1, 1000};
  const auto result = optimizing::optimize_plan(plan, space, t, {});
  CHECK(result.perf_rating == 8);
  CHECK(plan_violation(result.plan, t) == "");
}

TEST_CASE("optimize_plan changes a table's option when that lowers the bottleneck", "[optimizing]") {
  // Table a table_wise costs 10 on one rank; its row_wise option costs 3 on each of 2.
  const std::vector<ShardingOption> space{option("a", ShardingType::kTableWise, PartitionBy::kDevice, {10}),
                                          option("a", ShardingType::kRowWise, PartitionBy::kUniform, {3, 3}),
                                          option("b", ShardingType::kTableWise, PartitionBy::kDevice, {1})};
  const std::vector<ShardingOption> plan{placed(space[0], {0}), placed(space[2], {1})};
  const Topology t = uniform_topology(2, 2, kRoomy);
  const auto result = optimizing::optimize_plan(plan, space, t, {});
  CHECK(result.improved);
  CHECK(result.options_changed == 1);
  CHECK(result.plan[0].sharding_type == ShardingType::kRowWise);
  CHECK(result.perf_rating == 4);
  CHECK(plan_violation(result.plan, t) == "");
}

TEST_CASE("optimize_plan keeps host and uniform rules", "[optimizing]") {
  // 2 hosts x 2: a table_row_wise table (pinned to local devices) and a uniform
  // one start on host 0 with a device table; the best spreads them over hosts.
  const std::vector<ShardingOption> space{option("twrw", ShardingType::kTableRowWise, PartitionBy::kHost, {5, 1}),
                                          option("rw", ShardingType::kRowWise, PartitionBy::kUniform, {1, 1, 1, 1}),
                                          option("tw", ShardingType::kTableWise, PartitionBy::kDevice, {5})};
  const std::vector<ShardingOption> plan{placed(space[0], {0, 1}), placed(space[1], {0, 1, 2, 3}),
                                         placed(space[2], {0})};
  const Topology t = uniform_topology(4, 2, kRoomy);
  const auto result = optimizing::optimize_plan(plan, space, t, {});
  CHECK(result.perf_rating == 6);
  CHECK(plan_violation(result.plan, t) == "");
}

TEST_CASE("optimize_plan returns an optimal plan unchanged", "[optimizing]") {
  const std::vector<ShardingOption> space{option("a", ShardingType::kTableWise, PartitionBy::kDevice, {3}),
                                          option("b", ShardingType::kTableWise, PartitionBy::kDevice, {3})};
  const std::vector<ShardingOption> plan{placed(space[0], {0}), placed(space[1], {1})};
  const auto result = optimizing::optimize_plan(plan, space, uniform_topology(2, 2, kRoomy), {});
  CHECK_FALSE(result.improved);
  CHECK(result.perf_rating == 3);
  CHECK(*result.plan[0].shards[0].rank == 0);
  CHECK(*result.plan[1].shards[0].rank == 1);
}

TEST_CASE("the plan checker rejects broken plans", "[optimizing]") {
  const Topology t = uniform_topology(2, 2, Storage{2, 0});
  const ShardingOption rw = option("rw", ShardingType::kRowWise, PartitionBy::kUniform, {1, 1});
  CHECK(plan_violation({placed(rw, {0, 1})}, t) == "");
  CHECK(plan_violation({placed(rw, {1, 0})}, t) == "ebc.rw: uniform shard 0 on rank 1");
  const ShardingOption big = option("tw", ShardingType::kTableWise, PartitionBy::kDevice, {1}, 3);
  CHECK(plan_violation({placed(big, {1})}, t) == "rank 1 holds hbm 3 ddr 0 bytes over its capacity hbm 2 ddr 0");
  const Topology hosts = uniform_topology(4, 2, kRoomy);
  const ShardingOption twrw = option("twrw", ShardingType::kTableRowWise, PartitionBy::kHost, {1, 1});
  CHECK(plan_violation({placed(twrw, {2, 3})}, hosts) == "");
  const ShardingOption twcw = option("twcw", ShardingType::kTableColumnWise, PartitionBy::kHost, {1, 1});
  CHECK(plan_violation({placed(twcw, {3, 2})}, hosts) == "");
  CHECK(plan_violation({placed(twcw, {1, 2})}, hosts) == "ebc.twcw: host option spans hosts 0 and 1");
  CHECK(plan_violation({placed(twrw, {3, 2})}, hosts) ==
        "ebc.twrw: table_row_wise shard 0 on rank 3, not local device 0");
}

}  // namespace
}  // namespace shardplan::testing

namespace shardplan::optimizing::testing {
namespace {

Objective objective(double max_load, double sum_squares) { return Objective{max_load, sum_squares}; }

}  // namespace

TEST_CASE("stage_two_trials keeps the two best trials, best first", "[optimizing][stages]") {
  // max loads 3.0, 2.9, 2.95: the second, then the third; the first stops after its trial.
  const std::vector<std::size_t> kept = stage_two_trials({objective(3.0, 9), objective(2.9, 9), objective(2.95, 9)});
  REQUIRE(kept == std::vector<std::size_t>{1, 2});
}

TEST_CASE("stage_two_trials ranks equal maxima by the sum of squares, then by index", "[optimizing][stages]") {
  CHECK(stage_two_trials({objective(2.0, 5), objective(2.0, 4)}) == std::vector<std::size_t>{1, 0});
  CHECK(stage_two_trials({objective(2.0, 4), objective(2.0, 4), objective(2.0, 4)}) == std::vector<std::size_t>{0, 1});
}

TEST_CASE("stage_two_trials drops a trial far behind the best one", "[optimizing][stages]") {
  // 29.7 against 49.7 (scale-T1000-ws8's two scratch starts after trials of an eighth of the work): one goes on.
  CHECK(stage_two_trials({objective(29.7, 1), objective(49.7, 1)}) == std::vector<std::size_t>{0});
  // Just inside the margin (5 %) both go on; just outside, one.
  CHECK(stage_two_trials({objective(1.0, 1), objective(1.0 + 0.99 * kTrialMargin, 1)}).size() == 2);
  CHECK(stage_two_trials({objective(1.0, 1), objective(1.0 + 1.01 * kTrialMargin, 1)}).size() == 1);
  CHECK(stage_two_trials({objective(5.0, 1)}) == std::vector<std::size_t>{0});
  CHECK(stage_two_trials({}).empty());
}

TEST_CASE("far_from_bound: more than 1 % above a known bound", "[optimizing][stages]") {
  CHECK(far_from_bound(1.02, 1.0));
  CHECK_FALSE(far_from_bound(1.005, 1.0));
  CHECK_FALSE(far_from_bound(1.0, 1.0));
  CHECK_FALSE(far_from_bound(5.0, 0.0));  // no bound known: no restarts
}

}  // namespace shardplan::optimizing::testing

namespace shardplan::optimizing {
namespace {

// The work budget's shape, by the rules docs/optimizing-partitioner.md states: the
// floor for small instances, a smaller one past 500 tables on many ranks (where
// greedy's own time is the yardstick), none of it cut on few ranks, and a budget
// that falls again past 250 000 tables x ranks.
TEST_CASE("default_work_budget: floor, growth and the cuts", "[optimizing][budget]") {
  const std::int64_t floor = 60'000'000;
  CHECK(default_work_budget(100, 8) == floor + 40 * 800);
  CHECK(default_work_budget(500, 64) == floor + 40 * 32'000);
  // Few ranks: the whole floor even past 500 tables (4 000 x 8 = 32 000).
  CHECK(default_work_budget(1000, 8) == floor + 40 * 8'000);
  CHECK(default_work_budget(4000, 8) == floor + 40 * 32'000);
  // Many ranks past 500 tables: a floor of at most 1.5e7, then 6e7 x 500 / tables, and
  // two fifths of the whole kept; the scratch starts may use an eighth of the whole.
  CHECK(default_work_budget(1000, 64) == (15'000'000 + 40 * 64'000) * 2 / 5);
  CHECK(default_work_budget(2000, 64) == (15'000'000 + 40 * 128'000) * 2 / 5);
  CHECK(default_work_budget(3000, 64) == (10'000'000 + 40 * 192'000) * 2 / 5);
  CHECK(default_scratch_limit(1000, 64) == (15'000'000 + 40 * 64'000) * 2 / 5 * 5 / 2 / 8);
  CHECK(default_scratch_limit(100, 8) == default_work_budget(100, 8) / 8);
  // Past 250 000 tables x ranks too, but not on 500 tables or fewer.
  CHECK(default_work_budget(400, 1024) == static_cast<std::int64_t>(70'000'000 * std::sqrt(250'000.0 / 409'600)));
  // Past 250 000 tables x ranks the budget only falls as the model grows.
  const std::int64_t at_full = default_work_budget(500, 500);
  CHECK(default_work_budget(1000, 512) < at_full);
  CHECK(default_work_budget(5000, 1024) < default_work_budget(1000, 512));
  for (int ranks : {8, 64, 512})
    for (std::size_t tables = 100; tables < 20000; tables *= 2) CHECK(default_work_budget(tables, ranks) > 0);
}

}  // namespace
}  // namespace shardplan::optimizing
