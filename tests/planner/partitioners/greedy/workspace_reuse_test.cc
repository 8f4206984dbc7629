// A workspace reused from one proposal to the next (the partitioner patches what it
// read about the last proposal: briefs, sides, sort keys) must place every proposal
// exactly as a fresh workspace does: same verdict, same ranks, same failure.
#include <catch2/catch.hpp>

#include <random>
#include <string>
#include <vector>

#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/search_space.h"

namespace shardplan {
namespace {

constexpr int kWorld = 16;
constexpr int kPerHost = 4;

ShardingOption reuse_test_option(int table, ShardingType type, PartitionBy rule, int shards, std::int64_t hbm,
                                 double perf) {
  ShardingOption o;
  o.name = "t" + std::to_string(table);
  o.path = "ebc";
  o.sharding_type = type;
  o.partition_by = rule;
  for (int j = 0; j < shards; ++j) {
    Shard s;
    s.size = {10, 8};
    s.offset = {10 * j, 0};
    s.storage = Storage{hbm / shards, 0};
    s.perf = Perf{perf / shards, perf / (4 * shards), 0, 0, 0};
    o.shards.push_back(s);
  }
  return o;
}

struct ReuseTestSpace {
  SearchSpace space;
  std::vector<std::vector<OptionId>> per_table;  // each table's option ids
};

// `tables` tables, each with a table_wise, a column_wise (2 shards), a
// table_row_wise (one shard per device of a host) and, for some, a row_wise option.
ReuseTestSpace reuse_test_space(int tables, std::mt19937_64& rng) {
  std::vector<ShardingOption> options;
  std::vector<std::vector<OptionId>> per_table(static_cast<std::size_t>(tables));
  for (int t = 0; t < tables; ++t) {
    const std::int64_t hbm = 8 * (1 + static_cast<std::int64_t>(rng() % 1000));
    const double perf = 0.5 + static_cast<double>(rng() % 1000) / 7.0;
    auto add = [&](ShardingOption o) {
      per_table[static_cast<std::size_t>(t)].push_back(static_cast<OptionId>(options.size()));
      options.push_back(std::move(o));
    };
    add(reuse_test_option(t, ShardingType::kTableWise, PartitionBy::kDevice, 1, hbm, perf));
    add(reuse_test_option(t, ShardingType::kColumnWise, PartitionBy::kDevice, 2, hbm, perf * 1.1));
    add(reuse_test_option(t, ShardingType::kTableRowWise, PartitionBy::kHost, kPerHost, hbm, perf * 1.2));
    if (t % 7 == 0) add(reuse_test_option(t, ShardingType::kRowWise, PartitionBy::kUniform, kWorld, hbm, perf * 1.3));
  }
  return {SearchSpace(std::move(options)), std::move(per_table)};
}

Topology reuse_test_topology(std::int64_t hbm_per_device) {
  Topology t;
  t.world_size = kWorld;
  t.local_world_size = kPerHost;
  for (int r = 0; r < kWorld; ++r) t.devices.push_back({r, Storage{hbm_per_device, 0}, Perf{}});
  return t;
}

}  // namespace

TEST_CASE("a reused workspace places a proposer's walk as fresh workspaces do", "[partitioner][reuse]") {
  std::mt19937_64 rng(20261127);
  std::size_t placed = 0, failed = 0, derived = 0, stopped_early = 0;
  for (int trial = 0; trial < 6; ++trial) {
    const int tables = 150 + static_cast<int>(rng() % 150);
    ReuseTestSpace s = reuse_test_space(tables, rng);
    // Capacity near what the proposals need, so that some fail part way.
    const Topology topology =
        reuse_test_topology(trial % 2 == 0 ? 1 << 30 : tables * 4000 / kWorld * (95 + 5 * trial) / 100);
    const GreedyPerfPartitioner greedy;
    auto workspace = greedy.make_workspace();
    Proposal proposal;
    for (const auto& options : s.per_table) proposal.push_back(options[rng() % options.size()]);
    for (int step = 0; step < 120; ++step) {
      // One or two tables change option, mostly small ones (late in the order), as
      // a proposer's walk does; now and then the uniform set changes.
      // Now and then many change at once (the order is then sorted afresh).
      const int changes = step % 25 == 24 ? 20 : 1 + static_cast<int>(rng() % 2);
      for (int c = 0; c < changes; ++c) {
        const auto t = static_cast<std::size_t>(rng() % s.per_table.size());
        proposal[t] = s.per_table[t][rng() % s.per_table[t].size()];
      }
      if (step % 40 == 39) {
        // A proposer derives an option (the space grows, its columns may move).
        const auto t = static_cast<std::size_t>(rng() % s.per_table.size());
        ShardingOption copy = s.space[s.per_table[t].front()];
        copy.shards.with_run_values([&](ShardRun& run) {
          run.perf = Perf{1000.0 + static_cast<double>(step), 0, 0, 0, 0};
        });
        const OptionId id = s.space.add(std::move(copy));
        CHECK(id + 1 == s.space.size());
        proposal[t] = id;
        ++derived;
      }
      const PartitionOutcome shared = greedy.partition(s.space, proposal, topology, workspace.get());
      const PartitionOutcome fresh = greedy.partition(s.space, proposal, topology);
      REQUIRE(shared.ok == fresh.ok);
      if (fresh.ok) {
        ++placed;
        REQUIRE(shared.placement.rank_lists() == fresh.placement.rank_lists());
        CHECK(shared.largest_rank_load == fresh.largest_rank_load);
        // Stopping early reads the proposal's largest shard perf, which the workspace
        // keeps current as options change: it stops as a fresh one does.
        const double fractions[] = {0.02, 0.04, 0.06, 0.1, 0.3, 0.8};
        const double stop_above = fresh.largest_rank_load * fractions[step % 6];
        const PartitionOutcome shared_above =
            greedy.partition_above(s.space, proposal, topology, workspace.get(), stop_above);
        const PartitionOutcome fresh_above = greedy.partition_above(s.space, proposal, topology, nullptr, stop_above);
        // A reused workspace may pause its proof after many partitions in vain (then it
        // places everything), never stop where a fresh one does not.
        if (!shared_above.complete) REQUIRE_FALSE(fresh_above.complete);
        if (!shared_above.complete && !fresh_above.complete) {
          CHECK(shared_above.largest_rank_load == fresh_above.largest_rank_load);
          ++stopped_early;
        }
      } else {
        ++failed;
        CHECK(shared.failure.kind == fresh.failure.kind);
        CHECK(shared.failure.option == fresh.failure.option);
        CHECK(shared.failure.shard == fresh.failure.shard);
        CHECK(shared.failure.param_count == fresh.failure.param_count);
      }
    }
  }
  // Both verdicts occurred, and the space grew under the workspace.
  CHECK(placed > 100);
  CHECK(failed > 20);
  CHECK(derived >= 12);
  CHECK(stopped_early > 100);
}

}  // namespace shardplan
