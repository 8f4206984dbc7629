// Tables are enumerated and estimated on every thread (one lane per thread, each
// taking every lanes-th table) and joined in table order: the options, their
// shards and estimates must be the same, in the same order, at any thread count.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "common/thread_pool.h"
#include "config/loader.h"
#include "planner/run.h"
#include "planner/topology.h"
#include "planner_output/options_json.h"

namespace shardplan::testing {
namespace {

// 120 tables in four modules (two of them sequence modules), some constrained
// (sharding types, kernels, pooling factors), on 16 ranks in 4 hosts.
PlanningInput enumeration_threads_case() {
  nlohmann::json modules = nlohmann::json::array();
  nlohmann::json constraints = nlohmann::json::object();
  for (int m = 0; m < 4; ++m) {
    nlohmann::json tables = nlohmann::json::array();
    for (int t = 0; t < 30; ++t) {
      const std::string name = "t" + std::to_string(m) + "_" + std::to_string(t);
      tables.push_back({{"name", name},
                        {"num_embeddings", 100 + 7919 * t * (m + 3) * (t % 5 + 1)},
                        {"embedding_dim", m >= 2 ? 64 : 16 << (t % 4)}});
      if (t % 3 == 0) constraints[name] = {{"pooling_factors", {1.0 + t}}};
      if (t % 7 == 1) constraints[name] = {{"sharding_types", {"row_wise", "column_wise", "table_row_wise"}}};
      if (t % 11 == 2) constraints[name] = {{"compute_kernels", {"fused_uvm_caching"}}};
    }
    modules.push_back(
        {{"path", "m" + std::to_string(m)}, {"kind", m >= 2 ? "embedding" : "embedding_bag"}, {"tables", tables}});
  }
  const nlohmann::json c = {{"model", {{"name", "threads"}, {"modules", modules}, {"constraints", constraints}}},
                            {"topology", {{"world_size", 16}, {"local_world_size", 4}, {"hbm_cap", "8 GiB"}}}};
  return load_case_text("threads.json", c.dump());
}

}  // namespace

TEST_CASE("enumeration: the same options in the same order at 1, 2 and 3 threads", "[enumerator][determinism]") {
  const PlanningInput input = enumeration_threads_case();
  const Topology topology = build_topology(input.topology);
  std::string serial;
  std::size_t options = 0;
  for (int threads : {1, 2, 3}) {
    ThreadPool pool(threads);
    Parallelism parallelism{&pool};
    parallelism.min_shards = 0;  // on every thread, however small
    const std::vector<ShardingOption> found = enumerate_and_estimate(input, topology, parallelism);
    const std::string text = options_to_json(found).dump();
    INFO("threads " << threads);
    if (threads == 1) {
      serial = text;
      options = found.size();
      // Several options a table, in table order: the first option is the first table's.
      CHECK(options > 3 * 120);
      CHECK(found.front().name == "t3_0");
    }
    CHECK(found.size() == options);
    CHECK(text == serial);
  }
}

}  // namespace shardplan::testing
