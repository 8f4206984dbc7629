// One basis for "% used" (planner/memory_basis.h), reported the same by every
// output: the plan summary, the plan file's memory block, `show`, `diff` (text and
// JSON) and `sweep`'s max_hbm_fraction; and the same figure as torchrec's
// EmbeddingStats (--stats json hbm_ratio), whose basis it is. Plans the examples.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <fmt/format.h>
#include <regex>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

struct BasisCase {
  const char* name;
  std::string inputs;
  std::string sweep;  // the same inputs as a one-point sweep
};

std::vector<BasisCase> basis_cases() {
  const std::string dlrm = "--model " + kSourceDir + "/configs/dlrm-criteo-terabyte.yaml --topology " + kSourceDir;
  return {{"quickstart", "--config " + kQuickstartConfig, "--config " + kQuickstartConfig + " --set hbm_cap=16GiB"},
          {"dlrm-2x8", dlrm + "/configs/topology-2x8-80g.yaml",
           dlrm + "/configs/topology-2x8-80g.yaml --set hbm_cap=80GiB"},
          // The case: the fullest rank near the limit, where two bases disagree most.
          {"dlrm-16g", dlrm + "/configs/topology-1x8-80g.yaml --hbm-cap 16GiB",
           dlrm + "/configs/topology-1x8-80g.yaml --set hbm_cap=16GiB"}};
}

// The line of `text` that starts with `prefix` ("" when none).
std::string line_starting(const std::string& text, const std::string& prefix) {
  for (const std::string& line : split_lines(text))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

TEST_CASE("memory basis: summary, plan file, show, diff, sweep and stats agree per rank", "[app][memory-basis]") {
  for (const BasisCase& c : basis_cases()) {
    INFO(c.name);
    const std::string path = scratch_prefix() + "basis-" + c.name + ".json";
    const RunResult planned = run_shardplan("plan " + c.inputs + " -o " + path);
    REQUIRE(planned.exit_code == 0);
    const auto plan = nlohmann::json::parse(slurp(path));
    const auto& memory = plan["memory"]["per_rank"];
    REQUIRE(memory.size() == plan["topology"]["devices"].size());

    // The fullest rank by the memory block, worked out here.
    std::size_t peak_rank = 0;
    double peak = -1;
    for (std::size_t r = 0; r < memory.size(); ++r) {
      const double f = memory[r]["hbm_used"].get<double>() / memory[r]["hbm_usable"].get<double>();
      if (f > peak) peak = f, peak_rank = r;
    }
    const auto& m = memory[peak_rank];
    // used = shards + what the reservation took beyond its percentage; usable =
    // device less the percentage: the block's figures from the file's other parts.
    const double pct = plan["shardplan"]["inputs"]["planner"]["storage_reservation"]["percentage"];
    const auto device = plan["topology"]["devices"][peak_rank]["hbm"].get<std::int64_t>();
    const auto usable = static_cast<std::int64_t>((1 - pct) * static_cast<double>(device));
    CHECK(m["hbm_usable"].get<std::int64_t>() == usable);
    CHECK(m["hbm_used"].get<std::int64_t>() == plan["per_rank"][peak_rank]["hbm"].get<std::int64_t>() + usable -
                                                   plan["reserved"][peak_rank]["hbm"].get<std::int64_t>());

    const std::string expected =
        fmt::format("HBM     max {:.2f} GiB on rank {} of {:.2f} GiB usable ({:.1f}%)",
                    m["hbm_used"].get<double>() / (1 << 30), peak_rank, m["hbm_usable"].get<double>() / (1 << 30),
                    peak * 100);
    // plan's summary (stderr) and show print the same line.
    CHECK(line_starting(planned.err, "HBM ") == expected);
    const RunResult shown = run_shardplan("show " + path);
    REQUIRE(shown.exit_code == 0);
    CHECK(line_starting(shown.out, "HBM ") == expected);
    CHECK(shown.out.find("memory  used = shards + dense/KJT reservation, usable = device less reservation percentage\n") !=
          std::string::npos);

    // diff: the fullest rank of NEW, in JSON and in text.
    const RunResult diff = run_shardplan("diff " + path + " " + path + " --format json");
    REQUIRE(diff.exit_code == 0);
    const auto d = nlohmann::json::parse(diff.out);
    CHECK(d["memory"]["hbm_peak"]["new"]["rank"] == peak_rank);
    CHECK(d["memory"]["hbm_peak"]["new"]["used"] == m["hbm_used"]);
    CHECK(d["memory"]["hbm_peak"]["new"]["usable"] == m["hbm_usable"]);
    CHECK(d["memory"]["hbm_peak"]["new"]["fraction"].get<double>() == Approx(peak).epsilon(1e-12));
    CHECK(d["ranks"][peak_rank]["hbm"]["new"] == m["hbm_used"]);
    const RunResult diff_text = run_shardplan("diff " + path + " " + path);
    CHECK(diff_text.out.find(fmt::format("of {:.2f} GiB usable ({:.1f}%)\n", m["hbm_usable"].get<double>() / (1 << 30),
                                         peak * 100)) != std::string::npos);
    // hbm-over on that basis: just below the peak fails, just above passes.
    CHECK(run_shardplan("diff " + path + " " + path + " --fail-on hbm-over=" + std::to_string(peak * 99.9) + "%")
              .exit_code == 1);
    CHECK(run_shardplan("diff " + path + " " + path + " --fail-on hbm-over=" + std::to_string(peak * 100.1) + "%")
              .exit_code == 0);

    // torchrec's EmbeddingStats ratio of that rank is the same figure.
    const RunResult stats = run_shardplan("plan " + c.inputs + " --stats json -o " + path + ".again");
    REQUIRE(stats.exit_code == 0);
    const auto report = nlohmann::json::parse(stats.err);
    REQUIRE(report.contains("ranks"));
    CHECK(report["ranks"][peak_rank]["hbm_ratio"].get<double>() == Approx(peak).epsilon(1e-9));

    // sweep: one point with the same inputs.
    const RunResult swept = run_shardplan("sweep " + c.sweep);
    INFO(swept.err);
    REQUIRE(swept.exit_code == 0);
    const auto row = nlohmann::json::parse(split_lines(swept.out).front());
    CHECK(row["max_hbm_fraction"].get<double>() == Approx(peak).epsilon(1e-12));
  }
}

}  // namespace
}  // namespace shardplan::testing
