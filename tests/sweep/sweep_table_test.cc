// The sweep for people: ranges in --set, the Pareto front and the best points worked
// out by hand, the table's columns, plan file names from the values, and the rows read
// back from the jsonl and csv a sweep writes.
#include "sweep/sweep_table.h"

#include <catch2/catch.hpp>

#include "sweep/sweep_rows.h"

namespace shardplan {
namespace {

std::vector<std::string> range_of(const std::string& text) {
  std::string error;
  const auto values = expand_sweep_range(text, &error);
  INFO(error);
  REQUIRE(values);
  return *values;
}

std::string range_error(const std::string& text) {
  std::string error;
  CHECK_FALSE(expand_sweep_range(text, &error));
  return error;
}

TEST_CASE("sweep ranges: A..B:STEP, A..B:*FACTOR, A..B", "[sweep]") {
  CHECK(range_of("8..64:8") == std::vector<std::string>{"8", "16", "24", "32", "40", "48", "56", "64"});
  CHECK(range_of("8..1024:*2") == std::vector<std::string>{"8", "16", "32", "64", "128", "256", "512", "1024"});
  CHECK(range_of("1..4") == std::vector<std::string>{"1", "2", "3", "4"});
  CHECK(range_of("3..10:4") == std::vector<std::string>{"3", "7"});  // the end when the steps reach it
  CHECK(range_of("5..100:*3") == std::vector<std::string>{"5", "15", "45"});
  CHECK(range_of("7") == std::vector<std::string>{"7"});
  CHECK(range_error("9..2") == "expected a range whose start is at most its end, found '9..2'");
  CHECK(range_error("1..8:0") == "expected a step of 1 or more, found '1..8:0'");
  CHECK(range_error("0..8:*2") == "expected a factor of 2 or more and a start above 0, found '0..8:*2'");
  CHECK(range_error("a..8") ==
        "expected a range A..B, A..B:STEP or A..B:*FACTOR of whole numbers (8..64:8, 8..1024:*2), found 'a..8'");
  // Through --set: the same grid as the values written out.
  const SweepGrid ranged = read_sweep_grid("", {"world_size=8..32:*2,48"});
  const SweepGrid listed = read_sweep_grid("", {"world_size=8,16,32,48"});
  CHECK(ranged.canonical_text() == listed.canonical_text());
  try {
    read_sweep_grid("", {"hbm_cap=1..4"});
    FAIL("a range of sizes was accepted");
  } catch (const InputError& e) {
    REQUIRE(e.diagnostics().size() == 1);
    CHECK(e.diagnostics()[0].message ==
          "ranges (A..B:STEP, A..B:*FACTOR) are for integer fields; 'hbm_cap' takes HBM per rank (size, e.g. "
          "'80 GiB'), found '1..4'");
  }
}

SweepTableRow table_row(std::size_t index, std::string value, std::optional<double> perf, std::optional<double> hbm,
                        std::optional<double> throughput) {
  SweepTableRow r;
  r.index = index;
  r.values = {std::move(value)};
  r.value_numbers = {std::nullopt};
  r.feasible = perf.has_value();
  if (!r.feasible) r.failure = "INSUFFICIENT_STORAGE";
  r.max_rank_perf_ms = perf;
  r.max_hbm_bytes = hbm;
  r.throughput = throughput;
  return r;
}

TEST_CASE("sweep summary: best points and the Pareto front of perf against HBM", "[sweep]") {
  SweepTable table;
  table.fields = {"partitioner"};
  // perf (ms), HBM (bytes): a (3, 10), b (2, 20), c (2.5, 30: b beats it in both),
  // d infeasible, e (1, 40), f (1, 50: e has the same perf with less HBM).
  table.rows = {table_row(0, "a", 3, 10, 100),   table_row(1, "b", 2, 20, 400),
                table_row(2, "c", 2.5, 30, 300), table_row(3, "d", std::nullopt, std::nullopt, std::nullopt),
                table_row(4, "e", 1, 40, 200),   table_row(5, "f", 1, 50, 500)};
  CHECK(sweep_pareto_front(table) == std::vector<std::size_t>{0, 1, 4});
  const std::string summary = render_sweep_summary(table, 12.34);
  CHECK(summary.rfind("sweep: 6 points, 5 feasible, 1 infeasible, 12.3 s\nbest points:\n", 0) == 0);
  // Best by perf: e (the first of e and f); by HBM: a; by throughput: f.
  CHECK(summary.find("least max-rank perf  partitioner=e") != std::string::npos);
  CHECK(summary.find("least max HBM        partitioner=a") != std::string::npos);
  CHECK(summary.find("most samples/s       partitioner=f") != std::string::npos);
  const std::string front = summary.substr(summary.find("Pareto front"));
  CHECK(front.find("partitioner=a") < front.find("partitioner=b"));
  CHECK(front.find("partitioner=b") < front.find("partitioner=e"));
  CHECK(front.find("partitioner=c") == std::string::npos);
  CHECK(front.find("partitioner=f") == std::string::npos);
  SweepTable none;
  none.fields = {"partitioner"};
  none.rows = {table_row(0, "d", std::nullopt, std::nullopt, std::nullopt)};
  CHECK(render_sweep_summary(none, 0.04) == "sweep: 1 point, 0 feasible, 1 infeasible, 0.0 s\n");
}

TEST_CASE("sweep table: aligned text and Markdown with rounded figures and a wall-time column", "[sweep]") {
  SweepTable table;
  table.fields = {"world_size"};
  table.rows = {table_row(0, "8", 0.0127718786199223, 256562176, 320713.98), table_row(1, "16", std::nullopt, {}, {})};
  table.rows[0].max_hbm_fraction = 0.0149339;
  table.rows[0].wall_seconds = 1.234;
  const std::string text = render_sweep_table(table, SweepDisplayFormat::kTable);
  CHECK(text ==
        "index  world_size  feasible                  max-rank perf (ms)  max HBM (GiB)  HBM of device  imbalance  "
        "samples/s  wall (s)\n"
        "-----  ----------  ------------------------  ------------------  -------------  -------------  ---------  "
        "---------  --------\n"
        "    0  8           yes                                  0.01277          0.239          1.49%                "
        "320714      1.23\n"
        "    1  16          no: INSUFFICIENT_STORAGE\n");
  const std::string markdown = render_sweep_table(table, SweepDisplayFormat::kMarkdown);
  CHECK(markdown.rfind("| index | world_size | feasible                 | max-rank perf (ms) |", 0) == 0);
  CHECK(markdown.find("\n| ----: | ---------- | ------------------------ | -----------------: |") != std::string::npos);
}

TEST_CASE("sweep plan files: named by the index and the values", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=8,16", "hbm_cap=16 GiB", "proposers=grid_search+greedy"});
  CHECK(sweep_plan_file_name_of(grid, 1) == "000001-world_size=16-hbm_cap=16GiB-proposers=grid_search+greedy.json");
}

TEST_CASE("sweep table: rows read back from jsonl and csv", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"hbm_cap=16 GiB,8 GiB", "partitioner=greedy"});
  SweepPointResult feasible;
  feasible.index = 0;
  feasible.feasible = true;
  feasible.max_rank_perf_ms = 0.5;
  feasible.max_hbm_bytes = 1024;
  feasible.throughput_samples_per_s = 2048;
  SweepPointResult infeasible;
  infeasible.index = 1;
  infeasible.failure = "INSUFFICIENT_STORAGE";
  infeasible.failure_stage = "plan";
  const SweepRowContext context{"id", &grid};
  for (const SweepFormat format : {SweepFormat::kJsonl, SweepFormat::kCsv}) {
    INFO(name_of(kSweepFormatNames, format));
    const std::string text = sweep_header(format, grid) + render_sweep_row(format, context, feasible, "") +
                             render_sweep_row(format, context, infeasible, "");
    const SweepTable table = read_sweep_table(text);
    CHECK(table.fields == std::vector<std::string>{"hbm_cap", "partitioner"});
    REQUIRE(table.rows.size() == 2);
    CHECK(table.rows[0].values == std::vector<std::string>{"16 GiB", "greedy"});
    CHECK(table.rows[0].value_numbers[0] == 16.0 * 1024 * 1024 * 1024);
    CHECK_FALSE(table.rows[0].value_numbers[1]);
    CHECK(table.rows[0].max_rank_perf_ms == 0.5);
    CHECK(table.rows[0].max_hbm_bytes == 1024);
    CHECK(table.rows[0].throughput == 2048);
    CHECK_FALSE(table.rows[1].feasible);
    CHECK(table.rows[1].failure == "INSUFFICIENT_STORAGE");
    CHECK_FALSE(table.rows[1].wall_seconds);
  }
}

}  // namespace
}  // namespace shardplan
