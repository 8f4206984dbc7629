// Runs the real binary for `plan` and `enumerate`: the examples in configs/, the
// plan file against its schema and against torchrec's golden, determinism, exit
// codes and messages for infeasible models and bad flags.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/json_schema.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

std::vector<std::string> schema_problems(const std::string& schema, const nlohmann::json& doc) {
  return schema_errors(load_schema(schema), doc);
}

TEST_CASE("plan: every example in configs/ plans and its plan file validates", "[app][plan]") {
  const std::vector<std::string> inputs = {
      "--config " + kSourceDir + "/configs/quickstart.json",
      "--model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
          "/configs/topology-1x8-80g.yaml --planner " + kSourceDir + "/configs/planner-default.yaml",
      "--model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
          "/configs/topology-2x8-80g.yaml",
  };
  for (const auto& input : inputs) {
    std::string out = scratch_prefix() + "plan.json";
    std::filesystem::remove(out);
    RunResult r = run_shardplan("plan " + input + " --stats text -o " + out);
    INFO("shardplan plan " << input << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    CHECK(r.out.empty());  // the plan went to the file
    CHECK(r.err.find("--- Planner Statistics ---") != std::string::npos);
    nlohmann::json plan = nlohmann::json::parse(slurp(out));
    auto problems = schema_problems("plan.schema.json", plan);
    for (const auto& p : problems) FAIL_CHECK(p);
    CHECK(problems.empty());
    // Every table of the model appears once, every shard has a valid rank.
    int world = plan["topology"]["world_size"].get<int>();
    int shards = 0;
    for (const auto& [path, tables] : plan["plan"].items())
      for (const auto& [name, table] : tables.items())
        for (const auto& shard : table["shards"]) {
          CHECK(shard["rank"].get<int>() >= 0);
          CHECK(shard["rank"].get<int>() < world);
          ++shards;
        }
    int per_rank_shards = 0;
    for (const auto& r : plan["per_rank"]) per_rank_shards += r["num_shards"].get<int>();
    CHECK(per_rank_shards == shards);
  }
}

TEST_CASE("plan: the same input gives a byte-identical plan file", "[app][plan][determinism]") {
  std::string args = "plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
                     "/configs/topology-2x8-80g.yaml --stats none";
  RunResult first = run_shardplan(args);
  RunResult second = run_shardplan(args);
  REQUIRE(first.exit_code == 0);
  REQUIRE(second.exit_code == 0);
  CHECK(!first.out.empty());
  CHECK(first.out == second.out);
}

TEST_CASE("plan: the plan file holds torchrec's plan for the reference cases", "[app][plan][parity]") {
  int checked = 0;
  for (const auto& c : golden_cases()) {
    nlohmann::json golden = load_golden(c);
    if (!golden.contains("plan")) continue;
    RunResult r = run_shardplan("plan --config " + c.case_path + " --stats none");
    INFO("case " << c.name << "\nstderr: " << r.err);
    REQUIRE(r.exit_code == 0);
    nlohmann::json plan = nlohmann::json::parse(r.out);
    // reserved: per-rank capacities left after the storage reservation.
    REQUIRE(plan["reserved"].size() == golden["reserved"].size());
    for (std::size_t i = 0; i < golden["reserved"].size(); ++i) {
      CHECK(plan["reserved"][i]["hbm"] == golden["reserved"][i]["hbm"]);
      CHECK(plan["reserved"][i]["ddr"] == golden["reserved"][i]["ddr"]);
    }
    for (const auto& [path, tables] : golden["plan"].items()) {
      for (const auto& [name, want] : tables.items()) {
        INFO("table " << path << "." << name);
        REQUIRE(plan["plan"].contains(path));
        REQUIRE(plan["plan"][path].contains(name));
        const auto& got = plan["plan"][path][name];
        CHECK(got["sharding_type"] == want["sharding_type"]);
        CHECK(got["compute_kernel"] == want["compute_kernel"]);
        CHECK(got["ranks"] == want["ranks"]);
        auto want_shards = expand_shards(want["shards"]);
        REQUIRE(got["shards"].size() == want_shards.size());
        for (std::size_t j = 0; j < want_shards.size(); ++j) {
          CHECK(got["shards"][j]["sizes"] == want_shards[j]["sizes"]);
          CHECK(got["shards"][j]["offsets"] == want_shards[j]["offsets"]);
          CHECK(got["shards"][j]["storage"] == want_shards[j]["storage"]);
        }
      }
    }
    REQUIRE(plan["per_rank"].size() == golden["per_rank"].size());
    for (std::size_t i = 0; i < golden["per_rank"].size(); ++i) {
      CHECK(plan["per_rank"][i]["hbm"] == golden["per_rank"][i]["hbm"]);
      CHECK(plan["per_rank"][i]["ddr"] == golden["per_rank"][i]["ddr"]);
      CHECK(plan["per_rank"][i]["num_shards"] == golden["per_rank"][i]["num_shards"]);
      for (const char* part : {"fwd_compute", "fwd_comms", "bwd_compute", "bwd_comms", "prefetch_compute", "total"})
        CHECK(close_enough(plan["per_rank"][i]["perf"][part].get<double>(),
                           golden["per_rank"][i]["perf"][part].get<double>()));
    }
    CHECK(plan["summary"]["num_proposals"] == golden["num_proposals"]);
    CHECK(plan["summary"]["num_plans"] == golden["num_plans"]);
    CHECK(close_enough(plan["summary"]["perf_rating"].get<double>(), golden["perf_rating"].get<double>()));
    ++checked;
  }
  if (cases_dir()) CHECK(checked > 0);
}

TEST_CASE("plan: an infeasible model exits 1, names the table and writes no file", "[app][plan]") {
  std::string model = write_scratch("huge.yaml",
                                    "modules:\n"
                                    "  - path: ebc\n"
                                    "    kind: embedding_bag\n"
                                    "    tables:\n"
                                    "      - {name: t_huge, num_embeddings: 2000000000, embedding_dim: 256}\n");
  std::string topology = write_scratch("small.yaml", "world_size: 2\nhbm_cap: 16 GiB\nddr_cap: 64 GiB\n");
  std::string out = scratch_prefix() + "never.json";
  std::filesystem::remove(out);
  RunResult r = run_shardplan("plan --model " + model + " --topology " + topology + " --stats none -o " + out);
  CHECK(r.exit_code == 1);
  CHECK(r.err.find("no feasible plan (INSUFFICIENT_STORAGE") != std::string::npos);
  CHECK(r.err.find("ebc.t_huge needs") != std::string::npos);
  CHECK(r.err.find("the largest free rank has") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("plan: a table that cannot be laid out exits 1 naming the table and why", "[app][plan]") {
  // Custom HBM capacities summing to 0 leave torchrec's uneven row-wise split
  // dividing by zero; a table constrained to row_wise then has no sharding option.
  std::string model = write_scratch("rw_only.yaml",
                                    "modules:\n"
                                    "  - path: ebc\n"
                                    "    kind: embedding_bag\n"
                                    "    tables:\n"
                                    "      - {name: t_rw, num_embeddings: 1000, embedding_dim: 64}\n"
                                    "constraints:\n"
                                    "  t_rw: {sharding_types: [row_wise]}\n");
  std::string topology = write_scratch("zero_hbm.yaml", "world_size: 2\ncustom:\n  hbm_cap: [0, 0]\n");
  std::string out = scratch_prefix() + "never.json";
  std::filesystem::remove(out);
  // torchrec reserves storage before it enumerates, and its default heuristical
  // reservation already fails on zero HBM; the fixed-percentage one does not, so
  // `plan` with it reaches the table's layout as `enumerate` does.
  RunResult reserved = run_shardplan("plan --model " + model + " --topology " + topology + " -o " + out);
  CHECK(reserved.exit_code == 1);
  CHECK(reserved.err.rfind("error: no feasible plan (INSUFFICIENT_STORAGE, after 0 proposals)\n", 0) == 0);
  for (const std::string command : {"plan --storage-reservation fixed_percentage", "enumerate"}) {
    RunResult r = run_shardplan(command + " --model " + model + " --topology " + topology + " -o " + out);
    INFO(command << " stderr: " << r.err);
    CHECK(r.exit_code == 1);
    CHECK(r.err ==
          "error: no sharding option: Failed to calculate sharding plan: cannot split rows in proportion to "
          "the ranks' memory: the topology's custom capacities (custom.hbm_cap or custom.ddr_cap) sum to 0 "
          "(torchrec: division by zero) Context: table_name='t_rw', module_path='ebc', sharding_type='row_wise'\n");
    CHECK_FALSE(std::filesystem::exists(out));
  }
}

TEST_CASE("plan: bad flags exit 2 with a suggestion", "[app][plan]") {
  std::string config = "--config " + kSourceDir + "/configs/quickstart.json";
  RunResult r = run_shardplan("plan " + config + " --partitioner greedyy");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: --partitioner: unknown name 'greedyy', did you mean 'greedy'?\n");
  r = run_shardplan("plan " + config + " --proposers greedy,unifrom");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: --proposers: unknown name 'unifrom', did you mean 'uniform'?\n");
  r = run_shardplan("plan " + config + " --stats yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: --stats: expected summary, torchrec, json, none or text, found 'yaml'\n");
  r = run_shardplan("plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: --model needs --topology FILE as well\n");
}

TEST_CASE("plan: flags override the planner options", "[app][plan]") {
  std::string config = "--config " + kSourceDir + "/configs/quickstart.json --stats none";
  RunResult base = run_shardplan("plan " + config);
  RunResult wide = run_shardplan("plan " + config + " --world-size 4 --local-world-size 2");
  REQUIRE(base.exit_code == 0);
  REQUIRE(wide.exit_code == 0);
  CHECK(nlohmann::json::parse(base.out)["topology"]["world_size"] == 2);
  CHECK(nlohmann::json::parse(wide.out)["topology"]["world_size"] == 4);
  CHECK(nlohmann::json::parse(wide.out)["per_rank"].size() == 4);
}

TEST_CASE("enumerate: JSON output validates and equals torchrec's options", "[app][enumerate]") {
  RunResult r = run_shardplan("enumerate --config " + kSourceDir + "/configs/quickstart.json");
  REQUIRE(r.exit_code == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  auto problems = schema_problems("enumerate.schema.json", doc);
  for (const auto& p : problems) FAIL_CHECK(p);
  CHECK(doc["num_options"].get<std::size_t>() == doc["options"].size());

  auto cases = golden_cases();
  auto it =
      std::find_if(cases.begin(), cases.end(), [](const GoldenCase& c) { return c.name == "small-mixed-dtypes-ws4"; });
  if (it == cases.end()) return;
  nlohmann::json golden = load_golden(*it);
  RunResult e = run_shardplan("enumerate --config " + it->case_path);
  REQUIRE(e.exit_code == 0);
  nlohmann::json ours = nlohmann::json::parse(e.out)["options"];
  auto want = golden_options(*it, golden);
  REQUIRE(ours.size() == want.size());
  for (const auto& w : want) {
    auto match = std::find_if(ours.begin(), ours.end(), [&](const nlohmann::json& o) {
      return o["fqn"] == w["fqn"] && o["sharding_type"] == w["sharding_type"] &&
             o["compute_kernel"] == w["compute_kernel"];
    });
    INFO(w["fqn"] << " " << w["sharding_type"] << " " << w["compute_kernel"]);
    REQUIRE(match != ours.end());
    CHECK((*match)["total_storage"] == w["total_storage"]);
    CHECK(close_enough((*match)["total_perf"].get<double>(), w["total_perf"].get<double>()));
  }
}

TEST_CASE("enumerate: text output lists every option", "[app][enumerate]") {
  RunResult json_run = run_shardplan("enumerate --config " + kSourceDir + "/configs/quickstart.json");
  RunResult text_run = run_shardplan("enumerate --config " + kSourceDir + "/configs/quickstart.json --format text");
  REQUIRE(text_run.exit_code == 0);
  // Named: a range-for over a member of a temporary reads freed memory (ASan).
  const nlohmann::json options = nlohmann::json::parse(json_run.out);
  for (const auto& o : options["options"]) {
    std::string row = o["fqn"].get<std::string>();
    CHECK(text_run.out.find(row) != std::string::npos);
  }
  CHECK(text_run.out.find("sharding_type") != std::string::npos);
}

}  // namespace
}  // namespace shardplan::testing

namespace shardplan::testing {
namespace {

TEST_CASE("plan: the greedy threshold stops the greedy proposer early", "[app][plan]") {
  std::string config = "--config " + std::string(SHARDPLAN_SOURCE_DIR) + "/configs/quickstart.json --stats none";
  RunResult all = run_shardplan("plan " + config + " --proposers greedy");
  RunResult early = run_shardplan("plan " + config + " --proposers greedy --greedy-threshold 1");
  REQUIRE(all.exit_code == 0);
  REQUIRE(early.exit_code == 0);
  int all_proposals = nlohmann::json::parse(all.out)["summary"]["num_proposals"].get<int>();
  int early_proposals = nlohmann::json::parse(early.out)["summary"]["num_proposals"].get<int>();
  // The quickstart's greedy walk has more than 3 proposals and its first is the
  // best, so a threshold of 1 stops it after 3 (best + 2 inferior).
  CHECK(all_proposals > 3);
  CHECK(early_proposals == 3);
  // The planner file key does the same as the flag.
  std::string planner = write_scratch("threshold.yaml", "proposers: [greedy]\ngreedy_threshold: 1\n");
  RunResult file = run_shardplan("plan --model " + std::string(SHARDPLAN_SOURCE_DIR) +
                                 "/configs/dlrm-criteo-terabyte.yaml --topology " + SHARDPLAN_SOURCE_DIR +
                                 "/configs/topology-1x8-80g.yaml --planner " + planner + " --stats none");
  RunResult no_threshold = run_shardplan("plan --model " + std::string(SHARDPLAN_SOURCE_DIR) +
                                         "/configs/dlrm-criteo-terabyte.yaml --topology " + SHARDPLAN_SOURCE_DIR +
                                         "/configs/topology-1x8-80g.yaml --proposers greedy --stats none");
  REQUIRE(file.exit_code == 0);
  REQUIRE(no_threshold.exit_code == 0);
  CHECK(nlohmann::json::parse(file.out)["summary"]["num_proposals"].get<int>() <
        nlohmann::json::parse(no_threshold.out)["summary"]["num_proposals"].get<int>());
}

}  // namespace
}  // namespace shardplan::testing
