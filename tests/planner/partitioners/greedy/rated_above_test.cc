// NoopPerfModel::rated_above answers "is the rating above this cutoff?" from the
// greedy partitioner's own per-rank sums, which add the same shard perfs in another
// order (component by component, uniform options first, then the placement order).
// It may say "not known" at will, but a "yes" must hold for the exact rating.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/perf_model.h"
#include "planner/search_space.h"

namespace shardplan {
namespace {

// A perf of wildly different magnitudes per component, so that summing in another
// order rounds differently.
Perf random_perf(std::mt19937_64& rng) {
  std::uniform_real_distribution<double> exponent(-30, 12);
  std::uniform_int_distribution<int> zero(0, 4);
  auto part = [&] { return zero(rng) == 0 ? 0.0 : std::exp(exponent(rng)); };
  return Perf{part(), part(), part(), part(), part()};
}

ShardingOption random_option(std::mt19937_64& rng, int index, int world) {
  ShardingOption option;
  option.name = "t" + std::to_string(index);
  option.path = "ebc";
  std::uniform_int_distribution<int> kind(0, 2), count(1, 5);
  int shards = 1;
  switch (kind(rng)) {
    case 0:
      option.sharding_type = ShardingType::kTableWise;
      option.partition_by = PartitionBy::kDevice;
      break;
    case 1:
      option.sharding_type = ShardingType::kColumnWise;
      option.partition_by = PartitionBy::kDevice;
      shards = count(rng);
      break;
    default:
      option.sharding_type = ShardingType::kRowWise;
      option.partition_by = PartitionBy::kUniform;
      shards = world;
      break;
  }
  const bool same_perf = option.partition_by == PartitionBy::kUniform && kind(rng) == 0;
  const Perf shared = random_perf(rng);
  for (int s = 0; s < shards; ++s) {
    Shard shard;
    shard.size = {10, 8};
    shard.offset = {0, 8 * s};
    shard.storage = Storage{1, 0};
    shard.perf = same_perf ? shared : random_perf(rng);
    option.shards.push_back(shard);
  }
  return option;
}

Topology roomy_topology(int world, int local) {
  Topology topology;
  topology.world_size = world;
  topology.local_world_size = local;
  for (int r = 0; r < world; ++r) topology.devices.push_back({r, Storage{1'000'000, 0}, Perf{}});
  return topology;
}

struct Placed {
  int world = 0;
  SearchSpace space;
  Proposal proposal;
  PartitionOutcome outcome;
};

Placed place_random(std::mt19937_64& rng) {
  std::uniform_int_distribution<int> worlds(1, 12), tables(1, 60);
  const int world = worlds(rng);
  std::vector<ShardingOption> options;
  const int n = tables(rng);
  for (int i = 0; i < n; ++i) options.push_back(random_option(rng, i, world));
  Placed p{world, SearchSpace(std::move(options)), {}, {}};
  for (std::size_t i = 0; i < p.space.size(); ++i) p.proposal.push_back(static_cast<OptionId>(i));
  p.outcome = GreedyPerfPartitioner().partition(p.space, p.proposal, roomy_topology(world, world % 2 == 0 ? 2 : 1));
  return p;
}

}  // namespace

TEST_CASE("rated_above says yes only when the exact rating is above the cutoff", "[partitioner][perf_model]") {
  std::mt19937_64 rng(20261127);
  const NoopPerfModel model;
  int sums_differ = 0, answered = 0;
  for (int round = 0; round < 3000; ++round) {
    const Placed p = place_random(rng);
    REQUIRE(p.outcome.ok);
    REQUIRE_FALSE(std::isnan(p.outcome.largest_rank_load));
    const double rating = model.rate(p.space, p.proposal, p.outcome.placement, p.world);
    const double theirs = p.outcome.largest_rank_load;
    sums_differ += theirs != rating ? 1 : 0;
    // Cutoffs at and around both sums, a few ulps apart, and far below.
    std::vector<double> cutoffs{rating, theirs, 0.0, rating * 0.5, rating * (1 - 1e-6), rating * (1 - 1e-12)};
    for (double c : {rating, theirs}) {
      double down = c, up = c;
      for (int k = 0; k < 40; ++k) {
        down = std::nextafter(down, -1.0);
        up = std::nextafter(up, std::numeric_limits<double>::infinity());
        cutoffs.push_back(down);
        cutoffs.push_back(up);
      }
    }
    for (double cutoff : cutoffs) {
      if (!model.rated_above(p.space, p.outcome, cutoff)) continue;
      ++answered;
      INFO("round " << round << ": rating " << rating << ", partitioner's sum " << theirs << ", cutoff " << cutoff);
      CHECK(rating > cutoff);
    }
    // Far below the rating it does answer (else it saves nothing).
    if (rating > 0) CHECK(model.rated_above(p.space, p.outcome, rating * 0.5));
  }
  // The two orders of summing do round differently here: the test exercises that.
  CHECK(sums_differ > 100);
  CHECK(answered > 3000);
}

TEST_CASE("rated_above does not answer for negative perfs or devices that start loaded", "[partitioner][perf_model]") {
  const NoopPerfModel model;
  auto option = [](const std::string& name, Perf perf) {
    ShardingOption o;
    o.name = name;
    o.path = "ebc";
    o.sharding_type = ShardingType::kTableWise;
    o.partition_by = PartitionBy::kDevice;
    Shard shard;
    shard.size = {10, 8};
    shard.storage = Storage{1, 0};
    shard.perf = perf;
    o.shards.push_back(shard);
    return o;
  };
  {
    // A negative component: sums of mixed signs have no relative error bound.
    SearchSpace space({option("a", Perf{5, 0, 0, 0, 0}), option("b", Perf{5, -1, 0, 0, 0})});
    const Proposal proposal{0, 1};
    const PartitionOutcome outcome = GreedyPerfPartitioner().partition(space, proposal, roomy_topology(1, 1));
    REQUIRE(outcome.ok);
    CHECK_FALSE(space.perfs_finite_nonnegative());
    CHECK_FALSE(model.rated_above(space, outcome, 0.0));
  }
  {
    // A device whose perf starts above zero: its load is not a sum of shards.
    SearchSpace space({option("a", Perf{5, 0, 0, 0, 0})});
    const Proposal proposal{0};
    Topology topology = roomy_topology(2, 1);
    topology.devices[1].perf = Perf{100, 0, 0, 0, 0};
    const PartitionOutcome outcome = GreedyPerfPartitioner().partition(space, proposal, topology);
    REQUIRE(outcome.ok);
    CHECK(std::isnan(outcome.largest_rank_load));
    CHECK_FALSE(model.rated_above(space, outcome, 1.0));
    // The same proposal on idle devices: answered (5 > 1).
    const PartitionOutcome idle = GreedyPerfPartitioner().partition(space, proposal, roomy_topology(2, 1));
    CHECK(idle.largest_rank_load == 5.0);
    CHECK(model.rated_above(space, idle, 1.0));
    CHECK_FALSE(model.rated_above(space, idle, 5.0));
  }
}

}  // namespace shardplan
