// Runs the real binary for `sweep`: rows identical for any --threads, a point's
// figures and plan file equal to `plan` with the same flags, resume after a cut,
// slices run as separate processes merging into the single run's bytes, the SVG,
// and positioned errors for a bad --set.
#include <catch2/catch.hpp>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/json_schema.h"
#include "support/run_binary.h"
#include "support/xml.h"

namespace shardplan::testing {
namespace {

namespace fs = std::filesystem;
const std::string kSweepConfig = "--config " + kQuickstartConfig;
// 8 points; on up to 4 ranks, 100 MiB of HBM (and next to no DDR) cannot hold the model.
const std::string kGridFlags = " --set world_size=1,2,4,8 --set 'hbm_cap=100 MiB,16 GiB' --set 'ddr_cap=1 MiB'";

std::vector<std::string> lines_of(const std::string& text) {
  std::vector<std::string> out;
  std::size_t start = 0;
  for (std::size_t end; (end = text.find('\n', start)) != std::string::npos; start = end + 1)
    out.push_back(text.substr(start, end - start));
  return out;
}

std::string scratch(const std::string& name) {
  const std::string path = scratch_prefix() + name;
  fs::remove_all(path);
  return path;
}

RunResult sweep(const std::string& args) { return run_shardplan("sweep " + kSweepConfig + kGridFlags + " " + args); }

TEST_CASE("sweep: rows in grid order, byte-identical for --threads 1, 2 and 4", "[app][sweep][determinism]") {
  for (const char* format : {"jsonl", "csv"}) {
    INFO(format);
    const RunResult one = sweep(std::string("--threads 1 --format ") + format);
    REQUIRE(one.exit_code == 0);
    CHECK(one.err.rfind("sweep: 8 points, ", 0) == 0);  // the summary (tests/app/sweep_terminal_test.cc)
    for (const char* threads : {"2", "4"}) {
      const RunResult many = sweep(std::string("--threads ") + threads + " --format " + format);
      CHECK(many.exit_code == 0);
      CHECK(many.out == one.out);
    }
    const auto lines = lines_of(one.out);
    CHECK(lines.size() == (std::string(format) == "csv" ? 9u : 8u));
  }
  const RunResult rows = sweep("");
  const nlohmann::json schema = load_schema("sweep-row.schema.json");
  const auto lines = lines_of(rows.out);
  REQUIRE(lines.size() == 8);
  const int world_sizes[] = {1, 2, 4, 8};
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::json row = nlohmann::json::parse(lines[i]);
    INFO(lines[i]);
    for (const auto& problem : schema_errors(schema, row)) FAIL_CHECK(problem);
    CHECK(row["index"] == i);
    CHECK(row["points"] == 8);
    CHECK(row["values"]["world_size"] == world_sizes[i / 2]);  // the last field varies fastest
    CHECK(row["values"]["hbm_cap"] == (i % 2 ? "16 GiB" : "100 MiB"));
    CHECK(row["sweep"] == nlohmann::json::parse(lines[0])["sweep"]);
  }
}

TEST_CASE("sweep: a point's figures and plan file are what plan gives with the same flags", "[app][sweep]") {
  const std::string plans = scratch("sweep-plans");
  const RunResult rows = sweep("--plans-dir " + plans);
  REQUIRE(rows.exit_code == 0);
  const auto lines = lines_of(rows.out);
  REQUIRE(lines.size() == 8);
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const nlohmann::json row = nlohmann::json::parse(lines[i]);
    INFO(lines[i]);
    const std::string plan_path = scratch("sweep-plan.json");
    const RunResult plan =
        run_shardplan("plan " + kSweepConfig + " --world-size " +
                      std::to_string(row["values"]["world_size"].get<int>()) + " --hbm-cap '" +
                      row["values"]["hbm_cap"].get<std::string>() + "' --ddr-cap '1 MiB' --stats none -o " + plan_path);
    // Named by the index and the values (sweep/sweep_table.h).
    const std::string hbm = row["values"]["hbm_cap"] == "100 MiB" ? "100MiB" : "16GiB";
    const std::string plan_name = "00000" + std::to_string(i) + "-world_size=" + row["values"]["world_size"].dump() +
                                  "-hbm_cap=" + hbm + "-ddr_cap=1MiB.json";
    const std::string plan_file = plans + "/" + plan_name;
    if (plan.exit_code == 1) {
      CHECK(row["feasible"] == false);
      CHECK(row["failure"] == "INSUFFICIENT_STORAGE");
      CHECK(row["max_rank_perf_ms"].is_null());
      CHECK(row["plan"].is_null());
      CHECK_FALSE(fs::exists(plan_file));
      continue;
    }
    REQUIRE(plan.exit_code == 0);
    CHECK(row["feasible"] == true);
    CHECK(row["plan"] == plan_name);
    // The same plan file; a provenance block (`shardplan`: version, inputs hash), where
    // plan writes one, is compared apart: it describes the run, not the plan.
    nlohmann::ordered_json from_sweep = nlohmann::ordered_json::parse(slurp(plan_file));
    nlohmann::ordered_json from_plan = nlohmann::ordered_json::parse(slurp(plan_path));
    from_sweep.erase("shardplan");
    from_plan.erase("shardplan");
    CHECK(from_sweep.dump(2) == from_plan.dump(2));
    const nlohmann::json summary = nlohmann::json::parse(slurp(plan_path))["summary"];
    CHECK(row["max_rank_perf_ms"].get<double>() == summary["max_rank_perf"].get<double>());
    CHECK(row["max_hbm_bytes"] == summary["max_rank_hbm"]);
    CHECK(row["proposals"] == summary["num_proposals"]);
    CHECK(row["imbalance"].get<double>() >= 1.0);
  }
  // Both kinds of point are in this grid.
  CHECK(rows.out.find("\"feasible\":false") != std::string::npos);
  CHECK(rows.out.find("\"feasible\":true") != std::string::npos);
}

TEST_CASE("sweep: --resume after a cut anywhere gives the uninterrupted run's bytes", "[app][sweep][resume]") {
  for (const char* format : {"jsonl", "csv"}) {
    INFO(format);
    const std::string full_path = scratch(std::string("sweep-full.") + format);
    REQUIRE(sweep(std::string("--format ") + format + " -o " + full_path).exit_code == 0);
    const std::string full = slurp(full_path);
    const std::size_t second_row = full.find('\n', full.find('\n') + 1) + 1;
    // Mid-header (csv) or mid-first-row, at a row boundary, mid-row, and just before the end.
    for (const std::size_t cut : {std::size_t{10}, second_row, second_row + 17, full.size() / 2, full.size() - 1}) {
      INFO("cut at " << cut);
      const std::string path = scratch(std::string("sweep-cut.") + format);
      std::ofstream(path, std::ios::binary) << full.substr(0, cut);
      const RunResult resumed = sweep(std::string("--format ") + format + " --threads 2 --resume -o " + path);
      CHECK(resumed.exit_code == 0);
      CHECK(slurp(path) == full);
    }
    // A finished output is left as it is.
    REQUIRE(sweep(std::string("--format ") + format + " --resume -o " + full_path).exit_code == 0);
    CHECK(slurp(full_path) == full);
  }
  // The output of another sweep is not resumed over.
  const std::string other = scratch("sweep-other.jsonl");
  REQUIRE(run_shardplan("sweep " + kSweepConfig + " --set world_size=1,2 -o " + other).exit_code == 0);
  const std::string before = slurp(other);
  const RunResult refused = sweep("--resume -o " + other);
  CHECK(refused.exit_code == 2);
  CHECK(refused.err.find(other + ":1:1: this row is of another sweep") != std::string::npos);
  CHECK(slurp(other) == before);
}

TEST_CASE("sweep: slices run as separate processes merge into the single run's bytes", "[app][sweep][shard]") {
  for (const char* format : {"jsonl", "csv"}) {
    INFO(format);
    const RunResult single = sweep(std::string("--format ") + format);
    REQUIRE(single.exit_code == 0);
    // Three slices at once, as a job array would run them.
    std::string command = "set -e; ";
    std::vector<std::string> slices;
    for (int k = 0; k < 3; ++k) {
      slices.push_back(scratch("slice-" + std::to_string(k) + "." + format));
      command += "'" + std::string(SHARDPLAN_BINARY) + "' sweep " + kSweepConfig + kGridFlags + " --format " + format +
                 " --threads 1 --shard " + std::to_string(k) + "/3 -o " + slices.back() + " & ";
    }
    command += "wait";
    REQUIRE(std::system(("bash -c \"" + command + "\"").c_str()) == 0);
    for (const auto& slice : slices) CHECK(lines_of(slurp(slice)).size() < lines_of(single.out).size());
    const std::string merged = scratch(std::string("merged.") + format);
    const RunResult merge =
        run_shardplan("sweep merge " + slices[2] + " " + slices[0] + " " + slices[1] + " -o " + merged);
    CHECK(merge.exit_code == 0);
    CHECK(slurp(merged) == single.out);

    const RunResult missing = run_shardplan("sweep merge " + slices[0] + " " + slices[2]);
    CHECK(missing.exit_code == 2);
    CHECK(missing.out.empty());
    CHECK(missing.err.find("are in no slice") != std::string::npos);
    const RunResult overlap =
        run_shardplan("sweep merge " + slices[0] + " " + slices[1] + " " + slices[2] + " " + slices[1]);
    CHECK(overlap.exit_code == 2);
    CHECK(overlap.err.find("slices overlap") != std::string::npos);
  }
  // A slice of another sweep (another grid) is refused.
  const std::string a = scratch("other-0.jsonl");
  const std::string b = scratch("other-1.jsonl");
  REQUIRE(sweep("--shard 0/2 -o " + a).exit_code == 0);
  REQUIRE(run_shardplan(
              "sweep " + kSweepConfig +
              " --set world_size=1,2,4,8 --set 'hbm_cap=100 MiB,32 GiB' --set 'ddr_cap=1 MiB' --shard 1/2 -o " + b)
              .exit_code == 0);
  const RunResult mixed = run_shardplan("sweep merge " + a + " " + b);
  CHECK(mixed.exit_code == 2);
  CHECK(mixed.err.find(b + ":1:1: this row is of another sweep") != std::string::npos);
}

TEST_CASE("sweep: --plot draws every feasible point against the first field", "[app][sweep][plot]") {
  const std::string svg = scratch("sweep.svg");
  const RunResult rows = sweep("--plot " + svg);
  REQUIRE(rows.exit_code == 0);
  std::size_t feasible = 0;
  for (const auto& line : lines_of(rows.out)) feasible += nlohmann::json::parse(line)["feasible"].get<bool>();
  const auto root = parse_xml(slurp(svg));
  std::size_t perf_markers = 0, hbm_markers = 0, throughput_markers = 0, labels = 0;
  for (const XmlElement* e : root->descendants()) {
    perf_markers += e->attribute("class") == "point perf";
    hbm_markers += e->attribute("class") == "point hbm";
    throughput_markers += e->attribute("class") == "point throughput";
    if (e->attribute("class") == "x-label") labels += e->text == "world_size";
  }
  CHECK(perf_markers == feasible);
  CHECK(hbm_markers == feasible);
  CHECK(throughput_markers == feasible);
  CHECK(labels == 3);
}

TEST_CASE("sweep: a bad --set is a positioned error, exit 2, and no output file", "[app][sweep][errors]") {
  const std::string out = scratch("sweep-bad.jsonl");
  const RunResult r = run_shardplan("sweep " + kSweepConfig +
                                    " --set world_sise=2 --set 'hbm_cap=16 GiB,lots' --set batch_size= -o " + out);
  CHECK(r.exit_code == 2);
  CHECK(r.err ==
        "error: --set: unknown sweep field 'world_sise', did you mean 'world_size'?\n"
        "error: --set hbm_cap[1]: expected a size such as '80 GiB', found 'lots'\n"
        "error: --set batch_size: expected at least one value after '=', found none\n");
  CHECK_FALSE(fs::exists(out));
  const RunResult range = run_shardplan("sweep " + kSweepConfig + " --set world_size=4,0 -o " + out);
  CHECK(range.exit_code == 2);
  CHECK(range.err == "error: --set world_size[1]: expected a positive integer, found 0\n");
  CHECK_FALSE(fs::exists(out));
  const RunResult shard = sweep("--shard 3/3");
  CHECK(shard.exit_code == 2);
  CHECK(shard.err == "error: --shard: expected K/N with 0 <= K < N (slice K of N), found '3/3'\n");
  CHECK(sweep("--resume").exit_code == 2);
  const RunResult help = run_shardplan("sweep --help");
  CHECK(help.exit_code == 0);
  CHECK(help.out.find("shardplan sweep --config") != std::string::npos);
  CHECK(help.out.find("last field") != std::string::npos);
}

TEST_CASE("sweep --timeout: timed-out points are rows saying so, no plan file, the sweep goes on; --log",
          "[app][sweep][timeout]") {
  const std::string out = scratch("sweep-timeout.jsonl");
  const std::string plans = scratch("sweep-timeout-plans");
  const std::string log = scratch("sweep-timeout.log");
  // A microsecond is over before any point's enumeration ends: every point times out.
  const RunResult r = sweep("--timeout 0.000001 --threads 2 -o " + out + " --plans-dir " + plans + " --log " + log);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.rfind("sweep: 8 points, 0 feasible, 8 infeasible (8 timed out), ", 0) == 0);
  const auto rows = lines_of(slurp(out));
  REQUIRE(rows.size() == 8);
  const nlohmann::json schema = load_schema("sweep-row.schema.json");
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const nlohmann::json row = nlohmann::json::parse(rows[i]);
    CHECK(row["index"] == i);
    CHECK(row["failure"] == "TIMEOUT");
    CHECK(row["failure_stage"] == "timeout");
    CHECK(row["plan"].is_null());
    CHECK(schema_errors(schema, row).empty());
  }
  CHECK(fs::is_empty(plans));  // nothing half-written, nothing at all
  // The log: a comment, then a start and an end line per point, each end after its start.
  const auto lines = lines_of(slurp(log));
  REQUIRE(lines.size() == 17);
  CHECK(lines[0].rfind("# shardplan sweep ", 0) == 0);
  CHECK(lines[0].find("8 of 8 points to plan, threads 2, timeout 1e-06s") != std::string::npos);
  std::map<std::string, int> seen;
  for (std::size_t i = 1; i < lines.size(); ++i) {
    const std::size_t tab1 = lines[i].find('\t'), tab2 = lines[i].find('\t', tab1 + 1),
                      tab3 = lines[i].find('\t', tab2 + 1);
    REQUIRE(tab3 != std::string::npos);
    const std::string event = lines[i].substr(tab1 + 1, tab2 - tab1 - 1);
    const std::string index = lines[i].substr(tab2 + 1, tab3 - tab2 - 1);
    if (event == "start") {
      CHECK(seen[index]++ == 0);
    } else {
      CHECK(event == "end");
      CHECK(seen[index] == 1);
      CHECK(lines[i].find("\tTIMEOUT\t") != std::string::npos);
    }
  }
  CHECK(seen.size() == 8);

  // With a timeout that is never reached the rows are byte-identical at any --threads
  // (the timeout is in the sweep id: rows planned under another limit are another sweep's).
  const RunResult one = sweep("--timeout 1h --threads 1");
  const RunResult two = sweep("--timeout 1h --threads 2");
  REQUIRE(one.exit_code == 0);
  CHECK(one.out == two.out);
  CHECK(one.out.find("TIMEOUT") == std::string::npos);
  const RunResult none = sweep("--threads 1");
  CHECK(none.out != one.out);
  CHECK(lines_of(none.out).size() == lines_of(one.out).size());

  const RunResult bad = sweep("--timeout soon");
  CHECK(bad.exit_code == 2);
  CHECK(bad.err ==
        "error: --timeout: expected a duration per point such as 30s, 2m, 1h or 500ms (a bare number is seconds), "
        "found 'soon'\n");
}

}  // namespace
}  // namespace shardplan::testing
