// One basis for "% used" (planner/memory_basis.h), reported the same by every
// output: the plan summary, the plan file's memory block, `show`, `diff` (text and
// JSON), `explain` (text and JSON), the HTML report and `sweep`'s max_hbm_fraction; and the same figure as torchrec's
// EmbeddingStats (--stats json hbm_ratio), whose basis it is. Plans the examples.
#include <algorithm>

#include <fmt/format.h>
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
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

TEST_CASE("memory basis: summary, plan file, show, diff, explain, report, sweep and stats agree per rank",
          "[app][memory-basis]") {
  for (const BasisCase& c : basis_cases()) {
    INFO(c.name);
    const std::string path = scratch_prefix() + "basis-" + c.name + ".json";
    const RunResult planned = run_shardplan("plan " + c.inputs + " -o " + path + " --report " + path + ".html");
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

    const std::string expected = fmt::format("HBM     max {:.2f} GiB on rank {} of {:.2f} GiB usable ({:.1f}%)",
                                             m["hbm_used"].get<double>() / (1 << 30), peak_rank,
                                             m["hbm_usable"].get<double>() / (1 << 30), peak * 100);
    // plan's summary (stderr) and show print the same line.
    CHECK(line_starting(planned.err, "HBM ") == expected);
    const RunResult shown = run_shardplan("show " + path);
    REQUIRE(shown.exit_code == 0);
    CHECK(line_starting(shown.out, "HBM ") == expected);
    CHECK(shown.out.find(
              "memory  used = shards + dense/KJT reservation, usable = device less reservation percentage\n") !=
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

    // The report's headline card: the fullest rank's used and usable bytes and fraction.
    const std::string html = slurp(path + ".html");
    const auto data_value = [&html](const std::string& id) {
      std::smatch match;
      const std::regex pattern("id=\"" + id + "\" data-value=\"([^\"]*)\"");
      return std::regex_search(html, match, pattern) ? match[1].str() : std::string("(none)");
    };
    CHECK(data_value("hbm-used") == std::to_string(m["hbm_used"].get<std::int64_t>()));
    CHECK(data_value("hbm-usable") == std::to_string(m["hbm_usable"].get<std::int64_t>()));
    CHECK(std::stod(data_value("hbm-fraction") == "(none)" ? "-1" : data_value("hbm-fraction")) ==
          Approx(peak).epsilon(1e-12));

    // explain, for a table with a shard on the fullest rank: its ranks' use and usable
    // capacity, and the fullest rank, as the plan file's memory block states them.
    std::string explained_fqn;
    std::vector<std::size_t> explained_ranks;
    for (const auto& [module, tables] : plan["plan"].items())
      for (const auto& [name, table] : tables.items())
        for (const auto& r : table["ranks"])
          if (explained_fqn.empty() && r.get<std::size_t>() == peak_rank) {
            explained_fqn = module + "." + name;
            for (const auto& rank : table["ranks"]) explained_ranks.push_back(rank.get<std::size_t>());
          }
    REQUIRE(!explained_fqn.empty());
    std::sort(explained_ranks.begin(), explained_ranks.end());
    explained_ranks.erase(std::unique(explained_ranks.begin(), explained_ranks.end()), explained_ranks.end());
    INFO(explained_fqn);
    const RunResult explained = run_shardplan("explain " + c.inputs + " --table " + explained_fqn + " --format json");
    REQUIRE(explained.exit_code == 0);
    const auto e = nlohmann::json::parse(explained.out);
    CHECK(e["memory"]["basis"] == plan["memory"]["basis"]);
    CHECK(e["memory"]["hbm_peak"]["rank"] == peak_rank);
    CHECK(e["memory"]["hbm_peak"]["used"] == m["hbm_used"]);
    CHECK(e["memory"]["hbm_peak"]["usable"] == m["hbm_usable"]);
    CHECK(e["memory"]["hbm_peak"]["fraction"].get<double>() == Approx(peak).epsilon(1e-12));
    REQUIRE(e["memory"]["ranks"].size() == explained_ranks.size());
    const RunResult explained_text = run_shardplan("explain " + c.inputs + " --table " + explained_fqn);
    REQUIRE(explained_text.exit_code == 0);
    CHECK(line_starting(explained_text.out, "HBM ") == expected);
    CHECK(explained_text.out.find("memory  used = shards + dense/KJT reservation, usable = device less reservation "
                                  "percentage\n") != std::string::npos);
    for (std::size_t i = 0; i < explained_ranks.size(); ++i) {
      const std::size_t r = explained_ranks[i];
      const auto& per_rank = e["memory"]["ranks"][i];
      CHECK(per_rank["rank"] == r);
      for (const char* key : {"hbm_used", "hbm_usable", "ddr_used", "ddr_usable"})
        CHECK(per_rank[key] == memory[r][key]);
      // The text's line of that rank (the first 8 are listed): GiB used/usable and the fraction.
      if (i >= 8) continue;
      const auto gib = [&](const char* key) { return memory[r][key].get<double>() / (1 << 30); };
      const auto use = [&](const char* used, const char* usable) {
        const double capacity = memory[r][usable].get<double>();
        return fmt::format(
            "{:.2f}/{:.2f} ({})", gib(used), gib(usable),
            capacity > 0 ? fmt::format("{:.1f}%", 100 * memory[r][used].get<double>() / capacity) : std::string("n/a"));
      };
      const std::string rank_line = line_starting(explained_text.out, fmt::format("  rank {:<4}  HBM ", r));
      CHECK(rank_line.find(use("hbm_used", "hbm_usable")) != std::string::npos);
      CHECK(rank_line.find("DDR " + use("ddr_used", "ddr_usable")) != std::string::npos);
    }

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
