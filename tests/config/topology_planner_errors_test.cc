// Topology and planner files: ranges, names with "did you mean", capacities.
#include <catch2/catch.hpp>

#include "common/units.h"
#include "config/config_test_util.h"
#include "config/loader.h"

using namespace shardplan;
using shardplan::testing::problems_of;
using shardplan::testing::write_scratch;

using Lines = std::vector<std::string>;

TEST_CASE("topology problems are all reported with positions", "[config]") {
  std::string path = write_scratch("bad_topo.json", R"({
  "world_size": 8,
  "local_world_size": 3,
  "compute_device": "cudaa",
  "hbm_cap": "80 GiBs",
  "ddr_cap": -1,
  "custom": {"hbm_cap": ["1 GiB", 2], "ddr": []},
  "hbm_mem_bw": "fast",
  "inter_host_bw": 0,
  "bwd_compute_multiplier": "x"
})");
  // local_world_size 3 on 8 ranks is accepted: torchrec plans 8 // 3 = 2 hosts.
  CHECK(problems_of([&] { load_topology(path); }) ==
        Lines{
            "bad_topo.json:4:21: compute_device: unknown device 'cudaa', did you mean 'cuda'?",
            "bad_topo.json:5:14: hbm_cap: unknown size unit 'GiBs' (use B, KiB, MiB, GiB, TiB or KB, MB, GB, TB), "
            "found \"80 GiBs\"",
            "bad_topo.json:6:14: ddr_cap: expected a non-negative integer, found -1",
            "bad_topo.json:7:25: custom.hbm_cap: expected 8 entries (one per rank, world_size), found 2",
            "bad_topo.json:7:39: custom.ddr: unknown key 'ddr' (known keys: hbm_cap, ddr_cap)",
            "bad_topo.json:8:17: hbm_mem_bw: expected a bandwidth such as \"897 GB/s\" or a number in bytes/ms, "
            "found \"fast\"",
            "bad_topo.json:9:20: inter_host_bw: expected a positive number, found 0",
            "bad_topo.json:10:29: bwd_compute_multiplier: expected a positive number, found \"x\"",
        });
}

TEST_CASE("world_size is required and positive", "[config]") {
  CHECK(problems_of([&] { load_topology(write_scratch("ws0.yaml", "world_size: 0\n")); }) ==
        Lines{"ws0.yaml:1:13: world_size: expected a positive integer, found 0"});
  CHECK(problems_of([&] { load_topology(write_scratch("nows.yaml", "hbm_cap: 1 GiB\nworld_sise: 2\n")); }) ==
        Lines{"nows.yaml:1:1: missing required key 'world_size'",
              "nows.yaml:2:1: world_sise: unknown key 'world_sise', did you mean 'world_size'?"});
}

TEST_CASE("a valid topology reads sizes and bandwidths in torchrec units", "[config]") {
  TopologyConfig t = load_topology(write_scratch("topo.yaml", R"(world_size: 4
local_world_size: 2
hbm_cap: 80 GiB
ddr_cap: 1.5 TB
hbm_mem_bw: 897 GB/s
inter_host_bw: 1000
custom:
  hbm_cap: [8 GiB, 8GiB, 17179869184, 16 GB]
)"));
  CHECK(t.world_size == 4);
  CHECK(t.local_world_size == 2);
  CHECK(t.hbm_cap == 80 * kGiB);
  CHECK(t.ddr_cap == 3 * kTiB / 2);
  CHECK(t.hbm_mem_bw == 897.0 * kGiB / 1000);
  CHECK(t.inter_host_bw == 1000.0);
  CHECK_FALSE(t.ddr_mem_bw.has_value());
  CHECK(*t.custom_hbm_cap == std::vector<std::int64_t>{8 * kGiB, 8 * kGiB, 16 * kGiB, 16 * kGiB});
}

TEST_CASE("planner names are checked against the name tables", "[config]") {
  std::string path = write_scratch("bad_planner.yaml", R"(proposers: [grid_search, greedysum, annealing]
partitioner:
  type: memory_balance
  sort_by: speed
  max_search_count: 0
  tolerance: -0.1
storage_reservation:
  policy: heuristic
  percentage: 1.2
is_inference: maybe
)");
  CHECK(problems_of([&] { load_planner(path); }) ==
        Lines{
            "bad_planner.yaml:1:26: proposers[1]: unknown proposer 'greedysum', did you mean 'greedy_sum'?",
            "bad_planner.yaml:1:37: proposers[2]: unknown proposer 'annealing' (expected one of: grid_search, "
            "greedy, greedy_sum, uniform, offload_scaleup)",
            "bad_planner.yaml:3:9: partitioner.type: unknown partitioner 'memory_balance', did you mean "
            "'memory_balanced'?",
            "bad_planner.yaml:4:12: partitioner.sort_by: unknown sort_by value 'speed' (expected one of: storage, "
            "perf)",
            "bad_planner.yaml:5:21: partitioner.max_search_count: expected a positive integer, found 0",
            "bad_planner.yaml:6:14: partitioner.tolerance: expected a non-negative number, found -0.1",
            "bad_planner.yaml:8:11: storage_reservation.policy: unknown storage reservation policy 'heuristic', did "
            "you mean 'heuristical'?",
            "bad_planner.yaml:9:15: storage_reservation.percentage: expected a fraction in [0, 1], found 1.2",
            "bad_planner.yaml:10:15: is_inference: expected true or false, found 'maybe'",
        });
}

TEST_CASE("planner options: defaults, file values and null estimate", "[config]") {
  PlannerOptions p = load_planner(write_scratch("p.yaml", R"(proposers: [greedy]
partitioner: {type: memory_balanced, tolerance: 0.05}
storage_reservation: {policy: fixed_percentage, percentage: 0.3, dense_tensor_estimate: null}
)"));
  CHECK(p.proposers == std::vector<ProposerKind>{ProposerKind::kGreedy});
  CHECK(p.partitioner.type == PartitionerKind::kMemoryBalanced);
  CHECK(p.partitioner.tolerance == 0.05);
  CHECK(p.partitioner.max_search_count == 10);
  CHECK(p.storage_reservation.policy == ReservationPolicy::kFixedPercentage);
  CHECK(p.storage_reservation.percentage == 0.3);
  CHECK_FALSE(p.storage_reservation.dense_tensor_estimate.has_value());
  CHECK_FALSE(p.is_inference);
}
