// The proposal observer behind `shardplan explain`: it changes nothing in planning,
// sees every evaluated proposal once, and the explanation's winner is the plan's.
#include <catch2/catch.hpp>

#include "config/loader.h"
#include "planner/advice/table_explanation.h"
#include "planner/run.h"

namespace shardplan::testing {
namespace {

TEST_CASE("observer: planning is unchanged and every evaluated proposal is seen once", "[planner][explain]") {
  const PlanningInput input = load_case(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/quickstart.json");
  const PlanRun plain = run_plan(input);
  OptionVerdictRecorder recorder;
  const PlanRun observed = run_plan(input, {}, &recorder);
  REQUIRE(plain.ok());
  REQUIRE(observed.ok());
  CHECK(observed.result.perf_rating == plain.result.perf_rating);
  CHECK(observed.result.num_proposals == plain.result.num_proposals);
  REQUIRE(observed.result.plan.size() == plain.result.plan.size());
  for (std::size_t i = 0; i < plain.result.plan.size(); ++i) {
    CHECK(observed.result.plan[i].sharding_type == plain.result.plan[i].sharding_type);
    CHECK(observed.result.plan[i].compute_kernel == plain.result.plan[i].compute_kernel);
  }
  // A proposal holds one option per table: per table, the counts add up to the
  // evaluated proposals and the placed ones to the plans.
  const std::vector<ShardingOption>& enumerated = observed.search_space.enumerated();
  for (const auto& fqn : table_fqns(enumerated)) {
    int proposals = 0, placed = 0;
    for (OptionId id = 0; id < enumerated.size(); ++id) {
      if (enumerated[id].fqn() != fqn) continue;
      proposals += recorder.counts(id).proposals;
      placed += recorder.counts(id).placed;
    }
    INFO(fqn);
    CHECK(proposals == observed.result.num_proposals);
    CHECK(placed == observed.result.num_plans);
    const TableExplanation t =
        explain_table({observed.result, observed.search_space, observed.topology, observed.ok()}, input, recorder, fqn);
    int chosen = 0;
    for (const auto& e : t.options) {
      if (e.verdict != OptionVerdict::kChosen) continue;
      ++chosen;
      CHECK(e.counts.best_rating == observed.result.perf_rating);  // the plan's own proposal contained it
    }
    CHECK(chosen == 1);
  }
}

}  // namespace
}  // namespace shardplan::testing
