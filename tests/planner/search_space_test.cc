// The SearchSpace: ids, derived options, and columns equal to what the options say.
#include <catch2/catch.hpp>

#include <string>
#include <utility>
#include <vector>

#include "planner/search_space.h"

namespace shardplan {
namespace {

// An option of table `name` in module `path` with one shard per entry of `shards`
// (hbm bytes, fwd_compute ms).
ShardingOption option(const std::string& name, ShardingType type, ComputeKernel kernel,
                      const std::vector<std::pair<std::int64_t, double>>& shards, const std::string& path = "ebc") {
  ShardingOption o;
  o.path = path;
  o.name = name;
  o.sharding_type = type;
  o.compute_kernel = kernel;
  o.partition_by = type == ShardingType::kRowWise ? PartitionBy::kUniform : PartitionBy::kDevice;
  for (const auto& [hbm, perf] : shards) {
    Shard s;
    s.size = {10, 4};
    s.storage = Storage{hbm, hbm / 2};
    s.perf = Perf{perf, 0, perf / 4, 0, 0};
    o.shards.push_back(s);
  }
  return o;
}

std::vector<ShardingOption> sample() {
  return {option("a", ShardingType::kTableWise, ComputeKernel::kFused, {{100, 3}}),
          option("b", ShardingType::kTableWise, ComputeKernel::kFused, {{40, 1}}, "other"),
          option("a", ShardingType::kRowWise, ComputeKernel::kFused, {{30, 2}, {30, 2}, {20, 2}}),
          option("b", ShardingType::kRowWise, ComputeKernel::kFused, {{25, 1}, {25, 5}}, "other"),
          option("a", ShardingType::kTableWise, ComputeKernel::kFusedUvmCaching, {{100, 3}})};
}

// Every brief's placement runs against the option's own shard runs, shard by shard.
void check_placement_runs(const SearchSpace& space) {
  for (OptionId id = 0; id < space.size(); ++id) {
    INFO("option " << id);
    const ShardingOption& o = space[id];
    const auto runs = space.brief(id).shard_runs();
    REQUIRE(runs.size() == o.shards.runs().size());
    std::size_t j = 0;
    for (const PlacementRun& run : runs) {
      REQUIRE(run.begin == static_cast<std::int32_t>(j));
      for (std::int32_t k = 0; k < run.count; ++k, ++j) {
        CHECK(run.storage == o.shards[j].storage.value_or(Storage{}));
        CHECK(run.perf == o.shards[j].perf.value_or(Perf{}));
      }
    }
    CHECK(j == o.shards.size());
  }
}

}  // namespace

TEST_CASE("enumerated options keep their order as ids 0..n-1", "[search_space]") {
  const std::vector<ShardingOption> options = sample();
  const SearchSpace space(sample());
  REQUIRE(space.size() == options.size());
  REQUIRE(space.enumerated().size() == options.size());
  for (OptionId id = 0; id < options.size(); ++id) {
    CHECK(space[id].fqn() == options[id].fqn());
    CHECK(space[id].sharding_type == options[id].sharding_type);
    CHECK(space[id].compute_kernel == options[id].compute_kernel);
  }
  CHECK(space.total_shards() == 8);
}

TEST_CASE("tables group ids by fqn in order of first appearance", "[search_space]") {
  const SearchSpace space(sample());
  REQUIRE(space.tables().size() == 2);
  CHECK(space.tables()[0] == std::vector<OptionId>{0, 2, 4});  // ebc.a
  CHECK(space.tables()[1] == std::vector<OptionId>{1, 3});     // other.b
  CHECK(space.path_count() == 2);
}

TEST_CASE("columns equal what the options themselves say", "[search_space]") {
  const SearchSpace space(sample());
  for (OptionId id = 0; id < space.size(); ++id) {
    const ShardingOption& o = space[id];
    INFO("option " << id);
    CHECK(space.total_storage(id) == o.total_storage());
    CHECK(space.summary(id).total_perf == o.total_perf());
    CHECK(space.brief(id).num_shards == o.num_shards());
    CHECK(space.brief(id).shards == &o.shards);
    CHECK(space.brief(id).partition_by == o.partition_by);
    double max_total = o.shards.front().perf->total();
    for (const auto& s : o.shards) max_total = std::max(max_total, s.perf->total());
    CHECK(space.score(id, true) == max_total);
    CHECK(space.score(id, false) == o.total_perf());
    const double* totals = space.shard_perf_totals(id);
    for (std::size_t j = 0; j < o.shards.size(); ++j)
      CHECK(totals[space.single_perf_total(id) ? 0 : j] == o.shards[j].perf->total());
  }
  check_placement_runs(space);
  // Row-wise "a" repeats one perf total on every shard: stored once.
  CHECK(space.single_perf_total(2));
  CHECK_FALSE(space.single_perf_total(3));
  // Storage ranks: 100 (ids 0 and 4) largest, then 80 (id 2), 50 (id 3), 40 (id 1).
  CHECK(space.summary(0).storage_rank == 0);
  CHECK(space.summary(4).storage_rank == 0);
  CHECK(space.summary(2).storage_rank == 1);
  CHECK(space.summary(3).storage_rank == 2);
  CHECK(space.summary(1).storage_rank == 3);
}

TEST_CASE("a derived option gets the next id, its columns, and keeps earlier ids valid", "[search_space]") {
  SearchSpace space(sample());
  const ShardingOption* first = &space[0];
  const ShardList* first_shards = space.brief(0).shards;
  ShardingOption promoted = space[4];
  promoted.compute_kernel = ComputeKernel::kFused;
  promoted.shards.update(0, [](Shard& s) { s.storage = Storage{60, 0}; });
  const OptionId id = space.add(promoted);
  CHECK(id == 5);
  CHECK(space.size() == 6);
  CHECK(space.enumerated().size() == 5);
  CHECK(space[id].shards[0].storage == Storage{60, 0});
  CHECK(space.total_storage(id) == Storage{60, 0});
  CHECK(space.summary(id).path_id == space.summary(0).path_id);  // a known module path
  CHECK(space.summary(id).storage_rank == -1);                   // ranked over enumerated options only
  CHECK(space.tables()[0] == std::vector<OptionId>{0, 2, 4});    // tables list enumerated options
  CHECK(&space[0] == first);
  CHECK(space.brief(0).shards == first_shards);
  // Adding the same content again is the same option.
  CHECK(space.add(promoted) == id);
  CHECK(space.add(space[2]) == 2);
  CHECK(space.size() == 6);
  // Many more, past any room reserved for the enumerated options' runs: the briefs
  // follow their runs wherever they move.
  for (int k = 0; k < 300; ++k) {
    ShardingOption more = space[2];
    more.shards.update(static_cast<std::size_t>(k % 3), [k](Shard& s) { s.storage = Storage{1000 + k, k}; });
    space.add(more);
  }
  CHECK(space.size() == 306);
  check_placement_runs(space);
}

TEST_CASE("ids are the same for the same sequence of additions", "[search_space]") {
  auto build = [] {
    SearchSpace space(sample());
    std::vector<OptionId> ids;
    for (OptionId base : {4u, 2u, 4u}) {
      ShardingOption derived = space[base];
      derived.shards.update(0, [](Shard& s) { s.storage = Storage{7, 7}; });
      ids.push_back(space.add(derived));
    }
    return ids;
  };
  const std::vector<OptionId> once = build();
  CHECK(once == std::vector<OptionId>{5, 6, 5});
  CHECK(build() == once);
}

TEST_CASE("same_option_content compares what torchrec hashes", "[search_space]") {
  const ShardingOption a = option("a", ShardingType::kTableWise, ComputeKernel::kFused, {{100, 3}});
  ShardingOption b = a;
  CHECK(same_option_content(a, b));
  b.shards.update(0, [](Shard& s) { s.perf->fwd_compute = 4; });
  CHECK_FALSE(same_option_content(a, b));
  b = a;
  b.cache_params = CacheParams{0.5, {}, {}, {}, {}};
  CHECK_FALSE(same_option_content(a, b));
}

}  // namespace shardplan
