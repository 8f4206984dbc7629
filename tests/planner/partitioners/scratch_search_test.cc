// The optimizing search's starts from scratch (scratch_start.h) and its plan
// search when the proposals gave none (search_plan), against an exhaustive
// optimum computed here on small random instances: every plan it returns passes
// the independent checker (plan_validity.h), it finds a plan whenever one exists,
// and it reaches the optimum on most instances.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <optional>

#include <fmt/format.h>

#include "planner/bounds/capacity_proof.h"
#include "planner/partitioners/optimizing/optimize_plan.h"
#include "planner/partitioners/plan_validity.h"

namespace shardplan::testing {
namespace {

// A fixed tiny PRNG (the instances must be the same everywhere).
class ScratchTestRng {
 public:
  explicit ScratchTestRng(std::uint64_t seed) : state_(seed * 0x9e3779b97f4a7c15ULL + 1) {}
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

ShardingOption scratch_option(const std::string& name, ShardingType type, PartitionBy rule,
                              const std::vector<double>& perfs, const std::vector<Storage>& storages) {
  ShardingOption o;
  o.name = name;
  o.path = "ebc";
  o.sharding_type = type;
  o.partition_by = rule;
  for (std::size_t j = 0; j < perfs.size(); ++j) {
    Shard s;
    s.perf = Perf{perfs[j], 0, 0, 0, 0};
    s.storage = storages[j];
    o.shards.push_back(s);
  }
  return o;
}

struct ScratchInstance {
  std::vector<ShardingOption> options;     // grouped by table, tables in order
  std::vector<std::vector<int>> by_table;  // indices into options
  Topology topology;
};

// 3-4 tables on 2-4 ranks (2 per host when 4), each with a table_wise option
// (one shard: fast in HBM, or slower with DDR), sometimes a column_wise one (2
// device shards) and a row_wise one (one shard per rank), sometimes a
// table_row_wise one (one host); integer perfs and storages, capacities tight
// enough that memory matters on many seeds.
ScratchInstance random_instance(std::uint64_t seed) {
  ScratchTestRng rng(seed);
  ScratchInstance in;
  const int world = 2 + rng.below(3);
  const int per_host = world == 4 ? 2 : world;
  const int tables = 3 + rng.below(2);
  std::int64_t total_hbm = 0;
  for (int t = 0; t < tables; ++t) {
    const std::string name = fmt::format("t{}", t);
    std::vector<int> ids;
    const double p = 2 + rng.below(9);
    const std::int64_t size = 2 + rng.below(5);
    total_hbm += size;
    ids.push_back(static_cast<int>(in.options.size()));
    in.options.push_back(scratch_option(name, ShardingType::kTableWise, PartitionBy::kDevice, {p}, {{size, 0}}));
    ids.push_back(static_cast<int>(in.options.size()));
    in.options.push_back(
        scratch_option(name, ShardingType::kTableWise, PartitionBy::kDevice, {p * 2 + 1}, {{0, size}}));
    if (rng.below(2) == 0) {
      const double half = p / 2 + 1;
      const std::int64_t h = (size + 1) / 2;
      ids.push_back(static_cast<int>(in.options.size()));
      in.options.push_back(
          scratch_option(name, ShardingType::kColumnWise, PartitionBy::kDevice, {half, half}, {{h, 0}, {h, 0}}));
    }
    if (rng.below(2) == 0) {
      const double each = p / world + 1;
      const std::int64_t h = (size + world - 1) / world;
      ids.push_back(static_cast<int>(in.options.size()));
      in.options.push_back(scratch_option(name, ShardingType::kRowWise, PartitionBy::kUniform,
                                          std::vector<double>(static_cast<std::size_t>(world), each),
                                          std::vector<Storage>(static_cast<std::size_t>(world), Storage{h, 0})));
    }
    if (per_host == 2 && world == 4 && rng.below(2) == 0) {
      const std::int64_t h = (size + 1) / 2;
      ids.push_back(static_cast<int>(in.options.size()));
      in.options.push_back(scratch_option(name, ShardingType::kTableRowWise, PartitionBy::kHost, {p / 2 + 0.5, p / 2},
                                          {{h, 0}, {h, 0}}));
    }
    in.by_table.push_back(ids);
  }
  in.topology.world_size = world;
  in.topology.local_world_size = per_host;
  // HBM per rank: between a third and all of an even share of the fast options.
  const std::int64_t hbm = std::max<std::int64_t>(1, (total_hbm * (1 + rng.below(3))) / (3 * world));
  const std::int64_t ddr = 3 + rng.below(6);
  for (int r = 0; r < world; ++r) in.topology.devices.push_back({r, Storage{hbm, ddr}, {}});
  return in;
}

// Exhaustive search: every option of every table, every placement its rule allows
// (device shards on any rank, host options on any host); the least max-rank perf
// of a placement within capacity, or nullopt when none fits.
class ExhaustiveOptimum {
 public:
  explicit ExhaustiveOptimum(const ScratchInstance& in)
      : in_(in), loads_(in.topology.devices.size(), 0), used_(in.topology.devices.size()) {}

  std::optional<double> solve() {
    table(0);
    return best_;
  }

 private:
  bool add(int rank, double perf, const Storage& s) {
    const auto r = static_cast<std::size_t>(rank);
    loads_[r] += perf;
    used_[r] += s;
    return used_[r].fits_in(in_.topology.devices[r].storage);
  }
  void remove(int rank, double perf, const Storage& s) {
    const auto r = static_cast<std::size_t>(rank);
    loads_[r] -= perf;
    used_[r] -= s;
  }
  void table(std::size_t t) {
    if (t == in_.by_table.size()) {
      const double max = *std::max_element(loads_.begin(), loads_.end());
      if (!best_ || max < *best_) best_ = max;
      return;
    }
    for (int id : in_.by_table[t]) {
      const ShardingOption& o = in_.options[static_cast<std::size_t>(id)];
      const int world = in_.topology.world_size;
      const int per_host = in_.topology.local_world_size;
      if (o.partition_by == PartitionBy::kUniform) {
        place_fixed(t, o, [](int j) { return j; });
      } else if (o.partition_by == PartitionBy::kHost) {
        for (int h = 0; h < world / per_host; ++h) place_fixed(t, o, [&](int j) { return h * per_host + j; });
      } else {
        shard(t, o, 0);
      }
    }
  }
  template <typename RankOf>
  void place_fixed(std::size_t t, const ShardingOption& o, RankOf rank_of) {
    bool ok = true;
    for (std::size_t j = 0; j < o.shards.size(); ++j)
      ok = add(rank_of(static_cast<int>(j)), o.shards[j].perf->total(), *o.shards[j].storage) && ok;
    if (ok) table(t + 1);
    for (std::size_t j = 0; j < o.shards.size(); ++j)
      remove(rank_of(static_cast<int>(j)), o.shards[j].perf->total(), *o.shards[j].storage);
  }
  void shard(std::size_t t, const ShardingOption& o, std::size_t j) {
    if (j == o.shards.size()) {
      table(t + 1);
      return;
    }
    for (int r = 0; r < in_.topology.world_size; ++r) {
      if (add(r, o.shards[j].perf->total(), *o.shards[j].storage)) shard(t, o, j + 1);
      remove(r, o.shards[j].perf->total(), *o.shards[j].storage);
    }
  }

  const ScratchInstance& in_;
  std::vector<double> loads_;
  std::vector<Storage> used_;
  std::optional<double> best_;
};

TEST_CASE("search_plan finds a valid plan whenever one exists, and the optimum on most instances",
          "[optimizing][scratch]") {
  constexpr int kSeeds = 300;
  int feasible = 0;
  int optimal = 0;
  int proven_infeasible = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const ScratchInstance in = random_instance(static_cast<std::uint64_t>(seed));
    INFO("seed " << seed);
    const std::optional<double> optimum = ExhaustiveOptimum(in).solve();
    const optimizing::OptimizeResult found = optimizing::search_plan(in.options, in.topology, {});
    if (!optimum) {
      CHECK(found.plan.empty());
      proven_infeasible += capacity_proof(in.options, in.topology) ? 1 : 0;
      continue;
    }
    ++feasible;
    REQUIRE_FALSE(found.plan.empty());  // a plan exists: the search must find one
    CHECK(plan_violation(found.plan, in.topology) == "");
    CHECK(found.plan.size() == in.by_table.size());
    CHECK(found.perf_rating == optimizing::max_rank_perf(found.plan, in.topology.world_size));
    CHECK(found.perf_rating >= *optimum - 1e-9);  // the exhaustive optimum is a true minimum
    optimal += found.perf_rating <= *optimum + 1e-9 ? 1 : 0;
  }
  WARN(fmt::format("search_plan: {} of {} feasible instances optimal; {} infeasible, {} proven by capacity", optimal,
                   feasible, kSeeds - feasible, proven_infeasible));
  CHECK(feasible >= kSeeds / 2);  // the generator makes mostly feasible instances
  CHECK(optimal * 100 >= feasible * 95);
}

// A poor but valid start: each table's slowest option that fits, every shard on
// the lowest rank with room (uniform shard k on rank k, host options on the first
// host with room); nullopt when that fails.
std::optional<std::vector<ShardingOption>> poor_start(const ScratchInstance& in) {
  std::vector<Storage> used(in.topology.devices.size());
  const auto room = [&](int r, const Storage& s) {
    return (used[static_cast<std::size_t>(r)] + s).fits_in(in.topology.devices[static_cast<std::size_t>(r)].storage);
  };
  std::vector<ShardingOption> plan;
  for (const auto& ids : in.by_table) {
    std::vector<int> order = ids;
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return in.options[static_cast<std::size_t>(a)].total_perf() >
             in.options[static_cast<std::size_t>(b)].total_perf();
    });
    bool placed = false;
    for (int id : order) {
      ShardingOption o = in.options[static_cast<std::size_t>(id)];
      const std::vector<Storage> before = used;
      bool ok = true;
      const int per_host = in.topology.local_world_size;
      std::vector<int> firsts;  // candidate first ranks of the block the option must take
      if (o.partition_by == PartitionBy::kHost)
        for (int h = 0; h < in.topology.world_size / per_host; ++h) firsts.push_back(h * per_host);
      for (std::size_t j = 0; j < o.shards.size() && ok; ++j) {
        const Storage s = *o.shards[j].storage;
        int rank = -1;
        if (o.partition_by == PartitionBy::kUniform) {
          rank = room(static_cast<int>(j), s) ? static_cast<int>(j) : -1;
        } else if (o.partition_by == PartitionBy::kHost) {
          if (j == 0) {
            rank = -1;
            for (int f : firsts) {
              bool all = true;
              for (std::size_t k = 0; k < o.shards.size(); ++k)
                all = all && room(f + static_cast<int>(k), *o.shards[k].storage);
              if (all) {
                rank = f;
                break;
              }
            }
          } else {
            rank = *o.shards[0].rank + static_cast<int>(j);
          }
        } else {
          for (int r = 0; r < in.topology.world_size && rank < 0; ++r)
            if (room(r, s)) rank = r;
        }
        if (rank < 0) {
          ok = false;
          break;
        }
        o.shards.update(j, [&](Shard& shard) { shard.rank = rank; });
        used[static_cast<std::size_t>(rank)] += s;
      }
      if (!ok) {
        used = before;
        continue;
      }
      plan.push_back(std::move(o));
      placed = true;
      break;
    }
    if (!placed) return std::nullopt;
  }
  return plan;
}

TEST_CASE("optimize_plan from a poor start reaches the optimum on most instances", "[optimizing][scratch]") {
  constexpr int kSeeds = 200;
  int compared = 0;
  int optimal = 0;
  for (int seed = 1; seed <= kSeeds; ++seed) {
    const ScratchInstance in = random_instance(static_cast<std::uint64_t>(seed) + 1000);
    INFO("seed " << seed);
    const std::optional<double> optimum = ExhaustiveOptimum(in).solve();
    const std::optional<std::vector<ShardingOption>> start = poor_start(in);
    if (!optimum || !start) continue;
    REQUIRE(plan_violation(*start, in.topology) == "");  // the start is valid
    const double start_rating = optimizing::max_rank_perf(*start, in.topology.world_size);
    const optimizing::OptimizeResult result = optimizing::optimize_plan(*start, in.options, in.topology, {});
    CHECK(plan_violation(result.plan, in.topology) == "");
    CHECK(result.perf_rating <= start_rating);
    CHECK(result.perf_rating >= *optimum - 1e-9);
    ++compared;
    optimal += result.perf_rating <= *optimum + 1e-9 ? 1 : 0;
  }
  WARN(fmt::format("optimize_plan from a poor start: {} of {} optimal", optimal, compared));
  CHECK(compared >= kSeeds / 3);
  CHECK(optimal * 100 >= compared * 95);
}

TEST_CASE("capacity_proof proves infeasibility from total storage only when it holds", "[optimizing][scratch]") {
  Topology t;
  t.world_size = 2;
  t.local_world_size = 2;
  t.devices = {{0, Storage{4, 4}, {}}, {1, Storage{4, 4}, {}}};
  // Two tables: in HBM 5 each or in DDR 5 each; 8 HBM + 8 DDR in all.
  std::vector<ShardingOption> options;
  for (const char* name : {"a", "b"}) {
    options.push_back(scratch_option(name, ShardingType::kTableWise, PartitionBy::kDevice, {1}, {{5, 0}}));
    options.push_back(scratch_option(name, ShardingType::kTableWise, PartitionBy::kDevice, {2}, {{0, 5}}));
  }
  // 5 + 5 fits 8 + 8 in total: no capacity argument (the shards are what do not fit).
  CHECK_FALSE(capacity_proof(options, t));
  CHECK(optimizing::search_plan(options, t, {}).plan.empty());
  // A third table of 7 in either: HBM + DDR needed 17 > 16 held.
  options.push_back(scratch_option("c", ShardingType::kTableWise, PartitionBy::kDevice, {1}, {{7, 0}}));
  options.push_back(scratch_option("c", ShardingType::kTableWise, PartitionBy::kDevice, {1}, {{0, 7}}));
  const auto proof = capacity_proof(options, t);
  REQUIRE(proof);
  CHECK(proof->hbm_weight == 1);
  CHECK(proof->ddr_weight == 1);
  CHECK(proof->needed == 17);
  CHECK(proof->available == 16);
  // HBM alone proves it first when the DDR options are gone and HBM is short.
  std::vector<ShardingOption> hbm_only{options[0], options[2], options[4]};
  const auto hbm_proof = capacity_proof(hbm_only, t);
  REQUIRE(hbm_proof);
  CHECK(hbm_proof->ddr_weight == 0);
  CHECK(hbm_proof->needed == 17);
  CHECK(hbm_proof->available == 8);
}

}  // namespace
}  // namespace shardplan::testing
