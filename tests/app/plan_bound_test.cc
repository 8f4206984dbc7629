// The lower bound as `shardplan plan` reports it: in the plan file's summary and
// in --stats json, never above the plan's rating, valid against the schema.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "planner/bounds/lower_bound.h"
#include "support/golden.h"
#include "support/json_schema.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

TEST_CASE("plan: every reference plan reports a lower bound at or below its rating", "[app][plan][bound]") {
  int checked = 0;
  for (const auto& c : golden_cases()) {
    if (!load_golden(c).contains("plan")) continue;
    RunResult r = run_shardplan("plan --config " + c.case_path + " --stats json");
    INFO("case " << c.name << "\nstderr: " << r.err.substr(0, 2000));
    REQUIRE(r.exit_code == 0);
    const nlohmann::json plan = nlohmann::json::parse(r.out);
    const nlohmann::json& summary = plan.at("summary");
    if (plan.at("plan").empty()) continue;  // nothing shardable: no bound
    REQUIRE(summary.contains("lower_bound"));
    const nlohmann::json& bound = summary.at("lower_bound");
    const double rating = summary.at("perf_rating").get<double>();
    const double value = bound.at("value").get<double>();
    CHECK(value > 0);
    CHECK(value <= rating * (1 + 1e-9));
    CHECK(bound.at("gap").get<double>() == Approx((rating - value) / value));
    // The binding bound is the largest of those listed, named as the name table says.
    const std::string binding = bound.at("binding").get<std::string>();
    CHECK(parse_name(kBoundKindNames, binding).has_value());
    CHECK(bound.at("bounds").at(binding).get<double>() == value);
    for (const auto& [name, v] : bound.at("bounds").items()) CHECK(v.get<double>() <= value);
    // Every kind but packing, pruned_forced_load and branch_and_bound, which only --partitioner optimizing computes.
    CHECK(bound.at("bounds").size() == kBoundKindNames.size() - 3);
    CHECK_FALSE(bound.contains("optimal"));
    // --stats json carries the same object.
    const nlohmann::json stats = nlohmann::json::parse(r.err);
    CHECK(stats.at("lower_bound") == bound);
    ++checked;
  }
  if (cases_dir()) CHECK(checked > 0);
}

TEST_CASE("plan schema: summary.lower_bound is checked, its names are the name table's", "[app][schema][bound]") {
  const nlohmann::json schema = load_schema("plan.schema.json");
  const nlohmann::json& lower = schema.at("properties").at("summary").at("properties").at("lower_bound");
  std::vector<std::string> names;
  for (const auto& entry : kBoundKindNames) names.emplace_back(entry.name);
  CHECK(lower.at("properties").at("binding").at("enum").get<std::vector<std::string>>() == names);

  const std::string out = scratch_prefix() + "bound_plan.json";
  REQUIRE(run_shardplan("plan --config " + kSourceDir + "/configs/quickstart.json --stats none -o " + out).exit_code ==
          0);
  nlohmann::json plan = nlohmann::json::parse(slurp(out));
  CHECK(schema_errors(schema, plan).empty());
  plan["summary"]["lower_bound"]["binding"] = "guesswork";
  CHECK_FALSE(schema_errors(schema, plan).empty());
  plan["summary"]["lower_bound"]["binding"] = "average_work";
  plan["summary"]["lower_bound"]["value"] = "12 ms";
  CHECK_FALSE(schema_errors(schema, plan).empty());
}

}  // namespace
}  // namespace shardplan::testing
