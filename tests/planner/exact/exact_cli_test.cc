// The exact search through `shardplan plan --partitioner optimizing` on the
// reference cases: the bound is never above the plan, the plan file says
// "optimal" and the summary prints "the plan is optimal" exactly when the plan's
// rating equals the bound (else the gap and the binding bound), and the plan is
// byte-identical at --threads 1 and 2.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <string>

#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

TEST_CASE("exact search: 'optimal' exactly when the plan meets the bound", "[exact][app]") {
  int checked = 0, optimal = 0;
  for (const auto& c : golden_cases()) {
    if (!load_golden(c).contains("plan")) continue;
    // A generous clock: the work budget, not the machine's speed, ends every search.
    const RunResult r =
        run_shardplan("plan --config " + c.case_path + " --partitioner optimizing --time-budget 60 --stats summary");
    INFO("case " << c.name << "\nstderr: " << r.err.substr(0, 2000));
    REQUIRE(r.exit_code == 0);
    const nlohmann::json plan = nlohmann::json::parse(r.out);
    if (plan.at("plan").empty()) continue;
    const nlohmann::json& summary = plan.at("summary");
    const nlohmann::json& bound = summary.at("lower_bound");
    const double rating = summary.at("perf_rating").get<double>();
    const double value = bound.at("value").get<double>();
    CHECK(value <= rating);
    const bool meets = value == rating;
    CHECK(bound.at("optimal").get<bool>() == meets);
    const bool says_optimal = r.err.find("the plan is optimal") != std::string::npos;
    CHECK(says_optimal == meets);
    const std::string binding = bound.at("binding").get<std::string>();
    if (!meets) {
      CHECK(r.err.find("(" + binding + "); the plan is ") != std::string::npos);
      CHECK(r.err.find("% above it") != std::string::npos);
    }
    // The exact search's entry joins the bounds and binds only where it is the largest.
    if (binding == "branch_and_bound")
      for (const auto& [name, v] : bound.at("bounds").items())
        if (name != "branch_and_bound") CHECK(v.get<double>() < value);
    ++checked;
    optimal += meets ? 1 : 0;
  }
  if (cases_dir()) {
    CHECK(checked > 0);
    // The small reference cases are the exact search's home ground: most are proven.
    CHECK(optimal * 2 > checked);
  }
}

TEST_CASE("exact search: the same plan at --threads 1 and 2", "[exact][app]") {
  const auto dir = cases_dir();
  if (!dir) return;
  // A search that ends on its budget (Criteo-TB), one that completes (pooling
  // factors), one with no room to spare (balance modules).
  for (const char* name :
       {"dlrm-criteo-terabyte-ws64", "pooling-factors-1-to-100-ws8", "partitioner-balance-modules-ws8"}) {
    const std::string args =
        "plan --config " + *dir + "/case-" + name + ".json --partitioner optimizing --time-budget 60 --stats json";
    const RunResult one = run_shardplan(args + " --threads 1");
    const RunResult two = run_shardplan(args + " --threads 2");
    INFO(name);
    REQUIRE(one.exit_code == 0);
    CHECK(one.out == two.out);
    CHECK(nlohmann::json::parse(one.err).at("lower_bound") == nlohmann::json::parse(two.err).at("lower_bound"));
  }
}

TEST_CASE("packing: balance modules proven optimal without a search, greedy unchanged", "[exact][app][packing]") {
  // Seven large one-rank tables and three small ones on eight ranks: some rank holds
  // a large and a small one, and the packing bound (packing_bound.h) counts 7 + 3 x
  // 0.36 ranks below that sum: the bound is the plan's rating, and no search runs.
  const auto dir = cases_dir();
  if (!dir) return;
  const std::string args = "plan --config " + *dir + "/case-partitioner-balance-modules-ws8.json --stats json";
  const RunResult r = run_shardplan(args + " --partitioner optimizing --time-budget 60 --timings");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json summary = nlohmann::json::parse(r.out).at("summary");
  const nlohmann::json& bound = summary.at("lower_bound");
  CHECK(bound.at("binding") == "packing");
  CHECK(bound.at("value").get<double>() == summary.at("perf_rating").get<double>());
  CHECK(bound.at("optimal") == true);
  CHECK_FALSE(bound.at("bounds").contains("branch_and_bound"));
  CHECK(r.err.find("exact search (not needed: the packing bound meets the plan)") != std::string::npos);
  // The default partitioner computes no packing bound.
  const RunResult greedy = run_shardplan(args);
  REQUIRE(greedy.exit_code == 0);
  CHECK_FALSE(nlohmann::json::parse(greedy.out).at("summary").at("lower_bound").at("bounds").contains("packing"));
}

TEST_CASE("pruned forced load: greedy-perf proven optimal without a search, greedy unchanged", "[exact][app][pruned]") {
  // Before the pruned_forced_load bound (pruned_forced_load.h) the exact search needed
  // hundreds of nodes to prove this plan; ruling out every option that forces a rank
  // to the plan's rating leaves some table none, so the bound meets the plan and
  // no search runs. The packing bound does not reach it (it runs first).
  const auto dir = cases_dir();
  if (!dir) return;
  const std::string args = "plan --config " + *dir + "/case-partitioner-greedy-perf-ws8.json --stats json";
  const RunResult r = run_shardplan(args + " --partitioner optimizing --time-budget 60 --timings");
  REQUIRE(r.exit_code == 0);
  const nlohmann::json summary = nlohmann::json::parse(r.out).at("summary");
  const nlohmann::json& bound = summary.at("lower_bound");
  CHECK(bound.at("binding") == "pruned_forced_load");
  CHECK(bound.at("value").get<double>() == summary.at("perf_rating").get<double>());
  CHECK(bound.at("bounds").at("packing").get<double>() < bound.at("value").get<double>());
  CHECK(bound.at("optimal") == true);
  CHECK_FALSE(bound.at("bounds").contains("branch_and_bound"));
  CHECK(r.err.find("exact search (not needed: the pruned_forced_load bound meets the plan)") != std::string::npos);
  // The default partitioner computes no pruned_forced_load bound.
  const RunResult greedy = run_shardplan(args);
  REQUIRE(greedy.exit_code == 0);
  CHECK_FALSE(
      nlohmann::json::parse(greedy.out).at("summary").at("lower_bound").at("bounds").contains("pruned_forced_load"));
}

}  // namespace
}  // namespace shardplan::testing
