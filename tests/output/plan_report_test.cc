// `shardplan plan --report FILE`: the real binary writes one self-contained HTML page
// whose SVG has a column per rank, and whose shard boxes carry the plan file's bytes.
#include <catch2/catch.hpp>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>

#include "config/config_test_util.h"
#include "output/plan_report.h"
#include "support/regex_count.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {


TEST_CASE("plan --report: one column per rank, shard boxes add up to the plan's per-rank storage", "[output][report]") {
  const std::string plan_path = scratch_prefix() + "report_plan.json";
  const std::string report_path = scratch_prefix() + "report.html";
  std::filesystem::remove(report_path);
  RunResult r = run_shardplan("plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
                              "/configs/topology-1x8-80g.yaml --stats none -o " + plan_path + " --report " + report_path);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json plan = nlohmann::json::parse(slurp(plan_path));
  const std::string html = slurp(report_path);

  CHECK(html.rfind("<!DOCTYPE html>\n", 0) == 0);
  CHECK(html.size() > 1000);
  // Self-contained: nothing fetched, nothing run.
  CHECK(count_matches(html, std::regex("<script|<link|<img|src=|href=|@import|url\\(")) == 0);
  const int world = plan["topology"]["world_size"].get<int>();
  CHECK(count_matches(html, std::regex("<g class=\"rank\" data-rank=\"\\d+\">")) == world);
  CHECK(count_matches(html, std::regex("<line class=\"usable\"")) == 2 * world);

  // Sum the boxes' bytes per rank and kind; each rank's group runs to its "</g>".
  std::map<std::pair<int, std::string>, std::int64_t> bytes;
  const std::regex group("<g class=\"rank\" data-rank=\"(\\d+)\">([^]*?)</g>");
  const std::regex shard("<rect class=\"shard\" data-kind=\"(hbm|ddr)\" data-bytes=\"(\\d+)\"");
  int shard_boxes = 0;
  for (auto g = std::sregex_iterator(html.begin(), html.end(), group); g != std::sregex_iterator(); ++g) {
    const int rank = std::stoi((*g)[1]);
    const std::string inner = (*g)[2];
    for (auto s = std::sregex_iterator(inner.begin(), inner.end(), shard); s != std::sregex_iterator(); ++s) {
      bytes[{rank, (*s)[1]}] += std::stoll((*s)[2]);
      ++shard_boxes;
    }
  }
  for (int rank = 0; rank < world; ++rank) {
    INFO("rank " << rank);
    std::int64_t hbm = 0, ddr = 0;
    for (const auto& [path, tables] : plan["plan"].items())
      for (const auto& [name, table] : tables.items())
        for (const auto& s : table["shards"])
          if (s["rank"] == rank) {
            hbm += s["storage"]["hbm"].get<std::int64_t>();
            ddr += s["storage"]["ddr"].get<std::int64_t>();
          }
    CHECK(bytes[{rank, "hbm"}] == hbm);
    CHECK(bytes[{rank, "ddr"}] == ddr);
  }
  CHECK(shard_boxes > world);
  // Hover text names the table, its sharding type and kernel.
  CHECK(std::regex_search(html, std::regex("<title>sparse\\.ebc\\.t_cat_0 \\([a-z_]+, [a-z_]+\\) on rank \\d+: HBM ")));
}

TEST_CASE("plan --report: no plan, no report file", "[output][report]") {
  const std::string report_path = scratch_prefix() + "report_infeasible.html";
  std::filesystem::remove(report_path);
  RunResult r = run_shardplan("plan --config " + kSourceDir + "/configs/examples/infeasible.yaml --stats none --report " +
                              report_path);
  CHECK(r.exit_code == 1);
  CHECK_FALSE(std::filesystem::exists(report_path));
}

TEST_CASE("plan report: a table name is escaped in the page", "[output][report]") {
  PlanPicture picture;
  picture.model = "m<1>";
  ReportRank rank;
  rank.hbm_capacity = 100;
  rank.hbm_usable = 80;
  rank.shards.push_back({"ebc.t&<x>", "table_wise", "fused", 10, 0, 0.5});
  picture.ranks.push_back(rank);
  const std::string html = render_plan_report_html(picture);
  CHECK(html.find("ebc.t&amp;&lt;x&gt;") != std::string::npos);
  CHECK(html.find("t&<x>") == std::string::npos);
  CHECK(html.find("<title>shardplan: m&lt;1&gt;</title>") != std::string::npos);
}

}  // namespace
}  // namespace shardplan::testing
