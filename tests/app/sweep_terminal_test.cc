// `sweep` for a person at a terminal, through the real binary: the progress bar under
// a pseudo-terminal (util-linux `script`) and nothing of it when stderr is piped; the
// summary on stderr; --format table with the same rows for any --threads (the wall-time
// column aside); the throughput column; plan files named by their values; and
// `sweep merge --plot` marking the infeasible points in every panel.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <regex>

#include "config/config_test_util.h"
#include "support/run_binary.h"
#include "support/xml.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;

// 8 points; on up to 4 ranks, 100 MiB of HBM (and next to no DDR) cannot hold the model.
const std::string kTerminalSweep = "sweep --config " + kQuickstartConfig +
                                   " --set world_size=1..8:*2 --set 'hbm_cap=100 MiB,16 GiB' --set 'ddr_cap=1 MiB'";

int run_shell(const std::string& command) {
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

// The lines of `text` without their last column (the wall time of --format table).
// The wall-time column (the last) dropped; in Markdown, the cell before the closing '|'.
std::string without_last_column(const std::string& text) {
  return std::regex_replace(text, std::regex("\\s+\\S+(\\s+\\|)?\\n"), "\n");
}

TEST_CASE("sweep on a terminal: a progress bar, then the summary; piped: the summary only", "[app][sweep]") {
  const std::string rows_path = scratch_prefix() + "tty_rows.jsonl";
  const std::string tty_path = scratch_prefix() + "tty_output.txt";
  fs::remove(rows_path);
  const std::string command = std::string(SHARDPLAN_BINARY) + " " + kTerminalSweep + " --threads 1 -o " + rows_path;
  // `script` runs the command on a pseudo-terminal and copies what it draws.
  REQUIRE(run_shell("SHARDPLAN_PROGRESS_AFTER_MS=0 script -qec \"" + command + "\" /dev/null >" + tty_path +
                    " 2>&1 </dev/null") == 0);
  const std::string tty = slurp(tty_path);
  INFO(tty);
  // The first point draws the bar (an ETA while points are left); the last point
  // draws it full; the bar is erased before the summary.
  CHECK(
      std::regex_search(tty, std::regex("\\r\\[###\\.+\\] 1/8 points, [01] feasible, 0:00 elapsed, ETA \\d+:\\d\\d")));
  CHECK(tty.find("\r[########################] 8/8 points, 5 feasible, ") != std::string::npos);
  const std::size_t summary = tty.find("sweep: 8 points, 5 feasible, 3 infeasible, ");
  REQUIRE(summary != std::string::npos);
  CHECK(tty.rfind("\r\x1b[K", summary) == summary - 4);
  CHECK(tty.find("Pareto front of max-rank perf against max HBM") > summary);

  // Piped: the same rows, the summary, and no bar.
  const RunResult piped = run_shardplan(kTerminalSweep + " --threads 1");
  REQUIRE(piped.exit_code == 0);
  CHECK(piped.out == slurp(rows_path));
  CHECK(piped.err.rfind("sweep: 8 points, 5 feasible, 3 infeasible, ", 0) == 0);
  CHECK(piped.err.find('\r') == std::string::npos);
  CHECK(piped.err.find("ETA") == std::string::npos);
  const RunResult quiet = run_shardplan(kTerminalSweep + " --no-summary");
  CHECK(quiet.err.empty());
}

TEST_CASE("sweep --format table|markdown: the same table for any --threads but the wall times",
          "[app][sweep][determinism]") {
  for (const char* format : {"table", "markdown"}) {
    INFO(format);
    const RunResult one = run_shardplan(kTerminalSweep + " --no-summary --threads 1 --format " + format);
    REQUIRE(one.exit_code == 0);
    const RunResult four = run_shardplan(kTerminalSweep + " --no-summary --threads 4 --format " + format);
    REQUIRE(four.exit_code == 0);
    CHECK(without_last_column(four.out) == without_last_column(one.out));
    CHECK(std::count(one.out.begin(), one.out.end(), '\n') == 2 + 8);  // header, rule, a line per point
    CHECK(one.out.find("wall (s)") != std::string::npos);
    CHECK(one.out.find("no: INSUFFICIENT_STORAGE") != std::string::npos);
  }
  const RunResult resume = run_shardplan(kTerminalSweep + " --format table --resume -o " + scratch_prefix() + "t.txt");
  CHECK(resume.exit_code == 2);
  CHECK(resume.err == "error: --resume: needs --format jsonl or csv: a table cannot be resumed\n");
  const RunResult bad = run_shardplan(kTerminalSweep + " --format tabel");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err == "error: --format: expected one of 'jsonl', 'csv', 'table', 'markdown', found 'tabel'\n");
}

TEST_CASE("sweep: throughput is batch_size x world_size over the max-rank perf; plan files named by values",
          "[app][sweep]") {
  const std::string plans = scratch_prefix() + "named_plans";
  fs::remove_all(plans);
  const RunResult r = run_shardplan(kTerminalSweep + " --no-summary --plans-dir " + plans);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json base = nlohmann::json::parse(slurp(kQuickstartConfig));
  const double batch = base["model"]["batch_size"].get<double>();
  std::size_t start = 0;
  int feasible = 0;
  for (std::size_t end; (end = r.out.find('\n', start)) != std::string::npos; start = end + 1) {
    const nlohmann::json row = nlohmann::json::parse(r.out.substr(start, end - start));
    INFO(row.dump());
    if (!row["feasible"].get<bool>()) {
      CHECK(row["throughput_samples_per_s"].is_null());
      CHECK(row["plan"].is_null());
      continue;
    }
    ++feasible;
    const double world = row["values"]["world_size"].get<double>();
    CHECK(row["throughput_samples_per_s"].get<double>() ==
          Approx(batch * world / (row["max_rank_perf_ms"].get<double>() / 1000)).epsilon(1e-12));
    const std::string hbm = row["values"]["hbm_cap"].get<std::string>();
    char index[16];
    std::snprintf(index, sizeof index, "%06d", row["index"].get<int>());
    const std::string name = std::string(index) + "-world_size=" + std::to_string(static_cast<int>(world)) +
                             "-hbm_cap=" + (hbm == "100 MiB" ? "100MiB" : "16GiB") + "-ddr_cap=1MiB.json";
    CHECK(row["plan"] == name);
    CHECK(fs::exists(plans + "/" + name));
  }
  CHECK(feasible == 5);
}

TEST_CASE("sweep merge --plot: the merged sweep drawn, infeasible points in every panel", "[app][sweep]") {
  const std::string a = scratch_prefix() + "plot_slice0.jsonl", b = scratch_prefix() + "plot_slice1.jsonl";
  REQUIRE(run_shardplan(kTerminalSweep + " --no-summary --shard 0/2 -o " + a).exit_code == 0);
  REQUIRE(run_shardplan(kTerminalSweep + " --no-summary --shard 1/2 -o " + b).exit_code == 0);
  const std::string svg_path = scratch_prefix() + "merged.svg";
  fs::remove(svg_path);
  const RunResult merged = run_shardplan("sweep merge " + a + " " + b + " --plot " + svg_path);
  REQUIRE(merged.exit_code == 0);
  const std::string svg = slurp(svg_path);
  const auto root = parse_xml(svg);
  for (const char* panel : {"perf", "hbm", "throughput"}) {
    INFO(panel);
    int crosses = 0, markers = 0;
    for (const XmlElement* e : root->descendants()) {
      crosses += e->attribute("class") == std::string("infeasible ") + panel;
      markers += e->attribute("class") == std::string("point ") + panel;
    }
    CHECK(crosses == 3);
    CHECK(markers == 5);
  }
  // The same picture as the unsharded run draws.
  const std::string direct_path = scratch_prefix() + "direct.svg";
  REQUIRE(run_shardplan(kTerminalSweep + " --no-summary --plot " + direct_path).exit_code == 0);
  CHECK(slurp(direct_path) == svg);
}

}  // namespace
}  // namespace shardplan::testing
