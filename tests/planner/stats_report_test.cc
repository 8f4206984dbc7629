// Hand-checked EmbeddingStats figures on tiny plans.
#include "planner/stats_report.h"

#include <catch2/catch.hpp>
#include <cmath>

#include "planner/shards/shard_io_sizes.h"
#include "planner_output/stats_json.h"

namespace shardplan {

TEST_CASE("imbalance statistics of a hand-worked distribution", "[stats]") {
  // p = [0.5, 0.25, 0.25, 0] over k = 4 ranks; uniform share 1/k = 0.25.
  // |p - 1/k| = [0.25, 0, 0, 0.25]
  // total variation = max = 0.25; total distance = sum = 0.5
  // chi = sum(d^2 * k) = 2 * 0.0625 * 4 = 0.5; max chi = (3/4)^2 * 4 + 3 * 1/4 = 3
  //   -> 0.5 / 3 = 0.1666...
  // KL = 0.5 ln(4 * 0.5) + 2 * 0.25 ln(1) = 0.5 ln 2; max KL = ln 4 = 2 ln 2 -> 0.25
  ImbalanceStats s = imbalance_stats({0.5, 0.25, 0.25, 0.0});
  CHECK(s.total_variation == Approx(0.25));
  CHECK(s.total_distance == Approx(0.5));
  CHECK(s.chi_divergence == Approx(1.0 / 6));
  CHECK(s.kl_divergence == Approx(0.25));

  // One rank: both maxima are 0 and torchrec reports 0, not NaN.
  ImbalanceStats one = imbalance_stats({1.0});
  CHECK(one.total_variation == 0);
  CHECK(one.chi_divergence == 0);
  CHECK(one.kl_divergence == 0);
}

TEST_CASE("python_mean divides the exact sum (statistics.mean)", "[stats]") {
  // 0.1 + 0.2 + 0.3 in doubles is 0.6000000000000001 and / 3 gives
  // 0.20000000000000004; the exact sum of the three stored values / 3 rounds to 0.2.
  CHECK(python_mean({0.1, 0.2, 0.3}) == 0.2);
  CHECK(python_mean({1.0, 2.0}) == 1.5);
}

TEST_CASE("shard IO sizes follow torchrec's per-type formulas", "[stats]") {
  // Table-wise, 2 features with pooling 2 and 3, batch 512, one pooling each, world
  // 4, dim 64, fp32 outputs:
  //   inputs  = (2*1*512 + 3*1*512) * 4 ranks * 8 bytes = 2560 * 32 = 81920
  //   outputs = (1*512 + 1*512) * 4 * 64 * 4 = 1024 * 1024 = 1048576
  ShardIoRequest r;
  r.sharding_type = ShardingType::kTableWise;
  r.batch_sizes = {512, 512};
  r.world_size = 4;
  r.local_world_size = 4;
  r.input_lengths = {2.0, 3.0};
  r.emb_dim = 64;
  r.shard_sizes = {{1000, 64}};
  r.output_data_type_size = 4;
  r.num_poolings = {1.0, 1.0};
  auto tw = calculate_shard_io_sizes(r);
  REQUIRE(tw.input_bytes.size() == 1);
  CHECK(tw.input_bytes[0] == 81920);
  CHECK(tw.output_bytes[0] == 1048576);

  // Row-wise over the same 4 ranks, one shard empty: ids are spread over the world,
  //   inputs  = (2560 / 4) * 4 ranks * 8 bytes = 20480 per non-empty shard
  //   outputs = 1024 pooled rows * 4 * 64 shard cols * 4 = 1048576 (not spread)
  // and the empty shard moves nothing.
  r.sharding_type = ShardingType::kRowWise;
  r.shard_sizes = {{400, 64}, {400, 64}, {200, 64}, {0, 64}};
  auto rw = calculate_shard_io_sizes(r);
  REQUIRE(rw.input_bytes.size() == 4);
  CHECK(rw.input_bytes[0] == 20480);
  CHECK(rw.output_bytes[2] == 1048576);
  CHECK(rw.input_bytes[3] == 0);
  CHECK(rw.output_bytes[3] == 0);
}

}  // namespace shardplan

namespace shardplan {

namespace {

ShardingOption tw_table(const std::string& name, int rank, std::int64_t hbm, double fwd) {
  ShardingOption so;
  so.name = name;
  so.path = "ebc";
  so.tensor_shape = {100, 16};
  so.input_lengths = {1.0};
  so.sharding_type = ShardingType::kTableWise;
  Shard s;
  s.size = {100, 16};
  s.offset = {0, 0};
  s.rank = rank;
  s.storage = Storage{hbm, 0};
  s.perf = Perf{fwd, 0, 2 * fwd, 0, 0};
  so.shards.push_back(s);
  return so;
}

}  // namespace

TEST_CASE("stats report of a hand-worked two-rank plan", "[stats]") {
  const std::int64_t mib = 1024 * 1024;
  // Table a on rank 0: 300 MiB, perf 2 + 4 = 6 ms; table b on rank 1: 100 MiB, 3 ms.
  std::vector<ShardingOption> plan{tw_table("a", 0, 300 * mib, 2.0), tw_table("b", 1, 100 * mib, 1.0)};
  Topology topo;
  topo.world_size = 2;
  topo.local_world_size = 2;
  topo.devices = {{0, Storage{1000 * mib, 0}, {}}, {1, Storage{1000 * mib, 0}, {}}};
  ReservationResult res;
  res.policy = ReservationPolicy::kFixedPercentage;
  res.percentage = 0.5;
  StatsInput in;
  in.plan = &plan;
  in.topology = &topo;
  in.reservation = &res;
  StatsReport r = compute_stats_report(in);

  REQUIRE(r.ranks.size() == 2);
  CHECK(r.ranks[0].used_hbm == 300 * mib);
  // 300 MiB of the 50% of 1000 MiB left for planning.
  CHECK(r.ranks[0].hbm_ratio == Approx(0.6));
  CHECK(r.ranks[1].shards_by_type.at("TW") == 1);
  CHECK(r.max_total_perf.value == Approx(6.0));
  CHECK(r.max_total_perf.ranks == std::vector<int>{0});
  // mean 4.5, (6 - 4.5) / 4.5 = 33.3%
  CHECK(r.mean_total_perf == Approx(4.5));
  CHECK(r.total_perf_delta_pct == Approx(100.0 / 3));
  // p = [6/9, 3/9]: total variation |2/3 - 1/2| = 1/6.
  REQUIRE(r.perf_imbalance);
  CHECK(r.perf_imbalance->total_variation == Approx(1.0 / 6));
  // Critical path: comms 0, compute = max fwd (2) + max bwd (4).
  CHECK(r.critical_path_compute == Approx(6.0));
  // Tier 2 (rank 1) is numbered by its position among the ranks left: 0.
  REQUIRE(r.peak_tiers.size() == 2);
  CHECK(r.peak_tiers[1].bytes == 100 * mib);
  CHECK(r.peak_tiers[1].ranks == std::vector<int>{0});
  CHECK(r.peak_tiers[1].actual_ranks == std::vector<int>{1});
  CHECK(r.top_perf_tables == std::vector<std::string>{"a"});
  REQUIRE(r.top_hbm_tables.size() == 1);
  CHECK(r.top_hbm_tables[0].name == "a");
  CHECK(r.reservation.usable_hbm == 500 * mib);
  CHECK_FALSE(r.reservation.is_heuristical);

  auto json = render_stats_json(r);
  CHECK(json.at("ranks").at(0).at("used_hbm") == 300 * mib);
  CHECK(json.at("top_perf_tables").at(0) == "a");
}

TEST_CASE("stats json: each peak tier names the ranks really at it, the mean names none", "[stats]") {
  const std::int64_t mib = 1024 * 1024;
  // HBM use per rank: 100, 400, 250, 400 MiB. Tiers: 400 on ranks 1 and 3, 250 on rank 2,
  // 100 on rank 0. torchrec's text numbers the later tiers by position in the shortened
  // list (250 -> [1], 100 -> [0]); our JSON gives the real ranks.
  std::vector<ShardingOption> plan{tw_table("a", 0, 100 * mib, 1.0), tw_table("b", 1, 400 * mib, 1.0),
                                   tw_table("c", 2, 250 * mib, 1.0), tw_table("d", 3, 400 * mib, 1.0)};
  Topology topo;
  topo.world_size = 4;
  topo.local_world_size = 4;
  for (int rank = 0; rank < 4; ++rank) topo.devices.push_back({rank, Storage{1000 * mib, 0}, {}});
  ReservationResult res;
  res.policy = ReservationPolicy::kFixedPercentage;
  res.percentage = 0.5;
  StatsInput in;
  in.plan = &plan;
  in.topology = &topo;
  in.reservation = &res;
  in.debug = true;
  StatsReport r = compute_stats_report(in);
  REQUIRE(r.peak_tiers.size() == 3);
  CHECK(r.peak_tiers[1].ranks == std::vector<int>{1});  // torchrec's text
  CHECK(r.peak_tiers[2].ranks == std::vector<int>{0});

  auto json = render_stats_json(r);
  const auto& tiers = json.at("hbm").at("peak_tiers");
  REQUIRE(tiers.size() == 3);
  CHECK(tiers.at(0).at("bytes") == 400 * mib);
  CHECK(tiers.at(0).at("ranks") == std::vector<int>{1, 3});
  CHECK(tiers.at(1).at("bytes") == 250 * mib);
  CHECK(tiers.at(1).at("ranks") == std::vector<int>{2});
  CHECK(tiers.at(2).at("bytes") == 100 * mib);
  CHECK(tiers.at(2).at("ranks") == std::vector<int>{0});
  CHECK(json.at("hbm").at("mean").at("bytes") == 1150 * mib / 4);
  CHECK_FALSE(json.at("hbm").at("mean").contains("ranks"));
}

}  // namespace shardplan
