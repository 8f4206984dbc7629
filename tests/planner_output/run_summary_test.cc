// The summary `shardplan plan` prints by default, through the real binary: its
// layout (the lines in order, each within 100 columns) and every number in it
// against the same field of `--stats json` for the same inputs.
#include <catch2/catch.hpp>
#include <cmath>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "config/config_test_util.h"
#include "planner/stats_report.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

constexpr double kGiBytes = 1024.0 * 1024.0 * 1024.0;

// The line matching `pattern` (whole line), its groups; fails the test if absent.
std::smatch match_line(const std::string& line, const std::string& pattern) {
  std::smatch m;
  INFO("line: " << line << "\npattern: " << pattern);
  CHECK(std::regex_match(line, m, std::regex(pattern)));
  return m;
}

double number(const std::smatch& m, std::size_t i) { return std::stod(m[i].str()); }

// Checks that `summary` says what `stats` (the --stats json report) says.
void check_summary(const std::string& summary, const nlohmann::json& stats, const std::string& destination) {
  const std::vector<std::string> lines = split_lines(summary);
  for (const auto& line : lines) CHECK(line.size() <= 100);
  REQUIRE(lines.size() >= 6);
  std::size_t at = 0;

  // plan: N tables on W ranks (cuda); P proposals tried, F feasible
  auto head =
      match_line(lines[at++], R"(plan: (\d+) tables on (\d+) ranks \((\w+)\); (\d+) proposals tried, (\d+) feasible)");
  CHECK(std::stoul(head[1]) == stats["parameters"].size());
  CHECK(std::stoi(head[2]) == stats["world_size"].get<int>());
  CHECK(std::stol(head[4]) == stats["num_proposals"].get<long>());
  CHECK(std::stol(head[5]) == stats["num_plans"].get<long>());

  // One row per sharding type x kernel, with the number of tables, as the
  // parameter table of EmbeddingStats counts them.
  std::map<std::string, std::string> type_of_abbr;
  for (const auto& entry : kShardingTypeNames) type_of_abbr[sharding_type_abbr(entry.value)] = std::string(entry.name);
  std::map<std::pair<std::string, std::string>, int> expected_kinds;
  for (const auto& p : stats["parameters"]) ++expected_kinds[{type_of_abbr.at(p["sharding"]), p["compute_kernel"]}];
  CHECK(lines[at++] == "tables  sharding type       compute kernel       count");
  std::map<std::pair<std::string, std::string>, int> shown_kinds;
  while (at < lines.size() && lines[at].rfind("        ", 0) == 0) {
    auto row = match_line(lines[at++], R"( {8}(\w+) +(\w+) +(\d+))");
    shown_kinds[{row[1], row[2]}] = std::stoi(row[3]);
  }
  CHECK(shown_kinds == expected_kinds);

  // perf    max-rank X ms on rank R (mean M ms; max D% over the mean)
  REQUIRE(at < lines.size());
  auto perf = match_line(
      lines[at++], R"(perf    max-rank ([\d.]+) ms on rank (\d+) \(mean ([\d.]+) ms; max (-?[\d.]+)% over the mean\))");
  CHECK(std::abs(number(perf, 1) - stats["perf"]["max_total"]["value"].get<double>()) <= 0.5e-4);
  CHECK(std::stoi(perf[2]) == stats["perf"]["max_total"]["ranks"][0].get<int>());
  CHECK(std::abs(number(perf, 3) - stats["perf"]["mean_total"].get<double>()) <= 0.5e-4);
  CHECK(std::abs(number(perf, 4) - stats["perf"]["max_total_over_mean_pct"].get<double>()) <= 0.05);

  // HBM / DDR: max used bytes, its rank, the capacity the ratio is taken of, the ratio.
  for (const char* kind : {"HBM", "DDR"}) {
    REQUIRE(at < lines.size());
    const bool hbm = std::string(kind) == "HBM";
    auto m = match_line(
        lines[at++], std::string(kind) + R"( {5}max ([\d.]+) GiB on rank (\d+) of ([\d.]+) GiB usable \(([\d.]+)%\))");
    const auto& ranks = stats["ranks"];
    std::size_t top = 0;
    const char* used_key = hbm ? "used_hbm" : "used_ddr";
    const char* ratio_key = hbm ? "hbm_ratio" : "ddr_ratio";
    for (std::size_t r = 0; r < ranks.size(); ++r)
      if (ranks[r][used_key].get<double>() > ranks[top][used_key].get<double>()) top = r;
    const double used = ranks[top][used_key].get<double>(), ratio = ranks[top][ratio_key].get<double>();
    CHECK(std::abs(number(m, 1) - used / kGiBytes) <= 0.005);
    CHECK(std::stoul(m[2]) == top);
    // Both example topologies give every rank the same capacity: the report's usable
    // figures (rank 0's) are the top rank's too.
    const double usable = stats["reservation"][hbm ? "usable_hbm" : "usable_ddr"].get<double>();
    CHECK(std::abs(number(m, 3) - usable / kGiBytes) <= 0.005);
    if (ratio > 0) CHECK(std::abs(used / ratio - usable) <= 1e-6 * usable);  // the same capacity
    CHECK(std::abs(number(m, 4) - ratio * 100) <= 0.05);
  }
  // bound   lower bound B ms (NAME); the plan is G% above it
  REQUIRE(at < lines.size());
  auto bound = match_line(lines[at++], R"(bound   lower bound ([\d.]+) ms \((\w+)\); the plan is ([\d.]+)% above it)");
  const auto& lower = stats["lower_bound"];
  CHECK(std::abs(number(bound, 1) - lower["value"].get<double>()) <= 0.5e-4);
  CHECK(bound[2] == lower["binding"].get<std::string>());
  CHECK(std::abs(number(bound, 3) - lower["gap"].get<double>() * 100) <= 0.05);
  REQUIRE(at < lines.size());
  CHECK(lines[at++] == "plan    written to " + destination);
  CHECK(at == lines.size());
}

TEST_CASE("plan: the default summary shows the --stats json figures within 100 columns", "[output][summary]") {
  const std::vector<std::string> inputs = {
      "--config " + kSourceDir + "/configs/quickstart.json",
      "--model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
          "/configs/topology-2x8-80g.yaml",
  };
  for (const auto& input : inputs) {
    INFO(input);
    const std::string out = scratch_prefix() + "summary-plan.json";
    RunResult summary = run_shardplan("plan " + input + " -o " + out);
    RunResult json = run_shardplan("plan " + input + " --stats json -o /dev/null");
    REQUIRE(summary.exit_code == 0);
    REQUIRE(json.exit_code == 0);
    INFO("summary:\n" << summary.err);
    check_summary(summary.err, nlohmann::json::parse(json.err), out);
    // `--stats summary` is the default.
    RunResult named = run_shardplan("plan " + input + " --stats summary -o " + out);
    CHECK(named.err == summary.err);
  }
}

TEST_CASE("plan: --stats torchrec and its old name text print EmbeddingStats", "[output][summary]") {
  const std::string input = "--config " + kSourceDir + "/configs/quickstart.json -o /dev/null";
  RunResult torchrec = run_shardplan("plan " + input + " --stats torchrec");
  RunResult text = run_shardplan("plan " + input + " --stats text");
  REQUIRE(torchrec.exit_code == 0);
  CHECK(torchrec.err.find("--- Planner Statistics ---") != std::string::npos);
  // The same table (the line count; the run time torchrec prints differs).
  CHECK(split_lines(torchrec.err).size() == split_lines(text.err).size());
  RunResult none = run_shardplan("plan " + input + " --stats none");
  CHECK(none.err.empty());
  RunResult bad = run_shardplan("plan " + input + " --stats yaml");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "error: --stats: expected summary, torchrec, json, none or text, found 'yaml'\n");
}

TEST_CASE("plan: a failed run prints no summary, only its error", "[output][summary]") {
  RunResult r = run_shardplan("plan --config " + kSourceDir + "/configs/examples/infeasible.yaml");
  CHECK(r.exit_code == 1);
  CHECK(r.err.rfind("error: no feasible plan (INSUFFICIENT_STORAGE, after ", 0) == 0);
}

}  // namespace
}  // namespace shardplan::testing
