// The real binary refuses every ambiguous number with a suggestion (ratios, sizes
// without a unit, inf and nan), and `diff`'s report and exit codes: integers stay
// integers in JSON, moved ranks are not a layout change, removed ranks and tables
// are named, changed input fields are listed, --detailed-exitcode.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

const std::string kUnitsNote = "(KB/MB/GB/TB are read as KiB/MiB/GiB/TiB (1024-based, as torchrec's constants are))";

std::string refusal_plan(const std::string& name, const std::string& flags) {
  const std::string path = scratch_prefix() + name;
  const RunResult r = run_shardplan("plan --config " + kQuickstartConfig + " --stats none " + flags + " -o " + path);
  INFO(r.err);
  REQUIRE(r.exit_code == 0);
  return path;
}

bool refusal_mentions(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_CASE("refusals: sizes on the command line need a unit", "[app][refusals]") {
  const RunResult r = run_shardplan("plan --config " + kQuickstartConfig + " --hbm-cap 80");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(r.err == "error: --hbm-cap: a size needs a unit, found '80': did you mean '80GiB'? " + kUnitsNote + "\n");
  const RunResult ddr = run_shardplan("plan --config " + kQuickstartConfig + " --ddr-cap 512");
  CHECK(ddr.exit_code == 2);
  CHECK(refusal_mentions(ddr.err, "error: --ddr-cap: a size needs a unit, found '512': did you mean '512GiB'?"));
  const RunResult sweep = run_shardplan("sweep --config " + kQuickstartConfig + " --set hbm_cap=16,32");
  CHECK(sweep.exit_code == 2);
  CHECK(refusal_mentions(sweep.err, "a size needs a unit, found '16': did you mean '16GiB'?"));
  // Every command with a size flag; not a number, or negative: refused with a unit shown.
  struct SizeCase {
    std::string args, message;
  };
  const std::string plan = refusal_plan("refusal-size.json", "");
  for (const SizeCase& c : std::vector<SizeCase>{
           {"enumerate --config " + kQuickstartConfig + " --hbm-cap 80",
            "error: --hbm-cap: a size needs a unit, found '80': did you mean '80GiB'?"},
           {"explain --config " + kQuickstartConfig + " --table t_query --ddr-cap 64",
            "error: --ddr-cap: a size needs a unit, found '64': did you mean '64GiB'?"},
           {"plan --config " + kQuickstartConfig + " --hbm-cap inf",
            "error: --hbm-cap: expected a size such as '80 GiB', found 'inf'\n"},
           {"plan --config " + kQuickstartConfig + " --hbm-cap=-5GiB",
            "error: --hbm-cap: expected a size of 0 or more such as '80 GiB', found '-5GiB'\n"},
           {"sweep --config " + kQuickstartConfig + " --set ddr_cap=nan",
            "error: --set ddr_cap[0]: expected a size such as '80 GiB', found 'nan'\n"},
           {"diff " + plan + " " + plan + " --fail-on rank-hbm-over=inf",
            "error: --fail-on: condition 'rank-hbm-over=inf': expected a size such as '80 GiB', found 'inf'\n"},
           {"diff " + plan + " " + plan + " --fail-on table-ddr-over=-1GiB",
            "error: --fail-on: condition 'table-ddr-over=-1GiB': expected a size of 0 or more such as '80 GiB'"},
       }) {
    INFO(c.args);
    const RunResult r = run_shardplan(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(refusal_mentions(r.err, c.message));
  }
  // GB is read as GiB, and --help says so.
  const std::string gb = refusal_plan("refusal-gb.json", "--hbm-cap 16GB");
  const std::string gib = refusal_plan("refusal-gib.json", "--hbm-cap 16GiB");
  CHECK(slurp(gb) == slurp(gib));
  CHECK(refusal_mentions(run_shardplan("plan --help").out, "KB/MB/GB/TB are read as KiB/MiB/GiB/TiB"));
}

TEST_CASE("refusals: ratios are 5% or 0.05, never a bare number above 1, never inf or nan", "[app][refusals]") {
  const std::string plan = refusal_plan("refusal-ratio.json", "");
  struct Case {
    std::string args, message;
  };
  const std::vector<Case> cases = {
      {"diff " + plan + " " + plan + " --tolerance 5",
       "--tolerance: a ratio above 1 is ambiguous, found '5': did you mean 5%? (write 5% or 0.05)"},
      {"diff " + plan + " " + plan + " --tolerance inf",
       "--tolerance: expected a finite ratio such as 5% or 0.05, found 'inf'"},
      {"diff " + plan + " " + plan + " --tolerance nan",
       "--tolerance: expected a finite ratio such as 5% or 0.05, found 'nan'"},
      {"diff " + plan + " " + plan + " --tolerance -1%",
       "--tolerance: expected a ratio of 0 or more, such as 5% or 0.05, found '-1%'"},
      {"diff " + plan + " " + plan + " --fail-on hbm-over=90",
       "--fail-on: condition 'hbm-over=90': a ratio above 1 is ambiguous, found '90': did you mean 90%?"},
      {"diff " + plan + " " + plan + " --fail-on ddr-over=inf",
       "--fail-on: condition 'ddr-over=inf': expected a finite ratio"},
      {"diff " + plan + " " + plan + " --fail-on rank-perf-over=nan",
       "--fail-on: condition 'rank-perf-over=nan': expected a finite time"},
      {"diff " + plan + " " + plan + " --fail-on table-hbm-over=2",
       "--fail-on: condition 'table-hbm-over=2': a size needs a unit, found '2': did you mean '2GiB'?"},
      {"plan --config " + kQuickstartConfig + " --reservation-percentage 15",
       "--reservation-percentage: a ratio above 1 is ambiguous, found '15': did you mean 15%?"},
      {"plan --config " + kQuickstartConfig + " --reservation-percentage nan",
       "--reservation-percentage: expected a finite ratio such as 5% or 0.05, found 'nan'"},
      {"plan --config " + kQuickstartConfig + " --reservation-percentage inf",
       "--reservation-percentage: expected a finite ratio such as 5% or 0.05, found 'inf'"},
      {"plan --config " + kQuickstartConfig + " --reservation-percentage 150%",
       "--reservation-percentage: expected a ratio from 0% to 100% (0 to 1), found 1.5 (150%)"},
      {"explain --config " + kQuickstartConfig + " --table t_query --reservation-percentage 15",
       "--reservation-percentage: a ratio above 1 is ambiguous, found '15': did you mean 15%?"},
      // sweep's --set takes the same ratios as the flag.
      {"sweep --config " + kQuickstartConfig + " --set reservation_percentage=0.1,15",
       "--set reservation_percentage[1]: a ratio above 1 is ambiguous, found '15': did you mean 15%?"},
      {"sweep --config " + kQuickstartConfig + " --set reservation_percentage=inf",
       "--set reservation_percentage[0]: expected a finite ratio such as 5% or 0.05, found 'inf'"},
      {"sweep --config " + kQuickstartConfig + " --set reservation_percentage=nan%",
       "--set reservation_percentage[0]: expected a finite ratio such as 5% or 0.05, found 'nan%'"},
      {"diff " + plan + " " + plan + " --fail-on table-perf-increase=5",
       "--fail-on: condition 'table-perf-increase=5': a ratio above 1 is ambiguous, found '5': did you mean 5%?"},
      {"diff " + plan + " " + plan + " --fail-on rank-hbm-increase=nan",
       "--fail-on: condition 'rank-hbm-increase=nan': expected a finite ratio"},
  };
  for (const Case& c : cases) {
    INFO(c.args);
    const RunResult r = run_shardplan(c.args);
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    CHECK(refusal_mentions(r.err, c.message));
  }
  // The two spellings are the same ratio.
  const std::string percent = refusal_plan("refusal-pct.json", "--reservation-percentage 20%");
  const std::string fraction = refusal_plan("refusal-frac.json", "--reservation-percentage 0.2");
  CHECK(slurp(percent) == slurp(fraction));
  CHECK(nlohmann::json::parse(slurp(percent))["shardplan"]["inputs"]["planner"]["storage_reservation"]["percentage"] ==
        0.2);
  // sweep: 5% and 0.05 are the same point.
  const RunResult swept_percent =
      run_shardplan("sweep --config " + kQuickstartConfig + " --set reservation_percentage=5%");
  const RunResult swept_fraction =
      run_shardplan("sweep --config " + kQuickstartConfig + " --set reservation_percentage=0.05");
  REQUIRE(swept_percent.exit_code == 0);
  REQUIRE(swept_fraction.exit_code == 0);
  const auto row_percent = nlohmann::json::parse(split_lines(swept_percent.out).front());
  const auto row_fraction = nlohmann::json::parse(split_lines(swept_fraction.out).front());
  CHECK(row_percent["values"]["reservation_percentage"] == 0.05);
  CHECK(row_percent["max_hbm_bytes"] == row_fraction["max_hbm_bytes"]);
  CHECK(row_percent["max_hbm_fraction"] == row_fraction["max_hbm_fraction"]);
  CHECK(run_shardplan("diff " + plan + " " + plan + " --tolerance 5%").exit_code == 0);
  CHECK(run_shardplan("diff " + plan + " " + plan + " --tolerance 0.05").exit_code == 0);
}

TEST_CASE("diff: JSON integers, input fields, removed ranks", "[app][diff]") {
  const std::string four = refusal_plan("diff-ws4.json", "--hbm-cap 16GiB --world-size 4");
  const std::string two = refusal_plan("diff-ws2.json", "--hbm-cap 24GiB");
  const RunResult json = run_shardplan("diff " + four + " " + two + " --format json");
  REQUIRE((json.exit_code == 0 || json.exit_code == 1));
  const auto d = nlohmann::json::parse(json.out);
  for (const char* key : {"world_size", "num_tables", "total_hbm", "total_ddr", "max_rank_hbm", "num_proposals"}) {
    INFO(key);
    CHECK(d["summary"][key]["old"].is_number_integer());
    CHECK(d["summary"][key]["delta"].is_number_integer());
  }
  CHECK(d["summary"]["world_size"]["old"] == 4);
  CHECK(d["summary"]["world_size"]["new"] == 2);
  CHECK(json.out.find("\"old\": 4.0") == std::string::npos);
  // Ranks 2 and 3 are only in OLD: named removed, not "0.0000 (-3.2160)".
  REQUIRE(d["ranks"].size() == 4);
  for (int r = 2; r < 4; ++r) CHECK(d["ranks"][r]["change"] == "removed");
  // Each changed input field, old -> new.
  const auto& fields = d["input_changes"];
  auto field = [&](const std::string& name) {
    for (const auto& f : fields)
      if (f["field"] == name) return f;
    return nlohmann::json();
  };
  CHECK(field("topology.hbm_cap")["old"] == "17179869184");
  CHECK(field("topology.hbm_cap")["new"] == "25769803776");
  CHECK(field("topology.world_size")["old"] == "4");
  CHECK(field("topology.world_size")["new"] == "2");
  CHECK(fields.size() >= 2);

  const RunResult text = run_shardplan("diff " + four + " " + two);
  CHECK(refusal_mentions(text.out, "\n  topology.hbm_cap: 17179869184 (16.00 GiB) -> 25769803776 (24.00 GiB)\n"));
  CHECK(refusal_mentions(text.out, "\n  topology.world_size: 4 -> 2\n"));
  CHECK(refusal_mentions(text.out, "\n      3  removed (NEW has fewer ranks); was "));
  CHECK_FALSE(refusal_mentions(text.out, "0.0000 ("));
  const RunResult md = run_shardplan("diff " + four + " " + two + " --format markdown");
  CHECK(refusal_mentions(md.out, "**Inputs changed:**\n"));
  CHECK(refusal_mentions(md.out, "- topology.hbm\\_cap: 17179869184 (16.00 GiB) -> 25769803776 (24.00 GiB)\n"));
}

TEST_CASE("diff: a table whose shards only moved shows its ranks, not a layout line; tables named added/removed",
          "[app][diff]") {
  const std::string base = refusal_plan("diff-move-a.json", "");
  auto doc = nlohmann::json::parse(slurp(base));
  // Move one single-shard table to another rank, by hand.
  std::string moved;
  for (auto& [name, table] : doc["plan"]["sparse.ebc"].items())
    if (moved.empty() && table["shards"].size() == 1) {
      const int from = table["shards"][0]["rank"];
      const int to = (from + 1) % doc["topology"]["world_size"].get<int>();
      table["shards"][0]["rank"] = to;
      table["ranks"] = {to};
      moved = name;
    }
  REQUIRE_FALSE(moved.empty());
  const std::string moved_path = write_scratch("diff-move-b.json", doc.dump(2));
  const RunResult r = run_shardplan("diff " + base + " " + moved_path + " --fail-on ranks-change");
  CHECK(r.exit_code == 1);
  CHECK(refusal_mentions(r.out, "  sparse.ebc." + moved + "\n    ranks ["));
  CHECK_FALSE(refusal_mentions(r.out, "layout"));
  CHECK(refusal_mentions(r.out, "ranks-change: 1 table (sparse.ebc." + moved + ")"));

  doc["plan"]["sparse.ebc"].erase(moved);
  const std::string removed = write_scratch("diff-move-c.json", doc.dump(2));
  const RunResult gone = run_shardplan("diff " + base + " " + removed + " --fail-on tables-change");
  CHECK(gone.exit_code == 1);
  CHECK(refusal_mentions(gone.out, "  sparse.ebc." + moved + "\n    removed: was "));
  const RunResult back = run_shardplan("diff " + removed + " " + base);
  CHECK(refusal_mentions(back.out, "  sparse.ebc." + moved + "\n    added: "));
}

TEST_CASE("diff --detailed-exitcode: 0 no change, 5 changed but not worse, 1 worse, 2 bad input", "[app][diff]") {
  const std::string a = refusal_plan("diff-x-a.json", ""), same = refusal_plan("diff-x-same.json", "");
  const std::string slow = refusal_plan("diff-x-slow.json", "--batch-size 4096");
  CHECK(run_shardplan("diff " + a + " " + same + " --detailed-exitcode").exit_code == 0);
  CHECK(run_shardplan("diff " + slow + " " + a + " --detailed-exitcode").exit_code == 5);  // faster: changed, not worse
  CHECK(run_shardplan("diff " + slow + " " + a).exit_code == 0);                           // without the flag
  CHECK(run_shardplan("diff " + a + " " + slow + " --detailed-exitcode").exit_code == 1);
  CHECK(run_shardplan("diff " + a + " " + scratch_prefix() + "no-such.json --detailed-exitcode").exit_code == 2);
  const auto j = nlohmann::json::parse(run_shardplan("diff " + slow + " " + a + " --format json").out);
  CHECK(j["changed"] == true);
  CHECK(nlohmann::json::parse(run_shardplan("diff " + a + " " + same + " --format json").out)["changed"] == false);
}

TEST_CASE("diff: hbm-over on a plan file without its memory block is bad input", "[app][diff]") {
  const std::string base = refusal_plan("diff-old-format.json", "");
  auto doc = nlohmann::json::parse(slurp(base));
  doc.erase("memory");
  doc["shardplan"].erase("inputs");
  const std::string old_format = write_scratch("diff-old-format-b.json", doc.dump(2));
  const RunResult r = run_shardplan("diff " + base + " " + old_format + " --fail-on hbm-over=90%");
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(refusal_mentions(r.err, "condition 'hbm-over=90%' needs the plan file's \"memory\" block"));
  // Without the condition it still compares; the inputs are the same by their hash.
  const RunResult plain = run_shardplan("diff " + base + " " + old_format);
  CHECK(plain.exit_code == 0);
  CHECK(refusal_mentions(plain.out, "same inputs"));
}

}  // namespace
}  // namespace shardplan::testing
