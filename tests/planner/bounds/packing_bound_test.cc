// The packing bound (packing_bound.h) against the exact optimum: hand-made
// instances worked out in the comments (one tight where the other bounds are not,
// two that a wrong counting rule would push above the optimum), the rank claim in
// floating point on random lists, and random small instances solved by exhaustive
// search, where it may never exceed the optimum (no tolerance: it is proven for the
// float sums the optimum is made of).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <random>

#include "planner/bounds/bound_test_util.h"
#include "planner/bounds/lower_bound.h"
#include "planner/bounds/packing_bound.h"

namespace shardplan::testing {
namespace {

// A ceiling far above every optimum here: a wrong rule would reach it.
constexpr double kPackingTestCeiling = 1000;

std::vector<ShardingOption> table_wise_tables(const std::vector<double>& perfs) {
  std::vector<ShardingOption> options;
  for (std::size_t t = 0; t < perfs.size(); ++t)
    options.push_back(bound_option("t" + std::to_string(t), ShardingType::kTableWise, {{perfs[t], {1, 0}}}));
  return options;
}

double packing_of(const BoundInput& in, double ceiling = kPackingTestCeiling) {
  return packing_bound(packing_instance(in), ceiling);
}

TEST_CASE("packing: tight where the work bounds are not", "[bound][packing]") {
  // Three ranks, tables 5, 5, 5, 3 (table_wise): some rank holds two tables, the
  // least pair is 5 + 3 = 8. The average work is 18 / 3 = 6, no shard exceeds 5,
  // and three shards above T / 2 fit on three ranks. Packing with a = 3 at T = 8:
  // the 5s count 1 each (5 + 3 >= 8), the 3 counts 3 / 8: 3.375 > 3 ranks.
  const Topology topo = bound_topology({{100, 0}, {100, 0}, {100, 0}}, 1);
  const std::vector<ShardingOption> options = table_wise_tables({5, 5, 5, 3});
  const BoundInput in = bound_input(options, {}, topo);
  CHECK(brute_force_optimum(in) == 8.0);
  CHECK(compute_lower_bound(in).value < 7.5);
  CHECK(packing_of(in) == 8.0);
  // A target above 8 is not excluded at any threshold.
  std::int64_t work = 0;
  for (const double a : {0.0, 3.0, 5.0}) CHECK_FALSE(packing_excludes(packing_instance(in), 8.5, a, work));
  CHECK(packing_excludes(packing_instance(in), 8.0, 3.0, work));
  CHECK(work > 0);
}

TEST_CASE("packing: exact to the last bit of the optimum's float sum", "[bound][packing]") {
  // As above with 0.7, 0.7, 0.7, 0.2: the optimum is fl(0.7 + 0.2) (not 0.9), and
  // the bound reaches exactly that double, no more.
  const Topology topo = bound_topology({{100, 0}, {100, 0}, {100, 0}}, 1);
  const std::vector<ShardingOption> options = table_wise_tables({0.7, 0.7, 0.7, 0.2});
  const BoundInput in = bound_input(options, {}, topo);
  const double optimum = brute_force_optimum(in);
  CHECK(optimum == 0.7 + 0.2);
  CHECK(packing_of(in) == optimum);
  CHECK(packing_of(in, optimum) == optimum);  // the plan's rating as the ceiling: proven optimal
}

TEST_CASE("packing: a medium shard counts its share, not a whole rank", "[bound][packing]") {
  // Two ranks, three tables of 1: the optimum is 2. At T = 2.5 with a = 1 every
  // shard is medium (1 + 1 < 2.5) and counts 1 / 2.5: 1.2 <= 2, nothing proven;
  // counting them as 1 would "prove" every target up to the ceiling.
  const Topology topo = bound_topology({{100, 0}, {100, 0}}, 1);
  const std::vector<ShardingOption> options = table_wise_tables({1, 1, 1});
  const BoundInput in = bound_input(options, {}, topo);
  CHECK(brute_force_optimum(in) == 2.0);
  CHECK(packing_of(in) == 2.0);
}

TEST_CASE("packing: a small shard counts nothing", "[bound][packing]") {
  // Two ranks, tables 4, 4, 1: the optimum is 5 (4 + 1 and 4). With a = 4 the 4s are
  // big up to T = 8 and the 1 is small: 2 is not above 2 ranks. Counting the 1 as
  // 1 / T would "prove" T = 7.
  const Topology topo = bound_topology({{100, 0}, {100, 0}}, 1);
  const std::vector<ShardingOption> options = table_wise_tables({4, 4, 1});
  const BoundInput in = bound_input(options, {}, topo);
  CHECK(brute_force_optimum(in) == 5.0);
  CHECK(packing_of(in) == 5.0);
  std::int64_t work = 0;
  CHECK_FALSE(packing_excludes(packing_instance(in), 7.0, 4.0, work));
}

TEST_CASE("packing: a forced option spread over every rank is ruled out first", "[bound][packing]") {
  // Three ranks; tables of 4, 4, 4 (table_wise) and two of 2 (table_wise) or 1.8 on
  // every rank (row_wise). The optimum is 6 (two 2s beside two 4s; a row_wise choice
  // puts 5.8 on every rank and the other small table on top). At T = 6 with a = 2 the
  // 4s count 1 each, a 2 counts 2 / 6, but the row_wise shards are small: the small
  // tables' least is 0 and 3 is not above 3 ranks. Ruled out: with 1.8 on every rank,
  // the other tables count above 3 at T2 = 4.2 (a = 1.8: the 4s 1 each, the other
  // small table at least 2 / 4.2), so a row_wise plan reaches 6. Then 3 + 2 / 3 > 3.
  // Without it the bound stops at 5.8 (a = 1.8: 4 + 1.8).
  const Topology topo = bound_topology({{100, 0}, {100, 0}, {100, 0}}, 1);
  std::vector<ShardingOption> options = table_wise_tables({4, 4, 4});
  for (const char* t : {"s1", "s2"}) {
    options.push_back(bound_option(t, ShardingType::kTableWise, {{2, {1, 0}}}));
    options.push_back(bound_option(t, ShardingType::kRowWise, {{1.8, {1, 0}}, {1.8, {1, 0}}, {1.8, {1, 0}}}));
  }
  const BoundInput in = bound_input(options, {}, topo);
  CHECK(brute_force_optimum(in) == 6.0);
  CHECK(compute_lower_bound(in).value < 5.8);
  CHECK(packing_of(in) == 6.0);
  // No forced floors: the same counts prove only 5.8.
  PackingInstance plain = packing_instance(in);
  for (auto& table : plain.tables)
    for (PackingOption& option : table) option.forced_floor = 0;
  CHECK(packing_bound(plain, kPackingTestCeiling) == 4.0 + 1.8);
}

TEST_CASE("packing: a table counts its least option", "[bound][packing]") {
  // Two ranks; a table with a 4 (table_wise) or two 2s (column_wise), and a table
  // of 4. The optimum is 4 (the 4s apart, or the 2s together beside the other 4).
  // At T <= 4 the 2s count 2 (2 + 2 >= T) and the 4 counts 1: the table's least is
  // 1, so 2 in all, not above 2 ranks (counting a table's largest option, 3, would
  // "prove" 4 is not reachable).
  const Topology topo = bound_topology({{100, 0}, {100, 0}}, 1);
  std::vector<ShardingOption> options = {
      bound_option("a", ShardingType::kTableWise, {{4, {1, 0}}}),
      bound_option("a", ShardingType::kColumnWise, {{2, {1, 0}}, {2, {1, 0}}}),
      bound_option("b", ShardingType::kTableWise, {{4, {1, 0}}}),
  };
  const BoundInput in = bound_input(options, {}, topo);
  CHECK(brute_force_optimum(in) == 4.0);
  CHECK(packing_of(in) < 4.0);
  std::int64_t work = 0;
  CHECK_FALSE(packing_excludes(packing_instance(in), 4.0, 2.0, work));
}

TEST_CASE("packing: a list that counts above 1 sums to at least the target, in any order", "[bound][packing]") {
  // The rank claim itself, in floating point: one rank, one table whose only option
  // is the list; whenever its count exceeds 1 the float sum (shuffled) is >= T.
  // Targets are taken at and next to sums of the list's elements, where rounding bites.
  std::mt19937_64 rng(30);
  int excluded = 0;
  for (int k = 0; k < 20000; ++k) {
    const int n = std::uniform_int_distribution<int>(1, 6)(rng);
    std::vector<double> perfs;
    for (int j = 0; j < n; ++j) perfs.push_back(std::uniform_real_distribution<double>(0.0, 1.0)(rng));
    std::vector<double> sorted = perfs;
    std::sort(sorted.begin(), sorted.end());
    PackingInstance one;
    one.tables = {{PackingOption{sorted, 0}}};
    one.ranks = 1;
    one.most_per_rank = static_cast<std::size_t>(n);
    std::shuffle(perfs.begin(), perfs.end(), rng);
    double sum = 0;
    for (const double p : perfs) sum += p;
    const double pair = n >= 2 ? perfs[0] + perfs[1] : perfs[0];
    for (const double base : {sum, pair}) {
      for (const double target : {std::nextafter(base, 0.0), base, std::nextafter(base, 2.0)}) {
        for (const double a : perfs) {
          std::int64_t work = 0;
          if (!packing_excludes(one, target, a, work)) continue;
          ++excluded;
          INFO("target " << target << ", threshold " << a << ", sum " << sum);
          CHECK(sum >= target);
        }
      }
    }
  }
  CHECK(excluded > 1000);
}

// The random instances of lower_bound_test.cc's exhaustive tests.
void check_packing_on_random(std::uint64_t seed, int count, int max_tables, int devices, int local, int& solved,
                             int& tighter, int& exact) {
  std::mt19937_64 rng(seed);
  for (int k = 0; k < count; ++k) {
    const BoundInstance inst = random_bound_instance(rng, max_tables, devices, local);
    const BoundInput in = bound_input(inst.options, {}, inst.topology);
    const double optimum = brute_force_optimum(in);
    if (std::isinf(optimum)) continue;
    ++solved;
    const double packing = packing_of(in, optimum * 2 + 1);
    INFO("instance " << k << ": optimum " << optimum << ", packing " << packing);
    CHECK(packing <= optimum);  // no tolerance: proven for these float sums
    const LowerBound b = compute_lower_bound(in);
    if (packing > b.value) ++tighter;
    if (optimum > 0 && packing == optimum) ++exact;
  }
}

TEST_CASE("packing: never above the exhaustive optimum on random small instances", "[bound][packing][brute]") {
  int solved = 0, tighter = 0, exact = 0;
  check_packing_on_random(20261123, 3000, 4, 0, 0, solved, tighter, exact);
  check_packing_on_random(42, 300, 3, 4, 2, solved, tighter, exact);
  WARN("packing: " << solved << " instances with a plan; above every other bound on " << tighter
                   << ", equal to the optimum on " << exact);
  CHECK(solved > 1000);
  CHECK(tighter > 0);  // it sees what the work bounds do not
  CHECK(exact > 0);
}

}  // namespace
}  // namespace shardplan::testing
