// The pruned forced-load bound (pruned_forced_load.h) against the exact optimum:
// a hand-made instance where memory forces row_wise options (worked out in the
// comments; its capacities are exactly tight, so a bound that misread a capacity
// by one byte would pass the optimum), float sums in another order than ours, and
// random small instances solved by exhaustive search, where it may never exceed
// the optimum (no tolerance: it is proven for the float sums the optimum is made of).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "planner/bounds/bound_test_util.h"
#include "planner/bounds/lower_bound.h"
#include "planner/bounds/pruned_forced_load.h"

namespace shardplan::testing {
namespace {

// A ceiling far above every optimum here: a wrong rule would reach it.
constexpr double kPrunedTestCeiling = 1000;

double pruned_of(const BoundInput& in, double ceiling = kPrunedTestCeiling) {
  return pruned_forced_bound(pruned_instance(in), 0, ceiling);
}

// Two ranks of 10 bytes of HBM each.
//   a: row_wise 3 per rank, 6 bytes per rank; or table_wise (key_value-like) 10, 0 bytes.
//   b: table_wise 2.5, 4 bytes; or row_wise 0.5 per rank, 4 bytes per rank.
//   c: table_wise 0.25, 4 bytes; or table_wise 4, 0 bytes.
// a's table_wise puts 10 on a rank: a best plan takes a's row_wise (3 and 6 bytes on
// each rank, 4 bytes left on each). Then b's row_wise fills both ranks (3.5 each, no
// room left), and c must take its 4: 7.5. Else b's table_wise on one rank (5.5, 10
// bytes: exactly full) and c's 0.25 on the other (3.25, 10 bytes: exactly full): 5.5,
// the optimum. The other bounds stop below it (at 4.375): no option of a is forced for them (its
// table_wise is usable), and they price the storage pooled, not per rank.
std::vector<ShardingOption> memory_forced_tables() {
  return {
      bound_option("a", ShardingType::kRowWise, {{3, {6, 0}}, {3, {6, 0}}}),
      bound_option("a", ShardingType::kTableWise, {{10, {0, 0}}}),
      bound_option("b", ShardingType::kTableWise, {{2.5, {4, 0}}}),
      bound_option("b", ShardingType::kRowWise, {{0.5, {4, 0}}, {0.5, {4, 0}}}),
      bound_option("c", ShardingType::kTableWise, {{0.25, {4, 0}}}),
      bound_option("c", ShardingType::kTableWise, {{4, {0, 0}}}),
  };
}

TEST_CASE("pruned forced load: memory forces the row_wise options, the bound is the optimum", "[bound][pruned]") {
  const Topology topo = bound_topology({{10, 0}, {10, 0}}, 1);
  const std::vector<ShardingOption> options = memory_forced_tables();
  const BoundInput in = bound_input(options, {}, topo);
  REQUIRE(brute_force_optimum(in) == 5.5);
  CHECK(compute_lower_bound(in).value < 5.5);  // they do not prove the optimum
  CHECK(pruned_of(in) == 5.5);
  CHECK(pruned_of(in, 5.5) == 5.5);  // the plan's rating as the ceiling: proven optimal
  std::int64_t work = 0;
  const PrunedInstance instance = pruned_instance(in);
  CHECK(pruned_excludes(instance, 5.5, work));
  CHECK_FALSE(pruned_excludes(instance, std::nextafter(5.5, 6.0), work));
  CHECK(work > 0);
}

TEST_CASE("pruned forced load: with room for c beside both row_wise options, the bound follows the optimum down",
          "[bound][pruned]") {
  // As above with 14 bytes per rank: a's and b's row_wise (3.5 and 10 bytes per
  // rank) leave 4 bytes, room for c's 0.25: 3.75, the optimum. Ruling out at 3.75
  // still works (a's 10, b's 3 + 2.5, c's 3.5 + 0.25 and 3.5 + 4 all reach it), but
  // 3 + 0.5 + 0.25 is three terms, taken a few ulps low.
  const Topology topo = bound_topology({{14, 0}, {14, 0}}, 1);
  const std::vector<ShardingOption> options = memory_forced_tables();
  const BoundInput in = bound_input(options, {}, topo);
  REQUIRE(brute_force_optimum(in) == 3.75);
  const double bound = pruned_of(in);
  CHECK(bound <= 3.75);
  CHECK(bound >= 3.75 * (1 - 1e-14));
}

TEST_CASE("pruned forced load: a forced sum of three shards is taken below any order's rounding", "[bound][pruned]") {
  // One rank, three table_wise tables of 2^-53, 2^-53 and 1 (in that order). Summed
  // in table order, fl(fl(2^-53 + 2^-53) + 1) = 1 + 2^-52; a planner adding the 1
  // first gets fl(fl(1 + 2^-53) + 2^-53) = 1 (ties to even). The bound must stay
  // at or below 1: three positive terms are never taken as exact.
  const double tiny = std::ldexp(1.0, -53);
  const Topology topo = bound_topology({{10, 0}}, 1);
  const std::vector<ShardingOption> options = {
      bound_option("a", ShardingType::kTableWise, {{tiny, {1, 0}}}),
      bound_option("b", ShardingType::kTableWise, {{tiny, {1, 0}}}),
      bound_option("c", ShardingType::kTableWise, {{1.0, {1, 0}}}),
  };
  const BoundInput in = bound_input(options, {}, topo);
  REQUIRE(brute_force_optimum(in) == 1.0 + 2 * tiny);  // summed in table order
  const double bound = pruned_of(in);
  CHECK(bound <= 1.0);
  CHECK(bound > 0.999999);
}

TEST_CASE("pruned forced load: two shards are exact to the last bit", "[bound][pruned]") {
  // Two ranks; a: row_wise 0.1 per rank (5 of 8 bytes each) or table_wise 7 (0 bytes);
  // b: table_wise 0.2 (3 bytes) or table_wise 0.05 (4 bytes: never beside a's 5).
  // The optimum is fl(0.1 + 0.2) (not 0.3), and the bound reaches exactly that double.
  const Topology topo = bound_topology({{8, 0}, {8, 0}}, 1);
  const std::vector<ShardingOption> options = {
      bound_option("a", ShardingType::kRowWise, {{0.1, {5, 0}}, {0.1, {5, 0}}}),
      bound_option("a", ShardingType::kTableWise, {{7, {0, 0}}}),
      bound_option("b", ShardingType::kTableWise, {{0.2, {3, 0}}}),
      bound_option("b", ShardingType::kTableWise, {{0.05, {4, 0}}}),
  };
  const BoundInput in = bound_input(options, {}, topo);
  const double optimum = brute_force_optimum(in);
  REQUIRE(optimum == 0.1 + 0.2);
  CHECK(pruned_of(in) == optimum);
}

TEST_CASE("pruned forced load: three single shards are exact to the last bit, in the least order", "[bound][pruned]") {
  // Two ranks of 10 bytes; a: row_wise 0.1 per rank (5 bytes each) or table_wise 7;
  // b: row_wise 0.2 per rank (3 bytes each) or table_wise 8; c: table_wise 0.3 (2
  // bytes) or 0.05 (3 bytes: never beside a's and b's row_wise). The best plan puts
  // 0.1, 0.2 and 0.3 on one rank: fl(fl(0.1 + 0.2) + 0.3) = 0.6000000000000001 in
  // table order, but fl(fl(0.2 + 0.3) + 0.1) = 0.6 when c's shard is added before
  // a's. The bound is the least of those sums, 0.6 exactly: no margin, none above.
  const Topology topo = bound_topology({{10, 0}, {10, 0}}, 1);
  const std::vector<ShardingOption> options = {
      bound_option("a", ShardingType::kRowWise, {{0.1, {5, 0}}, {0.1, {5, 0}}}),
      bound_option("a", ShardingType::kTableWise, {{7, {0, 0}}}),
      bound_option("b", ShardingType::kRowWise, {{0.2, {3, 0}}, {0.2, {3, 0}}}),
      bound_option("b", ShardingType::kTableWise, {{8, {0, 0}}}),
      bound_option("c", ShardingType::kTableWise, {{0.3, {2, 0}}}),
      bound_option("c", ShardingType::kTableWise, {{0.05, {3, 0}}}),
  };
  const BoundInput in = bound_input(options, {}, topo);
  REQUIRE((0.1 + 0.2) + 0.3 > 0.6);
  REQUIRE((0.2 + 0.3) + 0.1 == 0.6);
  BoundInput reversed = in;
  std::reverse(reversed.tables.begin(), reversed.tables.end());
  REQUIRE(brute_force_optimum(in) == (0.1 + 0.2) + 0.3);
  REQUIRE(brute_force_optimum(reversed) == 0.6);
  CHECK(pruned_of(in) == 0.6);
}

// Random instances as lower_bound_test.cc's exhaustive tests; the optimum is taken
// over two table orders (the planner may add a rank's shards in either).
void check_pruned_on_random(std::uint64_t seed, int count, int max_tables, int devices, int local, int& solved,
                            int& tighter, int& exact) {
  std::mt19937_64 rng(seed);
  for (int k = 0; k < count; ++k) {
    const BoundInstance inst = random_bound_instance(rng, max_tables, devices, local);
    const BoundInput in = bound_input(inst.options, {}, inst.topology);
    BoundInput reversed = in;
    std::reverse(reversed.tables.begin(), reversed.tables.end());
    const double optimum = std::min(brute_force_optimum(in), brute_force_optimum(reversed));
    if (std::isinf(optimum)) continue;
    ++solved;
    const double pruned = pruned_of(in, optimum * 2 + 1);
    INFO("instance " << k << ": optimum " << optimum << ", pruned " << pruned);
    CHECK(pruned <= optimum);  // no tolerance: proven for these float sums
    const LowerBound b = compute_lower_bound(in);
    if (pruned > b.value) ++tighter;
    if (optimum > 0 && pruned == optimum) ++exact;
  }
}

TEST_CASE("pruned forced load: never above the exhaustive optimum on random small instances",
          "[bound][pruned][brute]") {
  int solved = 0, tighter = 0, exact = 0;
  check_pruned_on_random(20261127, 3000, 4, 0, 0, solved, tighter, exact);
  check_pruned_on_random(43, 300, 3, 4, 2, solved, tighter, exact);
  check_pruned_on_random(44, 300, 3, 4, 4, solved, tighter, exact);
  WARN("pruned_forced_load: " << solved << " instances with a plan; above every other bound on " << tighter
                              << ", equal to the optimum on " << exact);
  CHECK(solved > 1000);
  CHECK(tighter > 0);  // it sees what the work bounds do not
  CHECK(exact > 0);
}

}  // namespace
}  // namespace shardplan::testing
