// `shardplan explain`, from the real binary: the winner is the table's placement in
// the plan file `plan` writes for the same input; every loss reason appears where
// the input makes it happen (rated worse, did not fit on any rank, excluded by a
// constraint, never proposed); JSON validates; text stays within 100 columns;
// unknown tables get "did you mean".
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "config/config_test_util.h"
#include "planner/advice/table_explanation.h"
#include "support/golden.h"
#include "support/json_schema.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

nlohmann::json explain_json(const std::string& args) {
  RunResult r = run_shardplan("explain " + args + " --format json");
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& p : schema_errors(load_schema("explain.schema.json"), doc)) FAIL_CHECK(p);
  return doc;
}

// Verdict per "sharding_type/compute_kernel" of the one explained table.
std::map<std::string, std::string> verdicts(const nlohmann::json& doc) {
  std::map<std::string, std::string> out;
  for (const auto& o : doc["tables"][0]["options"])
    out[o["sharding_type"].get<std::string>() + "/" + o["compute_kernel"].get<std::string>()] = o["verdict"];
  return out;
}

TEST_CASE("explain: the winner is the plan file's placement, for every table", "[app][explain]") {
  const std::string plan_path = scratch_prefix() + "explain_plan.json";
  REQUIRE(run_shardplan("plan --config " + kQuickstartConfig + " --stats none -o " + plan_path).exit_code == 0);
  const nlohmann::json plan = nlohmann::json::parse(slurp(plan_path));
  int tables = 0;
  for (const auto& [path, module] : plan["plan"].items()) {
    for (const auto& [name, placed] : module.items()) {
      ++tables;
      const nlohmann::json doc = explain_json("--config " + kQuickstartConfig + " --table " + path + "." + name);
      const nlohmann::json& table = doc["tables"][0];
      INFO(path << "." << name);
      CHECK(table["fqn"] == path + "." + name);
      CHECK(table["chosen"]["sharding_type"] == placed["sharding_type"]);
      CHECK(table["chosen"]["compute_kernel"] == placed["compute_kernel"]);
      CHECK(table["chosen"]["ranks"] == placed["ranks"]);
      CHECK(doc["plan_rating"] == plan["summary"]["perf_rating"]);
      // Where the bottleneck is: the plan's most loaded rank, at the plan's rating.
      CHECK(doc["bottleneck"]["perf"].get<double>() ==
            Approx(plan["summary"]["perf_rating"].get<double>()).epsilon(1e-12));
      CHECK(doc["lower_bound"] == plan["summary"]["lower_bound"]);
      int chosen = 0;
      for (const auto& o : table["options"]) {
        if (o["verdict"] != "chosen") continue;
        ++chosen;
        for (std::size_t i = 0; i < o["shards"].size(); ++i)
          CHECK(o["shards"][i]["rank"] == placed["shards"][i]["rank"]);
      }
      CHECK(chosen == 1);
      // The margin is the gap to the best rating seen with another option.
      double best_other = 1e300;
      for (const auto& o : table["options"])
        if (o["verdict"] == "rated_worse") best_other = std::min(best_other, o["best_rating"].get<double>());
      if (best_other < 1e300) CHECK(table["margin"].get<double>() == best_other - doc["plan_rating"].get<double>());
    }
  }
  CHECK(tables == 4);
}

TEST_CASE("explain: the text names the bottleneck rank and the lower bound", "[app][explain]") {
  RunResult text = run_shardplan("explain --config " + kQuickstartConfig + " --table sparse.ebc.t_query");
  RunResult stats = run_shardplan("plan --config " + kQuickstartConfig + " --stats json -o /dev/null");
  REQUIRE(text.exit_code == 0);
  REQUIRE(stats.exit_code == 0);
  const nlohmann::json report = nlohmann::json::parse(stats.err);
  const std::vector<std::string> lines = split_lines(text.out);
  auto at =
      std::find_if(lines.begin(), lines.end(), [](const std::string& l) { return l.rfind("bottleneck: ", 0) == 0; });
  REQUIRE(at != lines.end());
  std::smatch m;
  REQUIRE(std::regex_match(
      *at, m,
      std::regex(R"(bottleneck: rank (\d+) at ([\d.]+) ms \(mean ([\d.]+) ms, (\d+) tables\); heaviest tables:)")));
  CHECK(std::stoi(m[1]) == report["perf"]["max_total"]["ranks"][0].get<int>());
  CHECK(std::stod(m[2]) == Approx(report["perf"]["max_total"]["value"].get<double>()).margin(0.0005));
  CHECK(std::stod(m[3]) == Approx(report["perf"]["mean_total"].get<double>()).margin(0.0005));
  int heaviest = 0;
  for (auto it = at + 1; it != lines.end() && it->rfind("  ", 0) == 0; ++it) ++heaviest;
  CHECK(heaviest == std::stoi(m[4]));  // quickstart's ranks hold fewer than 5 tables each
  REQUIRE(at + heaviest + 1 != lines.end());
  REQUIRE(std::regex_match(at[heaviest + 1], m,
                           std::regex(R"(lower bound ([\d.]+) ms \((\w+)\), plan ([\d.]+) ms, gap .*)")));
  CHECK(std::stod(m[1]) == Approx(report["lower_bound"]["value"].get<double>()).margin(0.0005));
  CHECK(m[2] == report["lower_bound"]["binding"].get<std::string>());
}

TEST_CASE("explain: rated worse and excluded by a constraint", "[app][explain]") {
  // t_query allows table_wise, row_wise and column_wise only.
  const auto doc = explain_json("--config " + kQuickstartConfig + " --table sparse.ebc.t_query");
  const auto v = verdicts(doc);
  CHECK(v.at("data_parallel/dense") == "excluded");
  CHECK(v.at("table_row_wise/fused") == "excluded");
  CHECK(v.at("row_wise/fused") == "rated_worse");
  for (const auto& o : doc["tables"][0]["options"]) {
    if (o["verdict"] == "excluded") {
      CHECK(o["excluded_by"] == nlohmann::json::array({"sharding_types"}));
      CHECK(o["proposals"] == 0);
    }
    if (o["verdict"] == "rated_worse") {
      CHECK(o["placed"].get<int>() > 0);
      CHECK(o["best_rating"].get<double>() >= doc["plan_rating"].get<double>());
    }
  }
}

TEST_CASE("explain: did not fit on any rank, and never proposed", "[app][explain]") {
  // 40M x 128 fp32 = 19 GiB: no 16 GiB GPU holds it whole in HBM; row-wise halves do.
  const std::string config = write_scratch("explain_fit.yaml", R"(model:
  name: fit
  modules:
    - path: ebc
      tables:
        - {name: wide, num_embeddings: 40000000, embedding_dim: 128}
        - {name: small, num_embeddings: 1000, embedding_dim: 64}
topology: {world_size: 2, compute_device: cuda, hbm_cap: 16 GiB}
planner: {}
)");
  const auto v = verdicts(explain_json("--config " + config + " --table ebc.wide"));
  CHECK(v.at("table_wise/fused") == "did_not_fit");
  CHECK(v.at("data_parallel/dense") == "did_not_fit");
  CHECK(v.at("table_wise/fused_uvm") == "rated_worse");
  // The uniform proposer proposes one option per sharding type: the others never come up.
  const auto uniform = verdicts(explain_json("--config " + kQuickstartConfig + " --table t_user --proposers uniform"));
  CHECK(uniform.at("table_wise/fused_uvm") == "never_proposed");
  CHECK(uniform.at("data_parallel/dense") == "never_proposed");

  RunResult text = run_shardplan("explain --config " + config + " --table ebc.wide");
  REQUIRE(text.exit_code == 0);
  CHECK(text.out.find("\n      did not fit on any rank (largest free rank 13.60 GiB HBM)\n") != std::string::npos);
  RunResult never = run_shardplan("explain --config " + kQuickstartConfig + " --table t_user --proposers uniform");
  CHECK(never.out.find("\n      never proposed\n") != std::string::npos);
  RunResult quick = run_shardplan("explain --config " + kQuickstartConfig + " --table t_query");
  CHECK(quick.out.find("\n      excluded by a constraint: sharding_types\n") != std::string::npos);
  CHECK(quick.out.find("\n      rated worse: best with it ") != std::string::npos);
  for (const RunResult* r : {&text, &never, &quick})
    for (const auto& line : split_lines(r->out)) CHECK(line.size() <= 100);
}

TEST_CASE("explain: an infeasible model without --table explains its failing tables", "[app][explain]") {
  RunResult r = run_shardplan("explain --config " + kSourceDir + "/configs/examples/infeasible.yaml --format json");
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("error: no feasible plan (INSUFFICIENT_STORAGE", 0) == 0);
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& p : schema_errors(load_schema("explain.schema.json"), doc)) FAIL_CHECK(p);
  REQUIRE(doc["tables"].size() == 1);
  CHECK(doc["tables"][0]["fqn"] == "ebc.huge");
  CHECK(doc["tables"][0]["chosen"].is_null());
  CHECK(doc["plan_rating"].is_null());
  for (const auto& o : doc["tables"][0]["options"]) CHECK(o["verdict"] == "did_not_fit");
}

TEST_CASE("explain: an infeasible model whose tables each fit says to name one", "[app][explain]") {
  // Ten 3.8 GiB tables held in HBM (fused only) on 2 GPUs of 16 GiB: short in all, each fits.
  std::string tables, constraints;
  for (int i = 0; i < 10; ++i) {
    tables += "        - {name: t" + std::to_string(i) + ", num_embeddings: 4000000, embedding_dim: 256}\n";
    constraints += "    t" + std::to_string(i) + ": {compute_kernels: [fused]}\n";
  }
  const std::string config =
      write_scratch("explain_short.yaml",
                    "model:\n  name: short\n  modules:\n    - path: ebc\n"
                    "      tables:\n" +
                        tables + "  constraints:\n" + constraints + "topology: {world_size: 2, hbm_cap: 16 GiB}\n");
  RunResult r = run_shardplan("explain --config " + config);
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(split_lines(r.err).back() == "note: every table fits a rank on its own; name one with --table to explain it");
  RunResult one = run_shardplan("explain --config " + config + " --table t3 --format json");
  CHECK(one.exit_code == 1);
  const nlohmann::json doc = nlohmann::json::parse(one.out);
  CHECK(doc["tables"][0]["fqn"] == "ebc.t3");
  for (const auto& o : doc["tables"][0]["options"])
    CHECK((o["verdict"] == "did_not_fit" || o["verdict"] == "excluded" || o["verdict"] == "never_proposed"));
}

TEST_CASE("explain: bad --table and --format are positioned errors", "[app][explain]") {
  RunResult typo = run_shardplan("explain --config " + kQuickstartConfig + " --table t_qeury");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err == "error: --table: unknown table 't_qeury', did you mean 'sparse.ebc.t_query'?\n");
  CHECK(typo.out.empty());
  RunResult missing = run_shardplan("explain --config " + kQuickstartConfig);
  CHECK(missing.exit_code == 2);
  CHECK(missing.err.rfind("error: --table: expected the table to explain", 0) == 0);
  RunResult format = run_shardplan("explain --config " + kQuickstartConfig + " --table t_user --format xml");
  CHECK(format.exit_code == 2);
  CHECK(format.err == "error: --format: expected text or json, found 'xml'\n");
  RunResult help = run_shardplan("explain --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("shardplan explain --config configs/quickstart.json --table sparse.ebc.t_query") !=
        std::string::npos);
}

TEST_CASE("explain: the schema's verdicts are the name table's", "[app][explain][schema]") {
  const nlohmann::json schema = load_schema("explain.schema.json");
  std::vector<std::string> names;
  for (const auto& entry : kOptionVerdictNames) names.emplace_back(entry.name);
  CHECK(schema["properties"]["tables"]["items"]["properties"]["options"]["items"]["properties"]["verdict"]["enum"] ==
        nlohmann::json(names));
}

}  // namespace
}  // namespace shardplan::testing
