// scripts/torchrec_to_config.py: torchrec-shaped objects become a shardplan case that
// validates and plans with the real binary. Stand-ins (tests/scripts/torchrec_stand_ins.py,
// torchrec's attribute names and enum kinds) run everywhere; real torchrec objects
// (torchrec_real.py) only where torch and torchrec import, else the test says it skipped.
#include <sys/wait.h>
#include <catch2/catch.hpp>
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

// Runs the converter on `module:function`; returns its exit code.
int convert(const std::string& source, const std::string& out) {
  const std::string command = "PYTHONPATH='" + kSourceDir + "/tests/scripts:" + kSourceDir + "/scripts' python3 '" +
                              kSourceDir + "/scripts/torchrec_to_config.py' " + source + " '" + out + "' >'" + out +
                              ".log' 2>&1";
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

TEST_CASE("torchrec_to_config: torchrec-shaped modules, constraints and topology plan with shardplan",
          "[scripts][torchrec]") {
  const std::string out = scratch_prefix() + "from_torchrec_stand_ins.json";
  REQUIRE(convert("torchrec_stand_ins:model", out) == 0);
  const nlohmann::json c = nlohmann::json::parse(slurp(out));
  const auto& modules = c["model"]["modules"];
  REQUIRE(modules.size() == 2);
  CHECK(modules[0]["path"] == "sparse.ebc");
  CHECK(modules[0]["kind"] == "embedding_bag");
  CHECK(modules[0]["tables"][1] == nlohmann::json::parse(R"({"name": "t_item", "num_embeddings": 500000,
      "embedding_dim": 32, "data_type": "fp16", "feature_names": ["item_id", "item_seen"]})"));
  CHECK(modules[1]["kind"] == "embedding");
  CHECK_FALSE(modules[1]["tables"][0].contains("feature_names"));  // none given: shardplan's default
  CHECK(c["model"]["batch_size"] == 256);
  CHECK(c["model"]["constraints"]["t_user"] == nlohmann::json::parse(R"({"sharding_types": ["row_wise", "table_wise"],
      "compute_kernels": ["fused_uvm_caching"], "pooling_factors": [4.0],
      "cache_params": {"algorithm": "lfu", "load_factor": 0.25}})"));
  const std::int64_t gib = 1024LL * 1024 * 1024;
  CHECK(c["topology"]["custom"]["hbm_cap"] == std::vector<std::int64_t>{16 * gib, 8 * gib});
  CHECK(c["topology"]["hbm_mem_bw"].get<double>() == Approx(897.0 * gib / 1000));
  CHECK(c["planner"] == nlohmann::json::object());

  RunResult valid = run_shardplan("validate " + out);
  CHECK(valid.exit_code == 0);
  CHECK(valid.out == out + ": ok (case)\n");
  RunResult planned = run_shardplan("plan --config " + out + " --stats none");
  REQUIRE(planned.exit_code == 0);
  const nlohmann::json plan = nlohmann::json::parse(planned.out);
  const std::string user_type = plan["plan"]["sparse.ebc"]["t_user"]["sharding_type"];
  CHECK((user_type == "row_wise" || user_type == "table_wise"));  // the constraint held
  CHECK(plan["plan"]["sparse.ec"].contains("t_hist"));
}

TEST_CASE("torchrec_to_config: real torchrec objects, where torchrec imports", "[scripts][torchrec]") {
  const std::string out = scratch_prefix() + "from_torchrec.json";
  const int code = convert("torchrec_real:model", out);
  if (code == 3) {
    WARN("\n*** torch/torchrec not importable (" << slurp(out + ".log")
                                                 << "): REAL-TORCHREC CONVERSION TEST SKIPPED ***\n");
    note_parity_skipped();
    return;
  }
  INFO(slurp(out + ".log"));
  REQUIRE(code == 0);
  RunResult valid = run_shardplan("validate " + out);
  CHECK(valid.exit_code == 0);
  RunResult planned = run_shardplan("plan --config " + out + " --stats none");
  REQUIRE(planned.exit_code == 0);
  const nlohmann::json plan = nlohmann::json::parse(planned.out);
  CHECK(plan["plan"]["sparse.ebc"]["t_user"]["sharding_type"] == "row_wise");
}

}  // namespace
}  // namespace shardplan::testing
