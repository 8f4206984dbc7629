// "No plan" is a normal result that names the tables that cannot fit.
#include <catch2/catch.hpp>

#include "config/loader.h"
#include "planner/partitioners/partitioner_factory.h"
#include "planner/planner.h"
#include "planner/planner_parity_support.h"
#include "planner_output/failure_text.h"
#include "planner_output/partition_failure_text.h"

namespace shardplan::testing {
namespace {

TEST_CASE("infeasible cases report the failing tables and the largest free rank", "[planner][planner-failure]") {
  // From the case descriptions: `huge` (2e9 x 256) and `big_tw` (40M x 256, table_wise + fused only).
  const std::map<std::string, std::string> failing_table{
      {"infeasible-insufficient-storage", "ebc.huge"},
      {"infeasible-strict-constraints", "ebc.big_tw"},
  };
  int seen = 0;
  for (const auto& c : golden_cases()) {
    auto it = failing_table.find(c.name);
    if (it == failing_table.end()) continue;
    ++seen;
    nlohmann::json golden = load_golden(c);
    PlanningInput input = load_case(c.case_path);
    Topology topology = topology_from_golden(golden.at("topology"));
    SearchSpace space(search_space_from_golden(c, golden, input.model));
    auto reservation = make_storage_reservation(input.planner.storage_reservation);
    auto partitioner = make_partitioner(input.planner.partitioner);
    EmbeddingShardingPlanner planner(*reservation, make_proposers(input.planner), *partitioner);
    PlanResult result = planner.plan(topology, input.model, space);
    INFO("case " << c.name);
    REQUIRE_FALSE(result.ok());
    const PlanFailure& f = *result.failure;
    CHECK(f.stage == FailureStage::kPlan);
    REQUIRE(f.tables.size() == 1);
    CHECK(f.tables[0].fqn == it->second);
    // The reported shard really exceeds the largest rank in HBM or DDR.
    CHECK_FALSE(f.tables[0].largest_shard.fits_in(f.largest_rank_free));
    CHECK(f.largest_rank_free == result.reservation->reserved.devices[0].storage);
    REQUIRE(f.last_partition_failure);
    CHECK_FALSE(partition_failure_text(*f.last_partition_failure, space).empty());
    PlanRun run;
    run.topology = topology;
    run.result = result;
    run.search_space = std::move(space);
    CHECK(explain_failure(run).find(it->second + " needs") != std::string::npos);
  }
  if (golden_cases().size() > 0) CHECK(seen == 2);
}

TEST_CASE("the placement hint names at most ten constrained tables, then how many more", "[planner][planner-failure]") {
  PlanRun run;
  run.topology.world_size = 8;
  PlanFailure f;
  f.error_type = PlannerErrorType::kPartition;
  f.stage = FailureStage::kPlan;
  f.has_fixes = true;
  for (int t = 0; t < 25; ++t) f.constrained_tables.push_back("ebc.t" + std::to_string(t));
  run.result.failure = f;
  const std::vector<std::string> fixes = failure_fixes(run);
  REQUIRE_FALSE(fixes.empty());
  const std::string& hint = fixes.front();
  CHECK(hint.find("fewer constraints on ebc.t0, ebc.t1,") != std::string::npos);
  CHECK(hint.find("ebc.t9 and 15 more tables") != std::string::npos);
  CHECK(hint.find("ebc.t10") == std::string::npos);
  // Ten or fewer: all named, nothing more said.
  run.result.failure->constrained_tables.resize(3);
  const std::string few = failure_fixes(run).front();
  CHECK(few.find("fewer constraints on ebc.t0, ebc.t1, ebc.t2") != std::string::npos);
  CHECK(few.find("more tables") == std::string::npos);
}

}  // namespace
}  // namespace shardplan::testing
