// `shardplan diff` and `shardplan show` through the real binary: exit codes of the
// gate (tolerance, --fail-on), the provenance line, the three formats, positioned
// errors for files that are not plans. docs/ci.md's recipes: ci_recipes_test.cc.
#include <sys/wait.h>
#include <algorithm>
#include <catch2/catch.hpp>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;
const std::string kDiffInputs = "--config " + kQuickstartConfig + " --stats none";

// Plans the quickstart with `flags` into scratch file `name`; returns its path.
std::string plan_to(const std::string& name, const std::string& flags) {
  const std::string path = scratch_prefix() + name;
  RunResult r = run_shardplan("plan " + kDiffInputs + " " + flags + " -o " + path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return path;
}

nlohmann::json plan_json(const std::string& path) { return nlohmann::json::parse(slurp(path)); }

TEST_CASE("diff: identical plans pass, say the inputs are the same, and change nothing", "[app][diff]") {
  const std::string a = plan_to("diff-a.json", ""), b = plan_to("diff-b.json", "--threads 1");
  RunResult r = run_shardplan("diff " + a + " " + b);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK(r.err.empty());
  CHECK(r.out.find("inputs  same inputs, same tool version (" +
                   plan_json(a)["shardplan"]["version"].get<std::string>() + ")\n") != std::string::npos);
  CHECK(r.out.find("tables  0 changed, 0 added, 0 removed, 4 unchanged\n") != std::string::npos);
  CHECK(r.out.find("gate    pass (tolerance 0.00%)\n") != std::string::npos);
  for (const auto& line : split_lines(r.out)) CHECK(line.size() <= 100);
  RunResult j = run_shardplan("diff " + a + " " + b + " --format json");
  REQUIRE(j.exit_code == 0);
  auto doc = nlohmann::json::parse(j.out);
  CHECK(doc["inputs"] == "same");
  CHECK(doc["tables"].empty());
  CHECK(doc["gate"]["result"] == "pass");
  CHECK(doc["summary"]["max_rank_perf"]["delta"] == 0.0);
}

TEST_CASE("diff: a max-rank perf regression exits 1 unless within --tolerance", "[app][diff]") {
  // A larger batch makes every lookup dearer: the same tables, slower ranks.
  const std::string base = plan_to("diff-base.json", "");
  const std::string slow = plan_to("diff-slow.json", "--batch-size 4096");
  const double old_perf = plan_json(base)["summary"]["max_rank_perf"],
               new_perf = plan_json(slow)["summary"]["max_rank_perf"];
  REQUIRE(new_perf > old_perf);
  const double rise = new_perf / old_perf - 1;

  RunResult r = run_shardplan("diff " + base + " " + slow + " --format json");
  CHECK(r.exit_code == 1);
  auto doc = nlohmann::json::parse(r.out);
  CHECK(doc["inputs"] == "different");
  CHECK(doc["gate"]["result"] == "fail");
  CHECK(doc["summary"]["max_rank_perf"]["old"] == old_perf);
  CHECK(doc["summary"]["max_rank_perf"]["new"] == new_perf);
  // Per-rank deltas add up to the plans' per-rank totals.
  for (const auto& rank : doc["ranks"]) {
    const int i = rank["rank"];
    CHECK(rank["perf"]["new"] == plan_json(slow)["per_rank"][i]["perf"]["total"]);
    // HBM used on the memory basis, an integer (bytes).
    CHECK(rank["hbm"]["old"] == plan_json(base)["memory"]["per_rank"][i]["hbm_used"]);
    CHECK(rank["hbm"]["old"].is_number_integer());
  }
  // As a percentage: a bare ratio above 1 would be refused.
  CHECK(run_shardplan("diff " + base + " " + slow + " --tolerance " + std::to_string(rise * 101) + "%").exit_code == 0);
  CHECK(run_shardplan("diff " + base + " " + slow + " --tolerance " + std::to_string(rise * 99) + "%").exit_code == 1);
  // An improvement is no regression.
  CHECK(run_shardplan("diff " + slow + " " + base).exit_code == 0);
  RunResult text = run_shardplan("diff " + base + " " + slow);
  CHECK(text.out.find("inputs  the inputs differ (sha256 ") != std::string::npos);
  CHECK(text.out.find("gate    FAIL (tolerance 0.00%)\n  max-rank perf regressed: ") != std::string::npos);
}

TEST_CASE("diff: --fail-on conditions", "[app][diff]") {
  const std::string base = plan_to("diff-cond-base.json", "");
  // Table-wise only for every table: some tables change sharding type.
  const std::string uniform = plan_to("diff-cond-uniform.json", "--proposers uniform");
  const auto old_plan = plan_json(base), new_plan = plan_json(uniform);
  int type_changes = 0;
  for (const auto& [name, table] : new_plan["plan"]["sparse.ebc"].items())
    type_changes += table["sharding_type"] != old_plan["plan"]["sparse.ebc"][name]["sharding_type"];
  RunResult lenient = run_shardplan("diff " + base + " " + uniform + " --tolerance 10000% --format json");
  REQUIRE(lenient.exit_code == 0);
  RunResult strict = run_shardplan("diff " + base + " " + uniform +
                                   " --tolerance 10000% --fail-on sharding-type-change --format json");
  CHECK(strict.exit_code == (type_changes > 0 ? 1 : 0));
  auto doc = nlohmann::json::parse(strict.out);
  int flagged = 0;
  for (const auto& t : doc["tables"]) flagged += t["sharding_type_changed"].get<bool>();
  CHECK(flagged == type_changes);

  // hbm-over against the usable HBM of the plan file's memory block: the same plan
  // twice, so only the condition can fail.
  double peak = 0;
  for (const auto& m : old_plan["memory"]["per_rank"])
    peak = std::max(peak, m["hbm_used"].get<double>() / m["hbm_usable"].get<double>());
  REQUIRE(peak > 0);
  CHECK(run_shardplan("diff " + base + " " + base + " --fail-on hbm-over=" + std::to_string(peak * 0.9)).exit_code ==
        1);
  CHECK(run_shardplan("diff " + base + " " + base + " --fail-on hbm-over=" + std::to_string(peak * 1.1)).exit_code ==
        0);
  CHECK(run_shardplan("diff " + base + " " + base + " --fail-on kernel-change,ranks-change --fail-on tables-change")
            .exit_code == 0);

  RunResult typo = run_shardplan("diff " + base + " " + base + " --fail-on sharding-typ-change");
  CHECK(typo.exit_code == 2);
  CHECK(typo.err ==
        "error: --fail-on: unknown condition 'sharding-typ-change', did you mean 'sharding-type-change'?\n");
  RunResult no_value = run_shardplan("diff " + base + " " + base + " --fail-on hbm-over");
  CHECK(no_value.exit_code == 2);
  CHECK(no_value.err ==
        "error: --fail-on: condition 'hbm-over' needs a ratio, e.g. 'hbm-over=90%', found 'hbm-over'\n");
}

TEST_CASE("diff: the inputs hash tells a tool upgrade from an input change", "[app][diff]") {
  const std::string base = plan_to("diff-tool-a.json", "");
  auto doc = plan_json(base);
  doc["shardplan"]["version"] = "0.0.1";
  const std::string older = write_scratch("diff-tool-old.json", doc.dump(2));
  RunResult r = run_shardplan("diff " + older + " " + base);
  CHECK(r.exit_code == 0);
  CHECK(r.out.find("inputs  same inputs; only the tool version differs (0.0.1 -> " +
                   plan_json(base)["shardplan"]["version"].get<std::string>() + ")") != std::string::npos);
  CHECK(run_shardplan("diff " + older + " " + base + " --fail-on inputs-change").exit_code == 0);
  doc.erase("shardplan");
  const std::string unrecorded = write_scratch("diff-tool-none.json", doc.dump(2));
  RunResult unknown = run_shardplan("diff " + unrecorded + " " + base + " --fail-on inputs-change");
  CHECK(unknown.exit_code == 1);
  CHECK(unknown.out.find("unknown whether the inputs differ: OLD records no inputs hash") != std::string::npos);
}

TEST_CASE("diff: markdown for a pull-request comment", "[app][diff]") {
  const std::string base = plan_to("diff-md-a.json", "");
  const std::string slow = plan_to("diff-md-b.json", "--batch-size 4096");
  RunResult r = run_shardplan("diff " + base + " " + slow + " --format markdown");
  CHECK(r.exit_code == 1);
  CHECK(r.out.rfind("### shardplan diff: ", 0) == 0);
  CHECK(r.out.find("| | old | new | change |\n|---|---:|---:|---:|\n| max-rank perf | ") != std::string::npos);
  CHECK(r.out.find("**Gate: FAIL**") != std::string::npos);
  CHECK(r.out.find("<details><summary>") != std::string::npos);
}

TEST_CASE("diff and show: a file that is not a plan is an error with the schema's words, positioned", "[app][diff]") {
  const std::string base = plan_to("diff-bad-a.json", "");
  const std::string model = kSourceDir + "/configs/dlrm-criteo-terabyte.yaml";
  RunResult not_plan = run_shardplan("diff " + base + " " + model);
  CHECK(not_plan.exit_code == 2);
  CHECK(not_plan.out.empty());
  // Positioned at the document's first key (line 6 of the model, after its comments).
  CHECK(std::regex_match(not_plan.err,
                         std::regex("error: " + model +
                                    R"(:\d+:1: schema: not a plan file: schemas/plan\.schema\.json requires )"
                                    R"("schema": "shardplan\.plan/v1", found no "schema" key\n)")));
  RunResult wrong = run_shardplan("show " + write_scratch("other.json", "{\"schema\": \"shardplan.enumerate/v1\"}"));
  CHECK(wrong.exit_code == 2);
  CHECK(wrong.err == "error: " + scratch_prefix() +
                         "other.json:1:12: schema: not a plan file: schemas/plan.schema.json requires \"schema\": "
                         "\"shardplan.plan/v1\", found \"shardplan.enumerate/v1\"\n");
  auto doc = plan_json(base);
  doc.erase("per_rank");
  doc["plan"]["sparse.ebc"]["t_user"]["sharding_type"] = "row_wize";
  doc["summary"]["extra"] = 1;  // allowed: the summary may gain lines
  doc["extra"] = 1;
  const std::string broken = write_scratch("diff-broken.json", doc.dump(2));
  RunResult r = run_shardplan("diff " + broken + " " + base);
  CHECK(r.exit_code == 2);
  const auto lines = split_lines(r.err);
  const std::regex positioned("error: " + broken + R"(:\d+:\d+: .*)");
  for (const auto& line : lines) CHECK(std::regex_match(line, positioned));
  auto mentions = [&](const std::string& text) { return r.err.find(text) != std::string::npos; };
  CHECK(mentions("per_rank: missing required key 'per_rank'") == false);  // the key path is the parent's
  CHECK(mentions(": missing required key 'per_rank'"));
  CHECK(mentions("plan.sparse.ebc.t_user.sharding_type: unknown sharding type 'row_wize', did you mean 'row_wise'?"));
  CHECK(mentions("extra: unknown key 'extra'"));
  CHECK_FALSE(mentions("summary.extra"));
  CHECK(run_shardplan("show " + broken).exit_code == 2);
  RunResult missing = run_shardplan("diff " + base + " " + scratch_prefix() + "no-such-plan.json");
  CHECK(missing.exit_code == 2);
}

TEST_CASE("show: one row per table and per rank within 100 columns", "[app][show]") {
  const std::string path = scratch_prefix() + "show-plan.json";
  RunResult planned = run_shardplan("plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " +
                                    kSourceDir + "/configs/topology-2x8-80g.yaml --stats none -o " + path);
  REQUIRE(planned.exit_code == 0);
  const auto plan = plan_json(path);
  RunResult r = run_shardplan("show " + path);
  REQUIRE(r.exit_code == 0);
  const auto lines = split_lines(r.out);
  for (const auto& line : lines) CHECK(line.size() <= 100);
  // Every table: its row names its kernel and total perf.
  for (const auto& [module, tables] : plan["plan"].items())
    for (const auto& [name, table] : tables.items()) {
      const std::string fqn = module + "." + name;
      auto at = std::find_if(lines.begin(), lines.end(), [&](const std::string& l) { return l.rfind(fqn, 0) == 0; });
      REQUIRE(at != lines.end());
      if (fqn.size() > 22) ++at;  // a long name has its own line
      CHECK(at->find(" " + table["compute_kernel"].get<std::string>() + " ") != std::string::npos);
      char perf[32];
      std::snprintf(perf, sizeof perf, "%.4f", table["total_perf"].get<double>());
      CHECK(at->size() >= std::strlen(perf));
      CHECK(at->substr(at->size() - std::strlen(perf)) == perf);
    }
  // Per rank: a perf bar scaled to the slowest rank, then the rank's total.
  double max_perf = 0;
  for (const auto& rank : plan["per_rank"]) max_perf = std::max(max_perf, rank["perf"]["total"].get<double>());
  const std::regex rank_row(R"( *(\d+)  ([#.!]{16}) +([\d.]+)  ([#.!]{16}) .*)");
  int rows = 0;
  for (const auto& line : lines) {
    std::smatch m;
    if (!std::regex_match(line, m, rank_row)) continue;
    const int rank = std::stoi(m[1]);
    REQUIRE(rank == rows);
    const double perf = plan["per_rank"][rank]["perf"]["total"];
    CHECK(std::abs(std::stod(m[3]) - perf) <= 0.5e-4);
    const auto filled = static_cast<long>(std::count(m[2].first, m[2].second, '#'));
    CHECK(filled == std::lround(perf / max_perf * 16));
    ++rows;
  }
  CHECK(rows == plan["topology"]["world_size"].get<int>());
}

}  // namespace
}  // namespace shardplan::testing
