// The bottleneck rank and its heaviest tables, and the one-line texts of the
// bound and the bottleneck.
#include <catch2/catch.hpp>

#include "planner/bounds/bottleneck.h"
#include "planner/bounds/bound_test_util.h"
#include "planner_output/bound_report.h"

namespace shardplan::testing {
namespace {

// `option` with shard j on ranks[j].
ShardingOption placed_at(ShardingOption option, const std::vector<int>& ranks) {
  option.shards.with_ranks([&](std::size_t j) { return ranks.at(j); });
  return option;
}

std::vector<ShardingOption> three_table_plan() {
  // rank 0: b 1 + c 5 = 6; rank 1: a 4 + b 2 = 6; rank 2: nothing.
  return {
      placed_at(bound_option("a", ShardingType::kTableWise, {{4, {}}}), {1}),
      placed_at(bound_option("b", ShardingType::kRowWise, {{1, {}}, {2, {}}}), {0, 1}),
      placed_at(bound_option("c", ShardingType::kTableWise, {{5, {}}}), {0}),
  };
}

TEST_CASE("bottleneck: the lowest rank of largest total and its heaviest tables", "[bound][bottleneck]") {
  const Bottleneck b = find_bottleneck(three_table_plan(), 3);
  CHECK(b.rank == 0);  // ranks 0 and 1 tie at 6: the lowest
  CHECK(b.perf == Approx(6.0));
  CHECK(b.mean_perf == Approx(4.0));
  CHECK(b.num_tables == 2);
  REQUIRE(b.tables.size() == 2);
  CHECK(b.tables[0].fqn == "m.c");
  CHECK(b.tables[0].perf == Approx(5.0));
  CHECK(b.tables[1].fqn == "m.b");
  CHECK(b.tables[1].num_shards == 1);

  std::vector<ShardingOption> plan = three_table_plan();
  plan.push_back(placed_at(bound_option("d", ShardingType::kTableWise, {{0.5, {}}}), {1}));
  const Bottleneck top1 = find_bottleneck(plan, 3, 1);
  CHECK(top1.rank == 1);
  CHECK(top1.num_tables == 3);
  REQUIRE(top1.tables.size() == 1);
  CHECK(top1.tables[0].fqn == "m.a");
  CHECK(bottleneck_text(top1) ==
        "bottleneck: rank 1 at 6.500 ms (mean 4.167 ms, 3 tables); heaviest tables:\n"
        "  m.a 4.000 ms (table_wise, fused)\n");
  const nlohmann::ordered_json j = bottleneck_json(top1);
  CHECK(j.at("rank") == 1);
  CHECK(j.at("num_tables") == 3);
  CHECK(j.at("tables").at(0).at("fqn") == "m.a");
  CHECK(j.at("tables").at(0).at("perf") == 4.0);
}

TEST_CASE("bottleneck: a plan without placed shards has none", "[bound][bottleneck]") {
  std::vector<ShardingOption> plan = {bound_option("a", ShardingType::kTableWise, {{4, {}}})};
  const Bottleneck b = find_bottleneck(plan, 2);
  CHECK(b.rank == -1);
  CHECK(bottleneck_text(b) == "bottleneck: none (no shard placed)\n");
  CHECK(bottleneck_json(b).at("rank").is_null());
}

TEST_CASE("bound report: the line and the JSON name the binding bound", "[bound][output]") {
  LowerBound bound;
  bound.bounds = {{BoundKind::kAverageWork, 8.0}, {BoundKind::kLargestShard, 10.0}};
  bound.value = 10.0;
  bound.binding = BoundKind::kLargestShard;
  CHECK(bound_line(bound, 12.5) == "lower bound 10.000 ms (largest_shard), plan 12.500 ms, gap 25.0%");
  const nlohmann::ordered_json j = bound_json(bound, 12.5);
  CHECK(j.at("value") == 10.0);
  CHECK(j.at("gap").get<double>() == Approx(0.25));
  CHECK(j.at("binding") == "largest_shard");
  CHECK(j.at("bounds").at("average_work") == 8.0);
  CHECK(j.dump() ==
        R"({"value":10.0,"gap":0.25,"binding":"largest_shard","bounds":{"average_work":8.0,"largest_shard":10.0}})");

  LowerBound zero;
  zero.bounds = {{BoundKind::kAverageWork, 0.0}};
  CHECK(bound_json(zero, 1.0).at("gap").is_null());
  CHECK(bound_line(zero, 1.0) == "lower bound 0.000 ms (average_work), plan 1.000 ms, gap n/a");
}

}  // namespace
}  // namespace shardplan::testing
