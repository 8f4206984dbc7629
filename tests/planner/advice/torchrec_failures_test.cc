// torchrec_failures.h on hand-built inputs: where torchrec's plan() stops early
// (reservation before enumeration, the grid_shard crash without a whole host,
// the runs after which it logs no EmbeddingStats). The binary-level cases are in
// tests/config/parity_behaviours_test.cc.
#include <catch2/catch.hpp>

#include "planner/advice/torchrec_failures.h"
#include "planner/run.h"
#include "planner/topology.h"
#include "planner_output/failure_text.h"

namespace shardplan {
namespace {

// One embedding_bag table "t" of 1000 x 16 on `world_size` ranks in hosts of `local`.
PlanningInput one_table(int world_size, int local, std::optional<std::vector<ShardingType>> types) {
  PlanningInput in;
  ModuleConfig m;
  m.path = "ebc";
  TableConfig t;
  t.name = "t";
  t.num_embeddings = 1000;
  t.embedding_dim = 16;
  t.feature_names = {"t"};
  m.tables.push_back(t);
  in.model.modules.push_back(m);
  ParameterConstraintsConfig c;
  c.sharding_types = std::move(types);
  c.min_partition = 8;
  in.model.constraints["t"] = c;
  in.topology.world_size = world_size;
  in.topology.local_world_size = local;
  return in;
}

}  // namespace

TEST_CASE("a crash is possible only with a grid_shard option and no whole host", "[torchrec-failures]") {
  auto possible = [](int world, int local, ShardingType type) {
    const PlanningInput in = one_table(world, local, std::vector<ShardingType>{type});
    const Topology topology = build_topology(in.topology);
    return multi_host_crash_possible(topology, SearchSpace(enumerate_and_estimate(in, topology)));
  };
  CHECK(possible(4, 8, ShardingType::kGridShard));
  CHECK_FALSE(possible(4, 8, ShardingType::kTableRowWise));  // a PlannerError, not a crash
  CHECK_FALSE(possible(6, 4, ShardingType::kGridShard));     // 6 // 4 = 1 host
  CHECK_FALSE(possible(4, 4, ShardingType::kGridShard));
}

TEST_CASE("run_plan turns a noted crash into a failure without plan or stats", "[torchrec-failures]") {
  const PlanRun crashed = run_plan(one_table(4, 8, std::vector<ShardingType>{ShardingType::kGridShard}));
  REQUIRE(crashed.result.failure);
  CHECK(crashed.result.failure->stage == FailureStage::kCrash);
  CHECK(crashed.result.plan.empty());
  CHECK(crashed.result.last_proposal.empty());
  CHECK_FALSE(torchrec_logs_stats(crashed));
  CHECK(explain_failure(crashed) == crashed.result.failure->stage_reason + "\n");

  // table_row_wise with no host: every proposal raises PlannerError; the loop
  // ends with "no plan" and torchrec logs stats of the last proposal.
  const PlanRun no_host = run_plan(one_table(4, 8, std::vector<ShardingType>{ShardingType::kTableRowWise}));
  REQUIRE(no_host.result.failure);
  CHECK(no_host.result.failure->stage == FailureStage::kPlan);
  CHECK(no_host.result.failure->error_type == PlannerErrorType::kStrictConstraints);
  CHECK(torchrec_logs_stats(no_host));
}

TEST_CASE("a failed reservation is reported in place of a failed enumeration", "[torchrec-failures]") {
  // data_parallel offers only the dense kernel: fused leaves no option. 2e9 dense
  // parameters x 4 bytes x 6 do not fit in 8 GiB: HeuristicalStorageReservation raises.
  PlanningInput in = one_table(2, 2, std::vector<ShardingType>{ShardingType::kDataParallel});
  in.model.constraints["t"].compute_kernels = std::vector<ComputeKernel>{ComputeKernel::kFused};
  in.model.dense.parameters = 2'000'000'000;
  in.topology.hbm_cap = std::int64_t{8} << 30;
  CHECK(reservation_failure(in, build_topology(in.topology)).has_value());
  const PlanRun run = run_plan(in);
  CHECK_FALSE(run.enumeration_error);
  REQUIRE(run.result.failure);
  CHECK(run.result.failure->stage == FailureStage::kReservation);
  CHECK(run.result.failure->error_type == PlannerErrorType::kInsufficientStorage);
  CHECK_FALSE(torchrec_logs_stats(run));

  in.model.dense.parameters = 0;  // the reservation passes: the enumeration's error remains
  CHECK_FALSE(reservation_failure(in, build_topology(in.topology)).has_value());
  const PlanRun enumeration_failed = run_plan(in);
  CHECK(enumeration_failed.enumeration_error);
  CHECK_FALSE(torchrec_logs_stats(enumeration_failed));
}

TEST_CASE("nothing shardable: an empty plan and no stats", "[torchrec-failures]") {
  PlanningInput in = one_table(2, 2, std::nullopt);
  in.model.constraints["t"].device_group = ComputeDevice::kCpu;  // the topology is cuda
  const PlanRun run = run_plan(in);
  CHECK(run.ok());
  CHECK(run.search_space.empty());
  CHECK(run.result.plan.empty());
  CHECK(run.result.reservation.has_value());  // reserve() ran before enumerate()
  CHECK_FALSE(torchrec_logs_stats(run));
}

}  // namespace shardplan
