// `shardplan plan` renders the plan file in parts at the same time as the
// statistics (run_outputs.h): the head with the inputs' hash, chunks of tables cut
// by shard count, the tail, joined in order. The text must be plan_file_text's,
// byte for byte, at any thread count and for any cut between the parts.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <string>

#include "common/sha256.h"
#include "common/thread_pool.h"
#include "config/canonical_input.h"
#include "config/loader.h"
#include "planner/run.h"
#include "planner_output/plan_json.h"
#include "planner_output/run_outputs.h"

namespace shardplan::testing {
namespace {

// 90 tables (above kParallelMinTables) in three modules, of very different sizes
// (one shard to sixteen), on 16 ranks.
PlanningInput parts_test_case() {
  nlohmann::json modules = nlohmann::json::array();
  for (int m = 0; m < 3; ++m) {
    nlohmann::json tables = nlohmann::json::array();
    for (int t = 0; t < 30; ++t)
      tables.push_back({{"name", "t" + std::to_string(m) + "_" + std::to_string(t)},
                        {"num_embeddings", 1000 + 997 * t * t * (m + 1) * (m + 1) * 50},
                        {"embedding_dim", 16 << (t % 4)}});
    modules.push_back({{"path", "sparse.m" + std::to_string((m * 2) % 3)}, {"tables", tables}});
  }
  const nlohmann::json c = {{"model", {{"name", "parts"}, {"modules", modules}}},
                            {"topology", {{"world_size", 16}, {"local_world_size", 4}, {"hbm_cap", "4 GiB"}}},
                            {"planner", {{"proposers", {"greedy"}}}}};
  return load_case_text("parts.json", c.dump());
}

}  // namespace

TEST_CASE("plan text in parts: the same bytes at any thread count", "[output][plan-file]") {
  const PlanningInput input = parts_test_case();
  const PlanRun run = run_plan(input);
  REQUIRE(run.ok());
  REQUIRE(run.result.plan.size() >= kParallelMinTables);
  const std::string inputs = canonical_input_text(input);
  const std::string serial = plan_file_text(run, input.model.name, sha256_hex(inputs), inputs);
  // The serial text is the tree's (plan_text_test.cc checks that writer against it).
  REQUIRE(serial == plan_file_json(run, input.model.name, sha256_hex(inputs), inputs).dump(2) + "\n");
  for (StatsFormat stats : {StatsFormat::kSummary, StatsFormat::kJson, StatsFormat::kNone}) {
    std::string stats_text;
    for (int threads : {1, 2, 3}) {
      INFO("stats " << static_cast<int>(stats) << ", threads " << threads);
      ThreadPool pool(threads);
      const RunOutputs out = render_run_outputs(run, input, stats, Parallelism{&pool}, "plan.json");
      CHECK(out.plan == serial);
      if (threads == 1) stats_text = out.stats;
      CHECK(out.stats == stats_text);
    }
  }
}

TEST_CASE("plan text in parts: any cut between the tables joins to the whole", "[output][plan-file]") {
  const PlanningInput input = parts_test_case();
  const PlanRun run = run_plan(input);
  REQUIRE(run.ok());
  const PlanFileInput file = plan_file_input(run, input.model.name, "abc", "");
  const std::string whole = plan_to_text(file);
  const std::vector<PlanTextTable> tables = plan_text_tables(run.result.plan);
  REQUIRE(tables.size() == run.result.plan.size());
  const std::string head = plan_text_head(file), tail = plan_text_tail(file);
  for (std::size_t cut = 0; cut <= tables.size(); cut += 7) {
    std::string first, second;
    append_plan_text_tables(first, std::span(tables).first(cut), *file.topology);
    append_plan_text_tables(second, std::span(tables).subspan(cut), *file.topology);
    INFO("cut after " << cut << " tables");
    CHECK(head + first + second + tail == whole);
  }
  // Each module once, holding all its tables.
  const nlohmann::ordered_json parsed = nlohmann::ordered_json::parse(whole);
  CHECK(parsed["plan"].size() == 3);
  for (const auto& [path, module] : parsed["plan"].items()) CHECK(module.size() == 30);
}

}  // namespace shardplan::testing
