// `shardplan validate PLAN`: a plan file given as a FILE is recognised by its
// top-level keys and checked as show and diff read it, not as a planner input.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

std::string validate_test_planned_quickstart() {
  static const std::string text = [] {
    RunResult r = run_shardplan("plan --config " + kQuickstartConfig + " --stats none");
    REQUIRE(r.exit_code == 0);
    return r.out;
  }();
  return text;
}

}  // namespace

TEST_CASE("validate: a plan file on its own is checked as a plan", "[app][validate]") {
  const std::string plan = write_scratch("validate-plan.json", validate_test_planned_quickstart());
  RunResult r = run_shardplan("validate " + plan + " " + kQuickstartConfig);
  CHECK(r.exit_code == 0);
  CHECK(r.out == plan + ": ok (plan)\n" + kQuickstartConfig + ": ok (case)\n");
  CHECK(r.err.empty());
  // From standard input too.
  RunResult piped = run_shardplan_with_stdin("validate -", plan);
  CHECK(piped.exit_code == 0);
  CHECK(piped.out == "<stdin>: ok (plan)\n");
}

TEST_CASE("validate: a broken plan file gets the plan reader's messages", "[app][validate]") {
  nlohmann::json doc = nlohmann::json::parse(validate_test_planned_quickstart());
  doc["topology"]["world_sise"] = 2;
  doc["per_rank"][0]["num_shards"] = -1;
  const std::string plan = write_scratch("validate-bad-plan.json", doc.dump(1));
  RunResult r = run_shardplan("validate " + plan);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  // The same lines show prints for it (one reader), each with its position.
  RunResult shown = run_shardplan("show " + plan);
  CHECK(shown.exit_code == 2);
  CHECK(r.err == shown.err);
  CHECK(r.err.find(plan + ":") != std::string::npos);
  CHECK(r.err.find("topology.world_sise: unknown key 'world_sise', did you mean 'world_size'?") != std::string::npos);
  CHECK(r.err.find("per_rank[0].num_shards: expected a non-negative integer, found -1") != std::string::npos);
  CHECK(r.err.find("unknown key 'schema'") == std::string::npos);
}

TEST_CASE("validate: --kind still reads a plan file as the kind it names", "[app][validate]") {
  const std::string plan = write_scratch("validate-plan-kind.json", validate_test_planned_quickstart());
  RunResult r = run_shardplan("validate --kind case " + plan);
  CHECK(r.exit_code == 2);
  CHECK(r.err.find("schema: unknown key 'schema'") != std::string::npos);
}

}  // namespace shardplan::testing
