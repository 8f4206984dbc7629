// The optimizing search's moves in lib/planner/refiners: the pair repartition
// (pair_repartition.h) and the target-overflow phase (target_search.h), on small
// hand-made states whose best answer is worked out in the comments, and on random
// small instances against an exhaustive optimum: every result within capacity and
// partition rules, never above its start, never below the optimum, the same on
// every run.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "planner/partitioners/optimizing/search_state.h"
#include "planner/partitioners/plan_validity.h"
#include "planner/refiners/option_repair.h"
#include "planner/refiners/pair_repartition.h"
#include "planner/refiners/target_search.h"

namespace shardplan::testing {
namespace {

using optimizing::RefinementOption;
using optimizing::SearchState;

ShardingOption moves_option(const std::string& name, ShardingType type, PartitionBy rule,
                            const std::vector<double>& perfs, std::int64_t hbm_per_shard = 1) {
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

// A state over `options` (per table, its candidate options; they must outlive the state).
SearchState moves_state(const Topology& topology, const std::vector<std::vector<ShardingOption>>& options) {
  SearchState state(topology);
  state.tables().resize(options.size());
  for (std::size_t t = 0; t < options.size(); ++t) {
    std::vector<RefinementOption> shapes;
    for (const ShardingOption& o : options[t]) shapes.push_back(optimizing::refinement_option_of(o));
    state.tables()[t].shape_list = std::make_shared<const std::vector<RefinementOption>>(std::move(shapes));
  }
  return state;
}

std::vector<std::vector<ShardingOption>> single_shard_tables(const std::vector<double>& perfs) {
  std::vector<std::vector<ShardingOption>> out;
  for (std::size_t t = 0; t < perfs.size(); ++t)
    out.push_back({moves_option("t" + std::to_string(t), ShardingType::kTableWise, PartitionBy::kDevice, {perfs[t]})});
  return out;
}

// Loads and storage recomputed from the tables (independent of the state's sums), checked
// against capacity; the rule of each table's current shape checked as torchrec places it.
std::string moves_violation(const SearchState& state) {
  const int world = state.world_size();
  std::vector<Storage> used(static_cast<std::size_t>(world));
  for (std::size_t t = 0; t < state.tables().size(); ++t) {
    const auto& table = state.tables()[t];
    const RefinementOption& s = table.shape();
    if (table.ranks.size() != s.perf.size()) return "table " + std::to_string(t) + " not placed";
    for (std::size_t j = 0; j < table.ranks.size(); ++j) {
      const int r = table.ranks[j];
      if (r < 0 || r >= world) return "rank out of range";
      used[static_cast<std::size_t>(r)] += s.storage[j];
      if (s.rule == PartitionBy::kUniform && r != static_cast<int>(j)) return "uniform shard off its rank";
      if (s.rule == PartitionBy::kHost && r / state.ranks_per_host() != table.ranks[0] / state.ranks_per_host())
        return "host shards on two hosts";
      if (s.rule == PartitionBy::kHost && s.table_row_wise && r % state.ranks_per_host() != static_cast<int>(j))
        return "table_row_wise shard off its local device";
    }
  }
  for (int r = 0; r < world; ++r)
    if (!used[static_cast<std::size_t>(r)].fits_in(state.capacity(r))) return "rank over capacity";
  return "";
}

double max_load(const SearchState& state) { return state.objective().max_load; }

TEST_CASE("pair repartition: two shards for one where moves and swaps cannot help", "[refiners][pair]") {
  // Rank 0 holds {2, 2, 5} = 9, rank 1 {2, 2, 3} = 7. Moving a 2 gives 7 / 9, swapping
  // the 5 for the 3 gives 7 / 9, no other move or swap lowers 9; the 16 split as
  // {5, 3} / {2, 2, 2, 2} gives 8 / 8.
  const auto options = single_shard_tables({2, 2, 5, 2, 2, 3});
  const Topology topology = uniform_topology(2, 2, Storage{100, 0});
  SearchState state = moves_state(topology, options);
  for (int t = 0; t < 6; ++t) state.place(t, 0, {t < 3 ? 0 : 1});
  std::int64_t work = 0;
  REQUIRE(optimizing::repartition_pair(state, state.bottleneck(), work));
  CHECK(state.load(0) == Approx(8));
  CHECK(state.load(1) == Approx(8));
  CHECK(moves_violation(state) == "");
  CHECK(work > 0);
}

TEST_CASE("pair repartition: capacity limits the split", "[refiners][pair]") {
  // The same shards, one byte of HBM each, three bytes per rank: every split is 3 / 3
  // shards, and none of {5, 2, 2} / {2, 2, 3}, {5, 2, 3} / {2, 2, 2}, {5, 2, 2} ...
  // has a larger side under 9 ({5, 3, x} is 10): no change, the state as it was.
  const auto options = single_shard_tables({2, 2, 5, 2, 2, 3});
  const Topology topology = uniform_topology(2, 2, Storage{3, 0});
  SearchState state = moves_state(topology, options);
  for (int t = 0; t < 6; ++t) state.place(t, 0, {t < 3 ? 0 : 1});
  std::int64_t work = 0;
  CHECK_FALSE(optimizing::repartition_pair(state, state.bottleneck(), work));
  CHECK(state.load(0) == Approx(9));
  CHECK(state.load(1) == Approx(7));
  for (int t = 0; t < 6; ++t) CHECK(state.tables()[static_cast<std::size_t>(t)].ranks[0] == (t < 3 ? 0 : 1));
}

TEST_CASE("pair repartition: table_row_wise and uniform shards stay", "[refiners][pair]") {
  // Two hosts of one rank... of two ranks: a table_row_wise table on host 0 (3 per rank)
  // and a uniform one (1 per rank) cannot move; only the device shards re-split.
  std::vector<std::vector<ShardingOption>> options = single_shard_tables({4, 1});
  options.push_back({moves_option("trw", ShardingType::kTableRowWise, PartitionBy::kHost, {3, 3})});
  options.push_back({moves_option("rw", ShardingType::kRowWise, PartitionBy::kUniform, {1, 1, 1, 1})});
  const Topology topology = uniform_topology(4, 2, Storage{100, 0});
  SearchState state = moves_state(topology, options);
  state.place(0, 0, {0});  // rank 0: 4 + 3 + 1 = 8
  state.place(1, 0, {0});  // rank 0: 9
  state.place(2, 0, {0, 1});
  state.place(3, 0, {0, 1, 2, 3});
  std::int64_t work = 0;
  REQUIRE(optimizing::repartition_pair(state, 0, work));
  CHECK(moves_violation(state) == "");
  CHECK(state.tables()[2].ranks == std::vector<int>{0, 1});
  CHECK(state.tables()[3].ranks == std::vector<int>{0, 1, 2, 3});
  // The 4 and the 1 go to the light ranks of host 1 (load 1 each): 4 / 4 / 5 / 2 at worst.
  CHECK(max_load(state) <= 5 + 1e-9);
}

TEST_CASE("option change with repair: a table turned table_row_wise once a host makes room", "[refiners][repair]") {
  // Two hosts of two ranks. Table a: table_wise 6 (alone on rank 0), or table_row_wise
  // 3 + 3. Tables x (4, rank 1), y (4, rank 2), z (1, rank 3): loads 6 / 4 / 4 / 1.
  // No move, swap or pair split lowers 6 (a on rank 3 makes 7; a for z leaves 6), and a
  // table_row_wise alone makes a host's peak 7 (x or y under it). With repair: a on host
  // 0 (3 / 7 / 4 / 1), x to rank 3 (3 / 3 / 4 / 5), z to rank 0 (4 / 3 / 4 / 4): max 4.
  std::vector<std::vector<ShardingOption>> options;
  options.push_back({moves_option("a", ShardingType::kTableWise, PartitionBy::kDevice, {6}),
                     moves_option("a", ShardingType::kTableRowWise, PartitionBy::kHost, {3, 3})});
  options.push_back({moves_option("x", ShardingType::kTableWise, PartitionBy::kDevice, {4})});
  options.push_back({moves_option("y", ShardingType::kTableWise, PartitionBy::kDevice, {4})});
  options.push_back({moves_option("z", ShardingType::kTableWise, PartitionBy::kDevice, {1})});
  const Topology topology = uniform_topology(4, 2, Storage{100, 0});
  SearchState state = moves_state(topology, options);
  state.place(0, 0, {0});
  state.place(1, 0, {1});
  state.place(2, 0, {2});
  state.place(3, 0, {3});
  std::int64_t work = 0;
  CHECK_FALSE(optimizing::repartition_pair(state, 0, work));
  REQUIRE(optimizing::change_option_with_repair(state, 0, work));
  CHECK(state.tables()[0].current == 1);
  CHECK(max_load(state) == Approx(4));
  CHECK(moves_violation(state) == "");
}

TEST_CASE("option change with repair: the state as it was when nothing helps", "[refiners][repair]") {
  // One rank: every option of a lands on it; nothing can get better.
  std::vector<std::vector<ShardingOption>> options;
  options.push_back({moves_option("a", ShardingType::kTableWise, PartitionBy::kDevice, {2}),
                     moves_option("a", ShardingType::kTableWise, PartitionBy::kDevice, {5})});
  options.push_back({moves_option("b", ShardingType::kTableWise, PartitionBy::kDevice, {1})});
  const Topology topology = uniform_topology(1, 1, Storage{100, 0});
  SearchState state = moves_state(topology, options);
  state.place(0, 0, {0});
  state.place(1, 0, {0});
  std::int64_t work = 0;
  CHECK_FALSE(optimizing::change_option_with_repair(state, 0, work));
  CHECK(state.tables()[0].current == 0);
  CHECK(state.load(0) == Approx(3));
}

TEST_CASE("target search: a uniform table turned into a one-rank table", "[refiners][target]") {
  // Two ranks. Table a: row_wise 3 + 3, or table_wise 2. Tables b and c: table_wise 4.
  // a row_wise with b and c apart: 7 / 7. a table_wise with b: 6 / 4, the optimum (the
  // 10 of work cannot split better than 6 / 4 or 4 / 6).
  std::vector<std::vector<ShardingOption>> options;
  options.push_back({moves_option("a", ShardingType::kRowWise, PartitionBy::kUniform, {3, 3}),
                     moves_option("a", ShardingType::kTableWise, PartitionBy::kDevice, {2})});
  options.push_back({moves_option("b", ShardingType::kTableWise, PartitionBy::kDevice, {4})});
  options.push_back({moves_option("c", ShardingType::kTableWise, PartitionBy::kDevice, {4})});
  const Topology topology = uniform_topology(2, 2, Storage{100, 0});
  SearchState state = moves_state(topology, options);
  state.place(0, 0, {0, 1});
  state.place(1, 0, {0});
  state.place(2, 0, {1});
  std::int64_t work = 0;
  bool stopped = false;
  const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
  REQUIRE(optimizing::target_search(state, 100'000, 1, far, work, stopped));
  CHECK_FALSE(stopped);
  CHECK(max_load(state) == Approx(6));
  CHECK(state.tables()[0].current == 1);
  CHECK(moves_violation(state) == "");
}

TEST_CASE("target search: microsecond loads end by stagnation, not by the budget", "[refiners][target]") {
  // Loads of a few microseconds on a plan no round can improve: the phase stops after
  // its rounds without a gain, far inside a huge budget (rounding in re-added loads
  // must not count as a gain, which would keep it going).
  std::vector<double> perfs;
  for (int t = 0; t < 12; ++t) perfs.push_back(1e-3 * (1 + (t * 7) % 5) / 3.0);
  const auto options = single_shard_tables(perfs);
  const Topology topology = uniform_topology(4, 2, Storage{100, 0});
  SearchState state = moves_state(topology, options);
  for (int t = 0; t < 12; ++t) state.place(t, 0, {t % 4});
  std::int64_t work = 0;
  bool stopped = false;
  const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
  const double before = max_load(state);
  optimizing::target_search(state, 1'000'000'000, 3, far, work, stopped);
  CHECK(work < 20'000'000);
  CHECK(max_load(state) <= before);
  CHECK(moves_violation(state) == "");
}

// A fixed tiny PRNG (the instances must be the same everywhere).
class MovesTestRng {
 public:
  explicit MovesTestRng(std::uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 7) {}
  std::uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<std::uint64_t>(n)); }

 private:
  std::uint64_t state_;
};

// 3-5 tables on 4 ranks (two hosts of two): table_wise (HBM, or slower in DDR),
// sometimes column_wise (2 device shards), row_wise (uniform) and table_row_wise
// (host); integer perfs, tight HBM on some seeds.
std::vector<std::vector<ShardingOption>> moves_instance(MovesTestRng& rng, Topology& topology) {
  std::vector<std::vector<ShardingOption>> options;
  const int tables = 3 + rng.below(3);
  std::int64_t total = 0;
  for (int t = 0; t < tables; ++t) {
    const std::string name = "t" + std::to_string(t);
    const double p = 2 + rng.below(9);
    const std::int64_t size = 1 + rng.below(4);
    total += size;
    std::vector<ShardingOption> list;
    list.push_back(moves_option(name, ShardingType::kTableWise, PartitionBy::kDevice, {p}, size));
    ShardingOption slow = moves_option(name, ShardingType::kTableWise, PartitionBy::kDevice, {2 * p + 1}, 0);
    slow.shards.update(0, [&](Shard& s) { s.storage = Storage{0, size}; });
    list.push_back(slow);
    if (rng.below(2) == 0)
      list.push_back(
          moves_option(name, ShardingType::kColumnWise, PartitionBy::kDevice, {p / 2 + 1, p / 2 + 1}, (size + 1) / 2));
    if (rng.below(2) == 0)
      list.push_back(moves_option(name, ShardingType::kRowWise, PartitionBy::kUniform,
                                  {p / 4 + 1, p / 4 + 1, p / 4 + 1, p / 4 + 1}, (size + 3) / 4));
    if (rng.below(2) == 0)
      list.push_back(
          moves_option(name, ShardingType::kTableRowWise, PartitionBy::kHost, {p / 2 + 0.5, p / 2}, (size + 1) / 2));
    options.push_back(std::move(list));
  }
  const std::int64_t hbm = std::max<std::int64_t>(1, total * (1 + rng.below(3)) / 6);
  topology = uniform_topology(4, 2, Storage{hbm, 4 + rng.below(8)});
  return options;
}

// The least max load over every option and placement the rules allow (nullopt: none fits).
class MovesExhaustive {
 public:
  MovesExhaustive(SearchState& state) : state_(state) {}
  std::optional<double> solve() {
    table(0);
    return best_;
  }

 private:
  void table(std::size_t t) {
    if (t == state_.tables().size()) {
      if (!best_ || max_load(state_) < *best_) best_ = max_load(state_);
      return;
    }
    const auto& shapes = state_.tables()[t].shapes();
    for (int i = 0; i < static_cast<int>(shapes.size()); ++i) {
      const RefinementOption& s = shapes[static_cast<std::size_t>(i)];
      std::vector<std::vector<int>> placements;
      const int n = static_cast<int>(s.perf.size());
      if (s.rule == PartitionBy::kUniform) {
        placements.push_back({0, 1, 2, 3});
      } else if (s.rule == PartitionBy::kHost) {
        placements.push_back({0, 1});
        placements.push_back({2, 3});
      } else {
        std::vector<int> ranks(static_cast<std::size_t>(n), 0);
        for (;;) {
          placements.push_back(ranks);
          int k = 0;
          while (k < n && ++ranks[static_cast<std::size_t>(k)] == 4) ranks[static_cast<std::size_t>(k++)] = 0;
          if (k == n) break;
        }
      }
      for (const auto& ranks : placements) {
        bool fits = true;
        std::vector<Storage> extra(4);
        for (int j = 0; j < n; ++j) {
          const int r = ranks[static_cast<std::size_t>(j)];
          extra[static_cast<std::size_t>(r)] += s.storage[static_cast<std::size_t>(j)];
          fits = fits && state_.fits(r, extra[static_cast<std::size_t>(r)]);
        }
        if (!fits) continue;
        state_.place(static_cast<int>(t), i, ranks);
        table(t + 1);
        state_.unplace(static_cast<int>(t));
      }
    }
  }
  SearchState& state_;
  std::optional<double> best_;
};

TEST_CASE("pair repartition and target search on random small instances", "[refiners][brute]") {
  int compared = 0;
  for (std::uint64_t seed = 1; seed <= 150; ++seed) {
    INFO("seed " << seed);
    MovesTestRng rng(seed);
    Topology topology;
    const auto options = moves_instance(rng, topology);
    SearchState empty = moves_state(topology, options);
    const std::optional<double> optimum = MovesExhaustive(empty).solve();
    // A poor start: each table's first option that fits, on the first ranks with room.
    SearchState start = empty;
    bool placed_all = true;
    for (int t = 0; t < static_cast<int>(options.size()) && placed_all; ++t) {
      bool placed = false;
      for (int i = 0; i < static_cast<int>(options[static_cast<std::size_t>(t)].size()) && !placed; ++i)
        if (auto ranks = start.greedy_ranks(t, i)) {
          start.place(t, i, *ranks);
          placed = true;
        }
      placed_all = placed;
    }
    if (!optimum || !placed_all) continue;
    REQUIRE(moves_violation(start) == "");
    ++compared;
    const double start_max = max_load(start);

    SearchState paired = start;
    std::int64_t work = 0;
    while (optimizing::repartition_pair(paired, paired.bottleneck(), work)) {
    }
    CHECK(moves_violation(paired) == "");
    CHECK(max_load(paired) <= start_max);
    CHECK(max_load(paired) >= *optimum - 1e-9);

    SearchState repaired = start;
    while (optimizing::change_option_with_repair(repaired, repaired.bottleneck(), work)) {
    }
    CHECK(moves_violation(repaired) == "");
    CHECK(max_load(repaired) <= start_max);
    CHECK(max_load(repaired) >= *optimum - 1e-9);

    const auto far = std::chrono::steady_clock::now() + std::chrono::hours(1);
    SearchState targeted = start;
    SearchState again = start;
    std::int64_t work1 = 0;
    std::int64_t work2 = 0;
    bool stopped = false;
    const bool improved = optimizing::target_search(targeted, 200'000, seed, far, work1, stopped);
    optimizing::target_search(again, 200'000, seed, far, work2, stopped);
    CHECK_FALSE(stopped);
    CHECK(moves_violation(targeted) == "");
    CHECK(max_load(targeted) >= *optimum - 1e-9);
    CHECK(improved == (max_load(targeted) < start_max));
    CHECK(max_load(targeted) <= start_max);
    // The same seed and budget: the same plan, the same work.
    CHECK(work1 == work2);
    for (std::size_t t = 0; t < options.size(); ++t) {
      CHECK(targeted.tables()[t].current == again.tables()[t].current);
      CHECK(targeted.tables()[t].ranks == again.tables()[t].ranks);
    }
  }
  CHECK(compared >= 50);
}

}  // namespace
}  // namespace shardplan::testing
