// Proposer sequences on the golden search spaces, independent of the partitioner:
// the default proposers are static (their sequence ignores the verdicts), so the
// number of distinct proposals they make is torchrec's num_proposals.
#include <catch2/catch.hpp>
#include <unordered_set>

#include "config/loader.h"
#include "planner/planner.h"
#include "planner/planner_parity_support.h"
#include "planner/proposers/grid_search_proposer.h"
#include "planner/proposers/proposal_key.h"

namespace shardplan::testing {
namespace {

TEST_CASE("GridSearchProposer schedules the product of option counts on proposer-grid-search-ws4",
          "[planner][proposer]") {
  for (const auto& c : golden_cases()) {
    if (c.name != "proposer-grid-search-ws4") continue;
    nlohmann::json golden = load_golden(c);
    PlanningInput input = load_case(c.case_path);
    SearchSpace space(search_space_from_golden(c, golden, input.model));
    std::map<std::string, std::int64_t> per_table;
    for (const auto& o : space.enumerated()) ++per_table[o.fqn()];
    std::int64_t product = 1;
    for (const auto& [fqn, n] : per_table) product *= n;
    CHECK(product == 16 * 16 * 16);  // the case's description: 3 tables x 16 options
    GridSearchProposer grid;
    grid.load(space, nullptr);
    CHECK(grid.num_scheduled() == product);
    ProposalKeyer keyer(space);
    std::unordered_set<ProposalKey, ProposalKeyHash> seen;
    while (auto p = grid.propose()) {
      seen.insert(keyer.key(*p));
      grid.feedback({true, &*p, 1.0, nullptr});
    }
    CHECK(static_cast<std::int64_t>(seen.size()) == golden.at("num_proposals").get<std::int64_t>());
  }
}

TEST_CASE("distinct proposals of the configured proposers equal torchrec's num_proposals", "[planner][proposer]") {
  auto cases = golden_cases();
  int matched = 0, considered = 0;
  for (const auto& c : cases) {
    nlohmann::json golden = load_golden(c);
    if (golden.contains("error") && golden["error"].value("type", "") != "PlannerError") continue;
    if (golden.at("reserved").is_null()) continue;
    PlanningInput input = load_case(c.case_path);
    SearchSpace space(search_space_from_golden(c, golden, input.model));
    ++considered;
    OptionEstimator estimator = lookup_estimator(space.enumerated());
    auto proposers = make_proposers(input.planner);
    for (auto& proposer : proposers) REQUIRE_FALSE(proposer->load(space, &estimator).has_value());
    const ProposalKeyer keyer(space);  // after the loads: they add derived options
    std::unordered_set<ProposalKey, ProposalKeyHash> seen;
    for (auto& proposer : proposers)
      for (auto p = proposer->propose(); p && !p->empty(); p = proposer->propose()) {
        seen.insert(keyer.key(*p));
        proposer->feedback({true, &*p, 1.0, nullptr});
      }
    auto want = golden.at("num_proposals").get<std::size_t>();
    if (seen.size() == want)
      ++matched;
    else
      FAIL_CHECK("case " << c.name << ": distinct proposals: torchrec " << want << " != ours " << seen.size());
  }
  WARN("proposer de-dup parity: " << matched << "/" << considered << " cases match");
}

}  // namespace
}  // namespace shardplan::testing
