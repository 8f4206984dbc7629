// `shardplan diff OLD NEW --report diff.html` through the real binary: one
// self-contained page with both plans' headline figures, the tables that moved
// (counted here from the two plan files), and both plans side by side.
#include <catch2/catch.hpp>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>
#include <string>
#include <vector>

#include "config/config_test_util.h"
#include "support/regex_count.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;

TEST_CASE("diff --report: both plans side by side and the tables that moved", "[output][report][diff]") {
  const std::string old_path = scratch_prefix() + "diffreport_old.json";
  const std::string new_path = scratch_prefix() + "diffreport_new.json";
  const std::string report_path = scratch_prefix() + "diffreport.html";
  fs::remove(report_path);
  const std::string model = "plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --stats none ";
  REQUIRE(
      run_shardplan(model + "--topology " + kSourceDir + "/configs/topology-1x8-80g.yaml -o " + old_path).exit_code ==
      0);
  REQUIRE(
      run_shardplan(model + "--topology " + kSourceDir + "/configs/topology-2x8-80g.yaml -o " + new_path).exit_code ==
      0);
  const RunResult r =
      run_shardplan("diff " + old_path + " " + new_path + " --tolerance 10000% --report " + report_path);
  CHECK(r.exit_code == 0);
  const std::string html = slurp(report_path);
  CHECK(html.rfind("<!DOCTYPE html>\n", 0) == 0);
  CHECK(count_matches(html, std::regex("<script|<link|<img|src=|href=|@import|url\\(")) == 0);

  // The tables that moved, worked out from the two files: sharding type, kernel or ranks differ.
  const nlohmann::json before = nlohmann::json::parse(slurp(old_path));
  const nlohmann::json after = nlohmann::json::parse(slurp(new_path));
  std::set<std::string> moved;
  for (const auto& [path, tables] : after["plan"].items())
    for (const auto& [name, table] : tables.items()) {
      const auto& old_table = before["plan"][path][name];
      std::set<int> old_ranks, new_ranks;
      for (const auto& s : old_table["shards"]) old_ranks.insert(s["rank"].get<int>());
      for (const auto& s : table["shards"]) new_ranks.insert(s["rank"].get<int>());
      if (old_table["sharding_type"] != table["sharding_type"] ||
          old_table["compute_kernel"] != table["compute_kernel"] || old_ranks != new_ranks)
        moved.insert(path + "." + name);
    }
  REQUIRE_FALSE(moved.empty());  // 8 ranks against 16: the layout changes
  CHECK(html.find("<span id=\"moved-count\">" + std::to_string(moved.size()) + "</span>") != std::string::npos);
  CHECK(count_matches(html, std::regex("<tr class=\"moved\" data-table=\"")) == static_cast<int>(moved.size()));
  for (const auto& table : moved)
    CHECK(html.find("<tr class=\"moved\" data-table=\"" + table + "\">") != std::string::npos);

  // Side by side: each plan's header (figures under its own prefix) and every rank.
  CHECK(html.find("id=\"old-max-rank-perf\" data-value=\"" + before["summary"]["max_rank_perf"].dump() + "\"") !=
        std::string::npos);
  CHECK(html.find("id=\"new-max-rank-perf\" data-value=\"" + after["summary"]["max_rank_perf"].dump() + "\"") !=
        std::string::npos);
  CHECK(count_matches(html, std::regex("<g class=\"rank\" data-rank=")) == 8 + 16);
  CHECK(html.find("<div class=\"pair\">") != std::string::npos);

  // The per-rank views, one above the other at the page's width, share their axes: the
  // same tick labels in both, though 16 ranks carry less each than 8.
  std::vector<std::string> ticks;
  const std::regex tick("<text class=\"tick\"[^>]*>([^<]*)</text>");
  for (std::size_t start = html.find("<svg class=\"chart\""); start != std::string::npos;
       start = html.find("<svg class=\"chart\"", start + 1)) {
    const std::string svg = html.substr(start, html.find("</svg>", start) - start);
    std::string labels;
    for (auto t = std::sregex_iterator(svg.begin(), svg.end(), tick); t != std::sregex_iterator(); ++t)
      labels += std::string((*t)[1]) + " ";
    ticks.push_back(labels);
  }
  REQUIRE(ticks.size() == 2);
  CHECK(ticks[0] == ticks[1]);
  CHECK(html.find("<div class=\"ranks\" id=\"old-ranks\">") < html.find("<div class=\"ranks\" id=\"new-ranks\">"));
}

}  // namespace
}  // namespace shardplan::testing
