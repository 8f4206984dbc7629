// `shardplan plan` through the real binary: the plan file's provenance record, the
// failure kind inside `--stats json`, the rule for a failed `-o FILE` (no stale
// plan left there) and uniform caps refused on per-rank topologies.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/json_schema.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;

TEST_CASE("plan: the plan file records the tool version and a hash of the normalised inputs",
          "[app][plan][provenance]") {
  RunResult version = run_shardplan("--version");
  REQUIRE(version.exit_code == 0);
  RunResult a = run_shardplan("plan --config " + kQuickstartConfig + " --stats none");
  RunResult b = run_shardplan("plan --config " + kQuickstartConfig + " --stats none --threads 1 --partitioner greedy");
  RunResult c = run_shardplan("plan --config " + kQuickstartConfig + " --stats none --batch-size 64");
  REQUIRE(a.exit_code == 0);
  REQUIRE(b.exit_code == 0);
  REQUIRE(c.exit_code == 0);
  const auto ja = nlohmann::json::parse(a.out), jb = nlohmann::json::parse(b.out), jc = nlohmann::json::parse(c.out);
  CHECK("shardplan " + ja["shardplan"]["version"].get<std::string>() + "\n" == version.out);
  const std::string hash = ja["shardplan"]["inputs_sha256"];
  CHECK(hash.size() == 64);
  // --partitioner greedy is the quickstart's own choice: the same normalised inputs.
  CHECK(jb["shardplan"]["inputs_sha256"] == hash);
  CHECK(jc["shardplan"]["inputs_sha256"] != hash);

  // schemas/plan.schema.json: the record is optional (older plans), checked when there.
  const auto schema = load_schema("plan.schema.json");
  CHECK(schema_errors(schema, ja).empty());
  auto older = ja;
  older.erase("shardplan");
  CHECK(schema_errors(schema, older).empty());
  auto bad = ja;
  bad["shardplan"]["inputs_sha256"] = "not-a-hash";
  bad["shardplan"]["by"] = "me";
  CHECK(schema_errors(schema, bad).size() == 2);
}

TEST_CASE("plan --stats json: stderr is one JSON document, with the failure kind when the run fails",
          "[app][plan][stats]") {
  RunResult infeasible =
      run_shardplan("plan --config " + kSourceDir + "/configs/examples/infeasible.yaml --stats json");
  CHECK(infeasible.exit_code == 1);
  nlohmann::json report;
  REQUIRE_NOTHROW(report = nlohmann::json::parse(infeasible.err));
  CHECK(report["has_plan"] == false);
  CHECK(report["failure"]["kind"] == "INSUFFICIENT_STORAGE");
  CHECK(report["failure"]["stage"] == "plan");
  CHECK(report["failure"]["message"].get<std::string>().rfind("no feasible plan (INSUFFICIENT_STORAGE", 0) == 0);

  RunResult bad = run_shardplan("plan --config " + kSourceDir + "/configs/examples/bad.yaml --stats json");
  CHECK(bad.exit_code == 2);
  REQUIRE_NOTHROW(report = nlohmann::json::parse(bad.err));
  CHECK(report["failure"]["kind"] == "BAD_INPUT");
  REQUIRE(report["failure"]["diagnostics"].size() >= 1);
  CHECK(report["failure"]["diagnostics"][0]["line"].get<int>() > 0);

  RunResult ok = run_shardplan("plan --config " + kQuickstartConfig + " --stats json -o /dev/null");
  CHECK(ok.exit_code == 0);
  REQUIRE_NOTHROW(report = nlohmann::json::parse(ok.err));
  CHECK_FALSE(report.contains("failure"));
}

TEST_CASE("plan: a failed run removes an earlier plan at -o FILE", "[app][plan][stale]") {
  const std::string out = scratch_prefix() + "stale-plan.json";
  auto plant_old_plan = [&] {
    RunResult first = run_shardplan("plan --config " + kQuickstartConfig + " --stats none -o " + out);
    REQUIRE(first.exit_code == 0);
    REQUIRE(fs::exists(out));
  };
  plant_old_plan();
  RunResult infeasible =
      run_shardplan("plan --config " + kSourceDir + "/configs/examples/infeasible.yaml --stats none -o " + out);
  CHECK(infeasible.exit_code == 1);
  CHECK_FALSE(fs::exists(out));

  plant_old_plan();
  RunResult bad = run_shardplan("plan --config " + kSourceDir + "/configs/examples/bad.yaml -o " + out);
  CHECK(bad.exit_code == 2);
  CHECK_FALSE(fs::exists(out));

  plant_old_plan();
  RunResult bad_flag = run_shardplan("plan --config " + kQuickstartConfig + " --batch-size 0 -o " + out);
  CHECK(bad_flag.exit_code == 2);
  CHECK_FALSE(fs::exists(out));

  // An input file named as the output is never removed.
  const std::string input = write_scratch("stale-input.json", slurp(kQuickstartConfig));
  RunResult self = run_shardplan("plan --config " + input + " --batch-size 0 -o " + input);
  CHECK(self.exit_code == 2);
  CHECK(slurp(input) == slurp(kQuickstartConfig));
}

TEST_CASE("plan: --hbm-cap / --ddr-cap on a topology with per-rank caps is an error", "[app][plan][overrides]") {
  const std::string topology = write_scratch("custom-caps-topology.yaml",
                                             "world_size: 2\n"
                                             "hbm_cap: 16 GiB\n"
                                             "custom:\n"
                                             "  hbm_cap: [8 GiB, 16 GiB]\n");
  const std::string model = kSourceDir + "/configs/dlrm-criteo-terabyte.yaml";
  RunResult r = run_shardplan("plan --model " + model + " --topology " + topology + " --hbm-cap '80 GiB' --stats none");
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "error: --hbm-cap: the topology sets per-rank HBM in custom.hbm_cap, which wins over a uniform cap; "
        "edit custom.hbm_cap or drop it\n");
  CHECK(r.out.empty());
  // DDR is not per rank in this topology: --ddr-cap applies.
  RunResult ddr =
      run_shardplan("plan --model " + model + " --topology " + topology + " --ddr-cap '256 GiB' --stats none");
  CHECK(ddr.exit_code != 2);
}

}  // namespace
}  // namespace shardplan::testing
