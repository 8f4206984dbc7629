// `shardplan plan --report FILE`: the real binary writes one self-contained HTML page
// whose SVG has a column per rank, and whose shard boxes carry the plan file's bytes.
#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "config/config_test_util.h"
#include "config/loader.h"
#include "config/plan_file.h"
#include "planner/rank_load.h"
#include "planner/run.h"
#include "planner_output/plan_json.h"
#include "planner_output/plan_report.h"
#include "support/regex_count.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

TEST_CASE("plan --report: one column per rank, shard boxes add up to the plan's per-rank storage", "[output][report]") {
  const std::string plan_path = scratch_prefix() + "report_plan.json";
  const std::string report_path = scratch_prefix() + "report.html";
  std::filesystem::remove(report_path);
  RunResult r =
      run_shardplan("plan --model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir +
                    "/configs/topology-1x8-80g.yaml --stats none -o " + plan_path + " --report " + report_path);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json plan = nlohmann::json::parse(slurp(plan_path));
  const std::string html = slurp(report_path);

  CHECK(html.rfind("<!DOCTYPE html>\n", 0) == 0);
  CHECK(html.size() > 1000);
  // Self-contained: nothing fetched; one inline script (the table sort), which loads nothing.
  CHECK(count_matches(html, std::regex("<link|<img|src=|href=|@import|url\\(|fetch\\(|XMLHttpRequest|import\\(")) == 0);
  CHECK(count_matches(html, std::regex("<script")) == 1);
  CHECK(count_matches(html, std::regex("<script>")) == 1);
  const int world = plan["topology"]["world_size"].get<int>();
  CHECK(count_matches(html, std::regex("<g class=\"rank\" data-rank=\"\\d+\">")) == world);
  // One row per rank under its host's heading; the header states the HBM basis.
  CHECK(count_matches(html, std::regex("<text class=\"host\"")) == 1);
  CHECK(html.find("usable is the device less the reservation percentage") != std::string::npos);
  // The per-table table: one row per table of the plan, with its ranks.
  std::size_t tables = 0;
  for (const auto& [path, module] : plan["plan"].items()) tables += module.size();
  CHECK(count_matches(html, std::regex("<tr data-table=\"")) == static_cast<int>(tables));

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
  RunResult r = run_shardplan("plan --config " + kSourceDir +
                              "/configs/examples/infeasible.yaml --stats none --report " + report_path);
  CHECK(r.exit_code == 1);
  CHECK_FALSE(std::filesystem::exists(report_path));
}

TEST_CASE("plan report: ranks as merged ranges", "[output][report]") {
  CHECK(rank_ranges_text({}) == "");
  CHECK(rank_ranges_text({3}) == "3");
  CHECK(rank_ranges_text({7, 6, 5, 4, 3, 2, 1, 0}) == "0-7");
  CHECK(rank_ranges_text({0, 3, 5, 6, 7, 9, 9}) == "0, 3, 5-7, 9");
}

TEST_CASE("plan report: the HBM headline is the rank with the largest share of what the reservation leaves",
          "[output][report]") {
  PlanPicture picture;
  for (int r = 0; r < 3; ++r) {
    ReportRank rank;
    rank.rank = r;
    rank.hbm_capacity = 100;
    rank.hbm_usable = r == 2 ? 40 : 80;  // rank 2's device lost more to the reservation
    rank.shards.push_back({"t", "table_wise", "fused", r == 1 ? 60 : 30, 0, 1.0});
    picture.ranks.push_back(rank);
  }
  // Rank 1 uses the most bytes (60 of 80 = 0.75), rank 2 the largest share (30 of 40 = 0.75,
  // a tie, so the lower rank), so rank 1; with rank 2 at 31 bytes it is rank 2.
  StorageHeadline h = storage_headline(picture, true);
  CHECK(h.rank == 1);
  CHECK(h.used == 60);
  CHECK(h.usable == 80);
  CHECK(h.capacity == 100);
  CHECK(h.fraction == 0.75);
  picture.ranks[2].shards[0].hbm = 31;
  h = storage_headline(picture, true);
  CHECK(h.rank == 2);
  CHECK(h.fraction == 31.0 / 40.0);
}

TEST_CASE("plan report: past 64 ranks, heat maps with the worst ranks outlined and listed", "[output][report]") {
  PlanPicture picture;
  picture.model = "m";
  picture.local_world_size = 8;
  for (int r = 0; r < 100; ++r) {
    ReportRank rank;
    rank.rank = r;
    rank.hbm_capacity = rank.hbm_usable = 1000;
    // perf peaks at rank 50 and falls off both ways: the 8 slowest are 46..53, the
    // tie at 46 and 54 (distance 4) broken by the lower rank.
    rank.perf_total_ms = 100.0 - std::abs(r - 50);
    rank.shards.push_back({"t", "row_wise", "fused", 10 + r, 0, rank.perf_total_ms});  // HBM grows with the rank
    picture.ranks.push_back(rank);
  }
  const std::string html = render_plan_report_html(picture);
  CHECK(count_matches(html, std::regex("<rect class=\"rank cell\" data-rank=\"\\d+\"")) == 100);
  CHECK(count_matches(html, std::regex("<rect class=\"hbm-cell\" data-rank=\"\\d+\"")) == 100);
  std::set<int> outlined_perf, outlined_hbm;
  const std::regex outlined("<rect class=\"(rank cell|hbm-cell)\" data-rank=\"(\\d+)\"[^>]* stroke=\"#d62728\"");
  for (auto m = std::sregex_iterator(html.begin(), html.end(), outlined); m != std::sregex_iterator(); ++m)
    ((*m)[1] == "rank cell" ? outlined_perf : outlined_hbm).insert(std::stoi((*m)[2]));
  CHECK(outlined_perf == std::set<int>{46, 47, 48, 49, 50, 51, 52, 53});
  CHECK(outlined_hbm == std::set<int>{92, 93, 94, 95, 96, 97, 98, 99});
  // The worst-ranks table starts with rank 50 (perf) beside rank 99 (HBM), host 6 and 12.
  CHECK(html.find("<tr><td>50</td><td>6</td><td class=\"num\">100.00</td>") !=
        std::string::npos);  // 5 significant digits
  CHECK(html.find("<td>99</td><td>12</td>") != std::string::npos);
  CHECK(html.find("<g class=\"rank\"") == std::string::npos);  // no bar rows
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

TEST_CASE("plan report: drawn from the computed plan, and equal to the picture of the plan file written from it",
          "[output][report]") {
  const PlanningInput input = load_inputs(kSourceDir + "/configs/dlrm-criteo-terabyte.yaml",
                                          kSourceDir + "/configs/topology-1x8-80g.yaml", std::nullopt);
  const PlanRun run = run_plan(input);
  REQUIRE(run.ok());
  const PlanPicture computed = plan_picture(run, input.model.name);
  // The figures come from the run itself, not from text.
  REQUIRE(computed.ranks.size() == static_cast<std::size_t>(run.topology.world_size));
  CHECK(computed.tables.size() == run.result.plan.size());
  CHECK(computed.model == input.model.name);
  const std::vector<RankLoad> loads = rank_loads(run.result.plan, run.topology.world_size);
  double max_perf = 0;
  for (std::size_t r = 0; r < loads.size(); ++r) {
    CHECK(computed.ranks[r].perf_total_ms == loads[r].perf.total());
    std::int64_t shard_hbm = 0;
    for (const auto& shard : computed.ranks[r].shards) shard_hbm += shard.hbm;
    CHECK(shard_hbm == loads[r].storage.hbm);
    max_perf = std::max(max_perf, loads[r].perf.total());
  }
  CHECK(computed.max_rank_perf_ms == max_perf);
  REQUIRE(run.bound);
  CHECK(computed.lower_bound_ms == run.bound->value);

  // The plan file as `diff --report` reads it (input): the same picture, byte for byte.
  const PlanPicture from_file = plan_picture(parse_plan_file("plan.json", plan_file_text(run, input.model.name)));
  CHECK(from_file.max_rank_perf_ms == computed.max_rank_perf_ms);
  CHECK(from_file.gap == computed.gap);
  CHECK(from_file.bound_binding == computed.bound_binding);
  CHECK(from_file.storage_reservation == computed.storage_reservation);
  for (std::size_t r = 0; r < computed.ranks.size(); ++r) {
    INFO("rank " << r);
    CHECK(from_file.ranks[r].hbm_used() == computed.ranks[r].hbm_used());
    CHECK(from_file.ranks[r].hbm_usable == computed.ranks[r].hbm_usable);
    CHECK(from_file.ranks[r].ddr_used() == computed.ranks[r].ddr_used());
    CHECK(from_file.ranks[r].perf_parts == computed.ranks[r].perf_parts);
  }
  CHECK(render_plan_report_html(from_file) == render_plan_report_html(computed));
}

TEST_CASE("plan report: the per-table table carries exact values for the sort and reads without script",
          "[output][report]") {
  PlanPicture picture;
  picture.model = "m";
  ReportRank rank;
  rank.hbm_capacity = rank.hbm_usable = 1 << 30;
  picture.ranks.push_back(rank);
  picture.tables.push_back({"ebc.a", "table_wise", "fused", {3, 1}, 1536, 0, 0.25});
  const std::string table = render_table_view_html(picture);
  CHECK(table.find("<table class=\"data tables sortable\"") != std::string::npos);
  // The ranks cell sorts by its first rank; the sizes by bytes; the perf by ms. Text as before.
  CHECK(table.find("<td data-value=\"1\">1, 3</td>") != std::string::npos);
  CHECK(table.find("<td class=\"num\" data-value=\"1536\">") != std::string::npos);
  CHECK(table.find("<td class=\"num\" data-value=\"0.25\">0.25000</td>") != std::string::npos);
  const std::string page = render_plan_report_html(picture);
  // The one script is the sort, after the table it sorts.
  CHECK(page.find(report_sort_script()) != std::string::npos);
  CHECK(page.find(report_sort_script()) > page.find("<table class=\"data tables sortable\""));
}

}  // namespace
}  // namespace shardplan::testing
