// The planner's progress reports (planner/progress.h): the order of stages and
// proposers, the proposal count and best perf they carry, and that observing a
// run does not change its plan.
#include <catch2/catch.hpp>
#include <string>
#include <vector>

#include "config/loader.h"
#include "planner/run.h"

namespace shardplan::testing {
namespace {

TEST_CASE("progress reports follow the run: enumeration, then each proposer in order", "[progress]") {
  const PlanningInput input = load_case(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/quickstart.json");
  std::vector<PlanProgress> reports;
  const PlanRun observed = run_plan(input, {}, nullptr, [&reports](const PlanProgress& p) { reports.push_back(p); });
  const PlanRun plain = run_plan(input);
  REQUIRE(observed.ok());

  REQUIRE(reports.size() >= 3);
  CHECK(reports.front().stage == PlanStage::kEnumerating);
  const std::size_t num_proposers = input.planner.proposers.size();
  std::size_t proposer = 0;
  int tried = 0;
  std::vector<bool> started(num_proposers, false);
  CHECK(reports[1].stage == PlanStage::kPreparing);
  for (std::size_t i = 2; i < reports.size(); ++i) {
    const PlanProgress& p = reports[i];
    REQUIRE(p.stage == PlanStage::kProposing);
    CHECK(p.num_proposers == num_proposers);
    CHECK(p.proposer >= proposer);  // proposers run in order, never back
    CHECK(p.proposals_tried >= tried);
    proposer = p.proposer;
    tried = p.proposals_tried;
    started.at(p.proposer) = true;
  }
  for (std::size_t k = 0; k < num_proposers; ++k) CHECK(started[k]);
  // The last report has every proposal and the plan's own rating.
  CHECK(reports.back().proposals_tried == observed.result.num_proposals);
  REQUIRE(reports.back().best_perf.has_value());
  CHECK(*reports.back().best_perf == observed.result.perf_rating);
  // Observing changes nothing.
  CHECK(observed.result.num_proposals == plain.result.num_proposals);
  CHECK(observed.result.perf_rating == plain.result.perf_rating);
  REQUIRE(observed.result.plan.size() == plain.result.plan.size());
  for (std::size_t i = 0; i < plain.result.plan.size(); ++i) {
    CHECK(observed.result.plan[i].fqn() == plain.result.plan[i].fqn());
    REQUIRE(observed.result.plan[i].shards.size() == plain.result.plan[i].shards.size());
    for (std::size_t j = 0; j < plain.result.plan[i].shards.size(); ++j)
      CHECK(observed.result.plan[i].shards[j].rank == plain.result.plan[i].shards[j].rank);
  }
}

TEST_CASE("a run without a plan never reports a best perf", "[progress]") {
  const PlanningInput input = load_case(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/examples/infeasible.yaml");
  std::vector<PlanProgress> reports;
  const PlanRun run = run_plan(input, {}, nullptr, [&reports](const PlanProgress& p) { reports.push_back(p); });
  REQUIRE_FALSE(run.ok());
  REQUIRE(run.result.num_proposals > 0);  // it failed in the proposal loop, not before
  REQUIRE_FALSE(reports.empty());
  CHECK(reports.back().proposals_tried == run.result.num_proposals);
  for (const auto& p : reports) CHECK_FALSE(p.best_perf.has_value());
}

}  // namespace
}  // namespace shardplan::testing
