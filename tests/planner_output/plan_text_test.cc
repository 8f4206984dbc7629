// The plan file text is written part by part (plan_to_text), never as one tree; the
// Python package returns the tree (plan_to_json). Both must say the same thing, byte
// for byte, whatever the plan holds: several modules, names that need escaping,
// shards on many ranks, the tool's inputs, the bound, an empty plan.
#include <algorithm>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "config/canonical_input.h"
#include "config/loader.h"
#include "planner/run.h"
#include "planner_output/plan_json.h"

namespace shardplan::testing {
namespace {

std::string tree_text(const PlanRun& run, const PlanningInput& input, bool with_inputs) {
  const std::string sha = with_inputs ? inputs_sha256(input) : std::string();
  const std::string text = with_inputs ? canonical_input_text(input) : std::string();
  return plan_file_json(run, input.model.name, sha, text).dump(2) + "\n";
}

std::string streamed_text(const PlanRun& run, const PlanningInput& input, bool with_inputs) {
  const std::string sha = with_inputs ? inputs_sha256(input) : std::string();
  const std::string text = with_inputs ? canonical_input_text(input) : std::string();
  return plan_file_text(run, input.model.name, sha, text);
}

void check_same_text(const PlanningInput& input) {
  const PlanRun run = run_plan(input);
  REQUIRE(run.ok());
  for (bool with_inputs : {false, true}) {
    INFO("with inputs: " << with_inputs);
    const std::string streamed = streamed_text(run, input, with_inputs);
    CHECK(streamed == tree_text(run, input, with_inputs));
    // And it is one JSON document whose plan holds every table.
    const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(streamed);
    std::size_t tables = 0;
    for (const auto& module : parsed["plan"]) tables += module.size();
    CHECK(tables == run.result.plan.size());
  }
}

// Two modules whose tables interleave in model order, names with quotes, a
// backslash, a newline escape and non-ASCII letters, on 16 ranks (row-wise shards).
std::string two_module_case(int world_size) {
  nlohmann::json small = nlohmann::json::array();
  nlohmann::json big = nlohmann::json::array();
  small.push_back({{"name", "q\"uote\\d"}, {"num_embeddings", 1000}, {"embedding_dim", 32}});
  small.push_back({{"name", "caf\u00e9_\u6f22"}, {"num_embeddings", 5000}, {"embedding_dim", 64}});
  big.push_back({{"name", "rows"}, {"num_embeddings", 40000000}, {"embedding_dim", 128}});
  big.push_back({{"name", "tab\tname"}, {"num_embeddings", 300000}, {"embedding_dim", 64}});
  nlohmann::json c = {{"model",
                       {{"name", "m\"two"},
                        {"modules",
                         {{{"path", "sparse.a"}, {"kind", "embedding_bag"}, {"tables", small}},
                          {{"path", "sparse.b"}, {"kind", "embedding_bag"}, {"tables", big}}}}}},
                      {"topology", {{"world_size", world_size}, {"compute_device", "cuda"}, {"hbm_cap", "16 GiB"}}},
                      {"planner", nlohmann::json::object()}};
  return c.dump();
}

TEST_CASE("plan file text: written part by part, the same bytes as the tree's dump", "[output][plan-file]") {
  SECTION("quickstart") { check_same_text(load_case(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/quickstart.json")); }
  SECTION("DLRM on two hosts, with its bound") {
    const std::string dir = std::string(SHARDPLAN_SOURCE_DIR) + "/configs/";
    check_same_text(load_inputs(dir + "dlrm-criteo-terabyte.yaml", dir + "topology-2x8-80g.yaml", std::nullopt));
  }
  SECTION("two modules, escaped names, one rank and sixteen") {
    for (int world_size : {1, 16}) {
      INFO("world size " << world_size);
      check_same_text(load_case_text("two.json", two_module_case(world_size)));
    }
  }
}

TEST_CASE("plan file text: an empty plan and empty per-rank lists", "[output][plan-file]") {
  // Nothing shardable (the one table is meant for CPUs, the topology is cuda):
  // torchrec's ShardingPlan({}), so no per-rank figures.
  PlanningInput input = load_case(std::string(SHARDPLAN_SOURCE_DIR) + "/configs/quickstart.json");
  for (auto& module : input.model.modules) module.tables.resize(std::min<std::size_t>(module.tables.size(), 1));
  input.model.constraints.clear();
  input.model.constraints[input.model.modules.front().tables.front().name].device_group = ComputeDevice::kCpu;
  const PlanRun run = run_plan(input);
  REQUIRE(run.ok());
  REQUIRE(run.result.plan.empty());
  const std::string streamed = streamed_text(run, input, true);
  CHECK(streamed == tree_text(run, input, true));
  CHECK(streamed.find("\"plan\": {},\n") != std::string::npos);
  CHECK(streamed.find("\"per_rank\": []") != std::string::npos);
}

}  // namespace
}  // namespace shardplan::testing
