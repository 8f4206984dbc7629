// Overrides (the CLI's flags, a sweep point) win over the files, are checked
// against the same name tables, and reject out-of-range values.
#include <catch2/catch.hpp>

#include "config/planner_overrides.h"

namespace shardplan {
namespace {

std::string problem_of(const PlannerOverrides& overrides) {
  PlanningInput input;
  input.topology.world_size = 8;
  try {
    apply_planner_overrides(overrides, input);
  } catch (const InputError& e) {
    return e.format();
  }
  return "";
}

TEST_CASE("planner overrides replace the file's stage choices with typed values", "[config][overrides]") {
  PlanningInput input;
  input.topology.world_size = 8;
  PlannerOverrides o;
  o.partitioner = "memory_balanced";
  o.proposers = "greedy,uniform";
  o.storage_reservation = "fixed_percentage";
  o.sort_by = "perf";
  o.reservation_percentage = 0.3;
  o.world_size = 16;
  o.local_world_size = 8;
  apply_planner_overrides(o, input);
  CHECK(input.planner.partitioner.type == PartitionerKind::kMemoryBalanced);
  CHECK(input.planner.proposers == std::vector<ProposerKind>{ProposerKind::kGreedy, ProposerKind::kUniform});
  CHECK(input.planner.storage_reservation.policy == ReservationPolicy::kFixedPercentage);
  CHECK(input.planner.partitioner.sort_by == GreedySortBy::kPerf);
  CHECK(input.planner.storage_reservation.percentage == 0.3);
  CHECK(input.topology.world_size == 16);
  CHECK(input.topology.local_world_size == 8);
}

TEST_CASE("planner overrides: unknown names and out-of-range values", "[config][overrides]") {
  PlannerOverrides bad_name;
  bad_name.proposers = "greedy,unifrm";
  CHECK(problem_of(bad_name) == "--proposers: unknown name 'unifrm', did you mean 'uniform'?");
  PlannerOverrides far_name;
  far_name.partitioner = "annealing";
  CHECK(problem_of(far_name) ==
        "--partitioner: unknown name 'annealing' (expected one of: greedy, memory_balanced, optimizing)");
  PlannerOverrides budget;
  budget.time_budget = -1;
  CHECK(problem_of(budget) == "--time-budget: expected seconds in [0, 3600], found -1.000000");
  PlannerOverrides local;
  local.local_world_size = 3;  // torchrec plans with 8 // 3 = 2 hosts: accepted as in the files
  CHECK(problem_of(local).empty());
  local.local_world_size = -1;
  // The topology file's rule and wording (config/limits.h kLocalWorldSizeRule).
  CHECK(problem_of(local) == "--local-world-size: expected a non-negative integer, found -1");
}

TEST_CASE("planner overrides: a uniform cap on a topology with per-rank caps is refused", "[config][overrides]") {
  PlanningInput input;
  input.topology.world_size = 2;
  input.topology.custom_hbm_cap = std::vector<std::int64_t>{1 << 30, 2 << 30};
  PlannerOverrides hbm;
  hbm.hbm_cap = "80 GiB";
  PlanningInput copy = input;
  CHECK_THROWS_WITH(apply_planner_overrides(hbm, copy),
                    "--hbm-cap: the topology sets per-rank HBM in custom.hbm_cap, which wins over a uniform cap; "
                    "edit custom.hbm_cap or drop it");
  PlannerOverrides ddr;
  ddr.ddr_cap = "512 GiB";
  copy = input;
  CHECK_NOTHROW(apply_planner_overrides(ddr, copy));  // only HBM is per rank here
  CHECK(copy.topology.ddr_cap == std::int64_t{512} << 30);
  input.topology.custom_ddr_cap = std::vector<std::int64_t>{1 << 30, 2 << 30};
  CHECK_THROWS_WITH(apply_planner_overrides(ddr, input),
                    "--ddr-cap: the topology sets per-rank DDR in custom.ddr_cap, which wins over a uniform cap; "
                    "edit custom.ddr_cap or drop it");
}

}  // namespace
}  // namespace shardplan
