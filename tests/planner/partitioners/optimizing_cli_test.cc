// `plan --partitioner optimizing` through the real binary: with no time budget it
// writes greedy's plan byte for byte (the search starts from it); with the default
// budget its max-rank perf on the DLRM example is at most greedy's.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

const std::string kDlrm = "--model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
                          "/configs/topology-2x8-80g.yaml --stats none";

double max_rank_perf(const std::string& plan_text) {
  return nlohmann::json::parse(plan_text).at("summary").at("max_rank_perf").get<double>();
}

TEST_CASE("optimizing partitioner from the command line", "[optimizing][app]") {
  const RunResult greedy = run_shardplan("plan " + kDlrm);
  const RunResult unsearched = run_shardplan("plan " + kDlrm + " --partitioner optimizing --time-budget 0");
  const RunResult ours = run_shardplan("plan " + kDlrm + " --partitioner optimizing");
  REQUIRE(greedy.exit_code == 0);
  REQUIRE(unsearched.exit_code == 0);
  REQUIRE(ours.exit_code == 0);
  // The same plan file but for the provenance block (the inputs hash covers the partitioner).
  auto without_provenance = [](const std::string& text) {
    nlohmann::json plan = nlohmann::json::parse(text);
    plan.erase("shardplan");
    return plan.dump();
  };
  CHECK(without_provenance(unsearched.out) == without_provenance(greedy.out));
  CHECK(max_rank_perf(ours.out) <= max_rank_perf(greedy.out));
  const RunResult bad = run_shardplan("plan " + kDlrm + " --partitioner optimizing --time-budget -1");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err.find("error: --time-budget: expected seconds in [0, 3600]") == 0);
}

TEST_CASE("optimizing: the summary says when --time-budget, not the work budget, ended the search",
          "[optimizing][app]") {
  // A microsecond cap passes before the first step: the search stops by the clock,
  // and the plan is still written (greedy's, or what the search reached).
  const std::string base = "--model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
                           "/configs/topology-2x8-80g.yaml -o /dev/null --partitioner optimizing";
  const RunResult capped = run_shardplan("plan " + base + " --time-budget 0.000001");
  REQUIRE(capped.exit_code == 0);
  CHECK(capped.err.find("search  stopped by --time-budget before its work budget") != std::string::npos);
  // Greedy never searches: no such line.
  const RunResult greedy =
      run_shardplan("plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
                    "/configs/topology-2x8-80g.yaml -o /dev/null");
  REQUIRE(greedy.exit_code == 0);
  CHECK(greedy.err.find("stopped by --time-budget") == std::string::npos);
}

}  // namespace
}  // namespace shardplan::testing
