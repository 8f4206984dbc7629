// The exact search against an exhaustive enumeration written here (every option
// of every table, every placement each partition rule allows, grid_shard as
// torchrec places it): on small random instances its optimum is the enumeration's,
// its plan is valid and rated as it says, and a search cut short by its work
// budget still leaves a bound at or below the optimum.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <functional>
#include <limits>
#include <random>

#include "planner/bounds/bound_test_util.h"
#include "planner/bounds/lower_bound.h"
#include "planner/exact/exact_search.h"
#include "planner/partitioners/plan_validity.h"

namespace shardplan::testing {
namespace {

constexpr double kExactTolerance = 1e-9;  // relative: sums of the same doubles in another order

// Every rank list torchrec's rules allow for `option` on `devices` ranks in hosts of `local`.
std::vector<std::vector<int>> exact_test_placements(const ShardingOption& option, int devices, int local) {
  const int n = option.num_shards();
  const int hosts = devices / local;
  std::vector<std::vector<int>> out;
  std::vector<int> current(static_cast<std::size_t>(n), -1);
  std::function<void(int, int, int)> any_of_range = [&](int j, int lo, int hi) {  // shards j.. on [lo, hi)
    if (j == n) {
      out.push_back(current);
      return;
    }
    for (int d = lo; d < hi; ++d) {
      current[static_cast<std::size_t>(j)] = d;
      any_of_range(j + 1, lo, hi);
    }
  };
  switch (option.partition_by) {
    case PartitionBy::kUniform:
      if (n == devices) {
        for (int j = 0; j < n; ++j) current[static_cast<std::size_t>(j)] = j;
        out.push_back(current);
      }
      break;
    case PartitionBy::kDevice:
      any_of_range(0, 0, devices);
      break;
    case PartitionBy::kHost:
      for (int h = 0; h < hosts; ++h) {
        if (option.sharding_type != ShardingType::kTableRowWise) {
          any_of_range(0, h * local, (h + 1) * local);
        } else if (n == local) {
          for (int j = 0; j < n; ++j) current[static_cast<std::size_t>(j)] = h * local + j;
          out.push_back(current);
        }
      }
      break;
    case PartitionBy::kMultiHost: {
      // Blocks of `local` shards; block b on host host_of[b], shard j on local j % local.
      // Fewer blocks than hosts: distinct hosts. Otherwise the hosts in some order, cycled.
      if (n == 0 || n % local != 0 || hosts == 0) break;
      const int blocks = n / local;
      std::vector<int> host_of(static_cast<std::size_t>(blocks), -1);
      std::function<void(int)> pick = [&](int b) {
        if (b == blocks) {
          for (int j = 0; j < n; ++j)
            current[static_cast<std::size_t>(j)] = host_of[static_cast<std::size_t>(j / local)] * local + j % local;
          out.push_back(current);
          return;
        }
        if (b >= hosts) {
          host_of[static_cast<std::size_t>(b)] = host_of[static_cast<std::size_t>(b % hosts)];
          pick(b + 1);
          return;
        }
        for (int h = 0; h < hosts; ++h) {
          if (std::find(host_of.begin(), host_of.begin() + b, h) != host_of.begin() + b) continue;
          host_of[static_cast<std::size_t>(b)] = h;
          pick(b + 1);
        }
      };
      pick(0);
      break;
    }
  }
  return out;
}

// The least max-rank perf over every choice and placement within the capacities
// (+infinity: none), by trying them all.
double exhaustive_optimum(const BoundInput& input) {
  const Topology& topo = *input.reserved;
  const int devices = static_cast<int>(topo.devices.size());
  const int local = std::max(1, topo.local_world_size);
  std::vector<std::vector<std::pair<const ShardingOption*, std::vector<int>>>> choices;
  for (const auto& table : input.tables) {
    choices.emplace_back();
    for (const ShardingOption* o : table)
      for (auto& p : exact_test_placements(*o, devices, local)) choices.back().emplace_back(o, std::move(p));
  }
  std::vector<double> load(static_cast<std::size_t>(devices), 0.0);
  std::vector<Storage> used(static_cast<std::size_t>(devices));
  double best = std::numeric_limits<double>::infinity();
  std::function<void(std::size_t)> each = [&](std::size_t t) {
    if (t == choices.size()) {
      best = std::min(best, *std::max_element(load.begin(), load.end()));
      return;
    }
    for (const auto& [option, ranks] : choices[t]) {
      const auto saved_load = load;
      const auto saved_used = used;
      bool fits = true;
      for (std::size_t j = 0; j < ranks.size(); ++j) {
        const auto d = static_cast<std::size_t>(ranks[j]);
        load[d] += option->shards[j].perf->total();
        used[d] += *option->shards[j].storage;
        fits = fits && used[d].fits_in(topo.devices[d].storage);
      }
      if (fits) each(t + 1);
      load = saved_load;
      used = saved_used;
    }
  };
  each(0);
  return best;
}

// The search's plan, placed, in BoundInput table order.
std::vector<ShardingOption> exact_test_plan(const exact::ExactResult& r) {
  std::vector<ShardingOption> plan;
  for (std::size_t t = 0; t < r.options.size(); ++t) {
    ShardingOption& o = plan.emplace_back(*r.options[t]);
    o.shards.with_ranks([&](std::size_t j) { return r.ranks[t].at(j); });
  }
  return plan;
}

double exact_test_rating(const std::vector<ShardingOption>& plan, int devices) {
  std::vector<double> load(static_cast<std::size_t>(devices), 0.0);
  for (const auto& o : plan)
    for (const auto& s : o.shards) load[static_cast<std::size_t>(*s.rank)] += s.perf->total();
  return *std::max_element(load.begin(), load.end());
}

void check_against_enumeration(const BoundInstance& inst, int k) {
  const BoundInput in = bound_input(inst.options, {}, inst.topology);
  const double optimum = exhaustive_optimum(in);
  const LowerBound lp = compute_lower_bound(in);
  INFO("instance " << k << ": optimum " << optimum << ", LP-type bound " << lp.value);
  for (const double floor : {0.0, lp.feasible ? lp.value : 0.0}) {
    exact::ExactOptions options;
    options.floor = floor;
    options.work_budget = std::numeric_limits<std::int64_t>::max();
    const exact::ExactResult r = exact::exact_search(in, options);
    REQUIRE(r.searched);
    CHECK(r.complete);
    if (std::isinf(optimum)) {
      CHECK(std::isinf(r.bound));
      CHECK_FALSE(r.found_better());
      continue;
    }
    CHECK(r.bound == Approx(optimum).epsilon(kExactTolerance).margin(1e-12));
    REQUIRE(r.found_better());
    const std::vector<ShardingOption> plan = exact_test_plan(r);
    CHECK(plan_violation(plan, inst.topology) == "");
    CHECK(exact_test_rating(plan, static_cast<int>(inst.topology.devices.size())) ==
          Approx(r.value).epsilon(kExactTolerance));
    CHECK(r.value == Approx(optimum).epsilon(kExactTolerance).margin(1e-12));
  }
  // Cut short: whatever it leaves is still a bound at or below the optimum.
  for (const std::int64_t budget : {1, 7, 40}) {
    exact::ExactOptions options;
    options.work_budget = budget;
    const exact::ExactResult r = exact::exact_search(in, options);
    INFO("budget " << budget << ": bound " << r.bound);
    CHECK(r.bound <= optimum * (1 + kExactTolerance) + 1e-12);
    if (r.found_better()) CHECK(r.value >= optimum * (1 - kExactTolerance) - 1e-12);
  }
}

TEST_CASE("exact search: the enumeration's optimum on random small instances", "[exact][brute]") {
  std::mt19937_64 rng(20261126);
  for (int k = 0; k < 1500; ++k) check_against_enumeration(random_bound_instance(rng, 4), k);
}

TEST_CASE("exact search: the enumeration's optimum on two hosts of two ranks", "[exact][brute]") {
  std::mt19937_64 rng(30);
  for (int k = 0; k < 300; ++k) check_against_enumeration(random_bound_instance(rng, 3, 4, 2), k);
}

// Options whose shards are identical (same perf and storage), as column_wise ones
// usually are, on ranks of distinct capacities (so the rank classes do not merge
// them): the search places a group of identical shards in one order only.
BoundInstance identical_shards_instance(std::mt19937_64& rng, int tables, int devices) {
  BoundInstance inst;
  std::vector<Storage> free;
  for (int d = 0; d < devices; ++d) free.push_back({static_cast<std::int64_t>(6 + d + rng() % 6), 100});
  inst.topology = bound_topology(free, 1);
  for (int t = 0; t < tables; ++t) {
    const std::string name = "t" + std::to_string(t);
    const double perf = 1.0 + static_cast<double>(rng() % 5);
    const ShardSpec shard{perf, {static_cast<std::int64_t>(1 + rng() % 3), 1}};
    inst.options.push_back(bound_option(name, ShardingType::kColumnWise, std::vector<ShardSpec>(2 + rng() % 3, shard)));
    inst.options.push_back(bound_option(name, ShardingType::kTableWise, {{perf * 2.5, {shard.storage.hbm * 2, 1}}}));
  }
  return inst;
}

TEST_CASE("exact search: identical shards, the enumeration's optimum", "[exact][brute]") {
  std::mt19937_64 rng(4242);
  for (int k = 0; k < 60; ++k) check_against_enumeration(identical_shards_instance(rng, 1 + k % 3, 3), k);
}

TEST_CASE("exact search: a group of identical shards is placed in one order only", "[exact]") {
  // Three tables of three shards on five ranks of distinct capacities (five rank
  // classes), searched to the end. With identical shards per table, each group is
  // placed in one order; the same instance with the shards' perf apart by 1e-9 (so
  // no two are identical, and every bound moves by at most 3e-9) searches them in
  // every order: several times the nodes for the same optimum.
  const Topology topo = bound_topology({{40, 100}, {41, 100}, {42, 100}, {43, 100}, {44, 100}}, 1);
  auto search = [&](double apart) {
    std::vector<ShardingOption> options;
    int name = 0;
    for (const double perf : {3.0, 5.0, 7.0})
      options.push_back(bound_option("t" + std::to_string(name++), ShardingType::kColumnWise,
                                     {{perf, {1, 1}}, {perf + apart, {1, 1}}, {perf + 2 * apart, {1, 1}}}));
    const BoundInput in = bound_input(options, {}, topo);
    exact::ExactOptions unlimited;
    unlimited.work_budget = std::numeric_limits<std::int64_t>::max();
    exact::ExactResult r = exact::exact_search(in, unlimited);
    REQUIRE(r.complete);
    CHECK(r.value == Approx(exhaustive_optimum(in)).epsilon(1e-8));
    return r;
  };
  const exact::ExactResult identical = search(0.0);
  const exact::ExactResult distinct = search(1e-9);
  INFO("nodes: " << identical.nodes << " identical, " << distinct.nodes << " distinct");
  CHECK(identical.value == Approx(distinct.value).epsilon(1e-8));
  CHECK(identical.nodes * 3 < distinct.nodes);
}

TEST_CASE("exact search: a known plan is kept unless a strictly better one exists", "[exact]") {
  // Two ranks, tables of perf 3, 2, 2, 1 (table_wise, room for all): the best is
  // (3 + 1 | 2 + 2) = 4. Given a plan of 4, the search proves it optimal and keeps
  // it (no strictly better plan); given 5, it finds the 4.
  const Topology topo = bound_topology({{10, 10}, {10, 10}}, 1);
  std::vector<ShardingOption> options;
  int name = 0;
  for (const double perf : {3.0, 2.0, 2.0, 1.0})
    options.push_back(bound_option("t" + std::to_string(name++), ShardingType::kTableWise, {{perf, {1, 1}}}));
  const BoundInput in = bound_input(options, {}, topo);
  exact::ExactOptions given;
  given.incumbent = 4;
  const exact::ExactResult kept = exact::exact_search(in, given);
  CHECK(kept.complete);
  CHECK(kept.bound == 4);
  CHECK_FALSE(kept.found_better());
  given.incumbent = 5;
  const exact::ExactResult found = exact::exact_search(in, given);
  CHECK(found.complete);
  CHECK(found.bound == 4);
  REQUIRE(found.found_better());
  CHECK(found.value == 4);
  // With the LP-type bound as the floor (average work 4), it stops at the first plan of 4.
  given.floor = 4;
  CHECK(exact::exact_search(in, given).value == 4);
}

TEST_CASE("exact search: the same result whatever the clock, from the work budget", "[exact]") {
  std::mt19937_64 rng(7);
  const BoundInstance inst = random_bound_instance(rng, 4, 3, 1);
  const BoundInput in = bound_input(inst.options, {}, inst.topology);
  exact::ExactOptions options;
  options.work_budget = 25;
  const exact::ExactResult a = exact::exact_search(in, options);
  options.time_budget_seconds = 3600;  // an outer cap that never binds changes nothing
  const exact::ExactResult b = exact::exact_search(in, options);
  CHECK(a.nodes == b.nodes);
  CHECK(a.bound == b.bound);
  CHECK(a.ranks == b.ranks);
  CHECK_FALSE(b.stopped_by_clock);
}

}  // namespace
}  // namespace shardplan::testing
