// "No feasible plan" advice by failure kind, from the real binary: a table whose
// constraints are too narrow (which key, which options would fit), HBM short in all
// (how much more, which --hbm-cap / --world-size), DDR short for a kernel that keeps
// its weights in DDR (which --ddr-cap). Each advice line is checked whole (numbers
// as a pattern), and every suggested flag value is tried: it gives a plan, and one
// GiB less does not. No Python repr, no "0.00 B", no "tables named above".
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>
#include <regex>

#include "common/units.h"
#include "config/config_test_util.h"
#include "support/golden.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

const std::string kBytes = R"(\d+\.\d\d (?:B|KiB|MiB|GiB|TiB))";

// The line of `text` starting with `prefix` ("" when none does).
std::string advice_line_starting(const std::string& text, const std::string& prefix) {
  for (const auto& line : split_lines(text))
    if (line.rfind(prefix, 0) == 0) return line;
  return "";
}

// Whatever the kind, shardplan's own words only.
void check_plain_words(const std::string& err) {
  for (const char* leak :
       {"Storage(", "Perf(", "ShardingOptionGroup", "<torchrec", "0.00 B", "named above", "rank: None"})
    CHECK(err.find(leak) == std::string::npos);
}

int plan_exit(const std::string& config, const std::string& flags) {
  return run_shardplan("plan --config " + config + " --stats none -o /dev/null " + flags).exit_code;
}

// The GiB count of a "--flag NGiB" in `line` (-1 when absent).
long gib_of(const std::string& line, const std::string& flag) {
  std::smatch m;
  if (!std::regex_search(line, m, std::regex(flag + R"( (\d+)GiB)"))) return -1;
  return std::stol(m[1]);
}

// The largest shard's storage of `sharding_type`/`kernel` for table `fqn`, from `enumerate`.
Storage largest_shard(const std::string& config, const std::string& fqn, const std::string& sharding_type,
                      const std::string& kernel) {
  RunResult r = run_shardplan("enumerate --config " + config);
  REQUIRE(r.exit_code == 0);
  Storage largest;
  const nlohmann::json doc = nlohmann::json::parse(r.out);
  for (const auto& o : doc["options"]) {
    if (o["fqn"] != fqn || o["sharding_type"] != sharding_type || o["compute_kernel"] != kernel) continue;
    for (const auto& s : o["shards"])
      largest =
          std::max(largest, Storage{s["storage"]["hbm"].get<std::int64_t>(), s["storage"]["ddr"].get<std::int64_t>()});
  }
  return largest;
}

std::string gib_text(std::int64_t bytes) { return format_bytes(static_cast<double>(bytes)); }

TEST_CASE("advice: a table constrained to table_wise/fused that fits no rank names the constraint", "[app][advice]") {
  // 40M x 256 fp32 = 38.1 GiB in one shard; 8 GPUs of 32 GiB keep 27.2 GiB each after
  // the 15% reservation. Row-wise shards (4.8 GiB) or a UVM kernel would fit.
  const std::string model = R"(model:
  name: narrow
  modules:
    - path: ebc
      tables:
        - {name: big_tw, num_embeddings: 40000000, embedding_dim: 256}
        - {name: ok, num_embeddings: 50000, embedding_dim: 64}
)";
  const std::string rest = "topology: {world_size: 8, compute_device: cuda, hbm_cap: 32 GiB}\nplanner: {}\n";
  const std::string config = write_scratch(
      "advice_narrow.yaml",
      model + "  constraints:\n    big_tw: {sharding_types: [table_wise], compute_kernels: [fused]}\n" + rest);
  const std::string open = write_scratch("advice_open.yaml", model + rest);  // the same without constraints
  RunResult r = run_shardplan("plan --config " + config + " --stats none");
  REQUIRE(r.exit_code == 1);
  check_plain_words(r.err);
  const Storage tw = largest_shard(config, "ebc.big_tw", "table_wise", "fused");
  const Storage rw = largest_shard(open, "ebc.big_tw", "row_wise", "fused");
  const Storage uvm = largest_shard(open, "ebc.big_tw", "table_wise", "fused_uvm");
  CHECK(advice_line_starting(r.err, "  1) ") ==
        "  1) ebc.big_tw: its constraints allow only table_wise/fused, which no rank holds (largest shard " +
            gib_text(tw.hbm) + " HBM, largest free rank 27.20 GiB HBM)");
  CHECK(advice_line_starting(r.err, "     fix: ") ==
        "     fix: add column_wise, table_column_wise, row_wise or table_row_wise to "
        "constraints.big_tw.sharding_types (e.g. row_wise/fused: 8 shards of up to " +
            gib_text(rw.hbm) + " HBM)");
  CHECK(
      advice_line_starting(r.err, "     or: ") ==
      "     or:  add fused_uvm_caching or fused_uvm to constraints.big_tw.compute_kernels (e.g. table_wise/fused_uvm: "
      "1 shard of " +
          gib_text(uvm.hbm) + " HBM + " + gib_text(uvm.ddr) + " DDR)");
  // The old advice would have sent the user for more devices: no number of them helps.
  CHECK(r.err.find("more devices") == std::string::npos);
  CHECK(plan_exit(config, "--world-size 64") == 1);
}

TEST_CASE("advice: HBM short in all says how much more per rank and how many devices", "[app][advice]") {
  // Ten 4M x 256 fp32 tables (3.8 GiB each) held in HBM (fused only) on 2 GPUs of 16 GiB.
  std::string tables, constraints;
  for (int i = 0; i < 10; ++i) {
    tables += "        - {name: t" + std::to_string(i) + ", num_embeddings: 4000000, embedding_dim: 256}\n";
    constraints += "    t" + std::to_string(i) + ": {compute_kernels: [fused]}\n";
  }
  const std::string config = write_scratch(
      "advice_hbm.yaml", "model:\n  name: hbm\n  modules:\n    - path: ebc\n      tables:\n" + tables +
                             "  constraints:\n" + constraints +
                             "topology: {world_size: 2, compute_device: cuda, hbm_cap: 16 GiB}\nplanner: {}\n");
  RunResult r = run_shardplan("plan --config " + config + " --stats none");
  REQUIRE(r.exit_code == 1);
  check_plain_words(r.err);
  const std::string line = advice_line_starting(r.err, "  1) ");
  std::smatch m;
  REQUIRE(std::regex_match(line, m,
                           std::regex("  1\\) the smallest proposal needs (" + kBytes +
                                      ") HBM, all ranks together have "
                                      "27.20 GiB HBM for the tables: (" +
                                      kBytes + ") more HBM in all, (" + kBytes +
                                      ") more HBM per rank \\(--hbm-cap (\\d+)GiB\\), or at least (\\d+) devices of "
                                      "this size \\(--world-size \\5\\)")));
  CHECK(advice_line_starting(r.err, "  2) ") ==
        "  2) a smaller storage reservation (--reservation-percentage, now 0.15)");
  const long hbm = gib_of(line, "--hbm-cap");
  const int devices = std::stoi(m[5]);
  CHECK(plan_exit(config, "--hbm-cap " + std::to_string(hbm) + "GiB") == 0);
  CHECK(plan_exit(config, "--hbm-cap " + std::to_string(hbm - 1) + "GiB") == 1);
  CHECK(plan_exit(config, "--world-size " + std::to_string(devices)) == 0);
  CHECK(plan_exit(config, "--world-size " + std::to_string(devices - 1)) == 1);
}

TEST_CASE("advice: DDR short under fused_uvm_caching suggests the --ddr-cap that fits", "[app][advice]") {
  // 10M x 256 fp32 (9.5 GiB) kept in DDR by fused_uvm_caching, on one GPU with 8 GiB DDR.
  const std::string config = write_scratch("advice_ddr.yaml", R"(model:
  name: ddr
  modules:
    - path: ebc
      tables:
        - {name: cached, num_embeddings: 10000000, embedding_dim: 256}
  constraints:
    cached: {compute_kernels: [fused_uvm_caching]}
topology: {world_size: 1, compute_device: cuda, hbm_cap: 16 GiB, ddr_cap: 8 GiB}
planner: {}
)");
  RunResult r = run_shardplan("plan --config " + config + " --stats none");
  REQUIRE(r.exit_code == 1);
  check_plain_words(r.err);
  const std::string line = advice_line_starting(r.err, "  1) ");
  REQUIRE(std::regex_match(line, std::regex("  1\\) the smallest proposal needs " + kBytes +
                                            " DDR, all ranks together have "
                                            "8.00 GiB DDR for the tables: " +
                                            kBytes + " more DDR in all, " + kBytes +
                                            " more DDR per rank \\(--ddr-cap \\d+GiB\\), or at least 2 devices of this "
                                            "size \\(--world-size 2\\)")));
  CHECK(line.find("--hbm-cap") == std::string::npos);  // HBM is not what is short
  const long ddr = gib_of(line, "--ddr-cap");
  CHECK(plan_exit(config, "--ddr-cap " + std::to_string(ddr) + "GiB") == 0);
  CHECK(plan_exit(config, "--ddr-cap " + std::to_string(ddr - 1) + "GiB") == 1);
  CHECK(advice_line_starting(r.err, "  2) ").empty());  // the HBM reservation is no fix here
}

TEST_CASE("advice: a table too big in every option gets the capacity its nearest option lacks", "[app][advice]") {
  const std::string config = kSourceDir + "/configs/examples/infeasible.yaml";
  RunResult r = run_shardplan("plan --config " + config + " --stats none");
  REQUIRE(r.exit_code == 1);
  check_plain_words(r.err);
  const std::string line = advice_line_starting(r.err, "  1) ");
  REQUIRE(std::regex_match(
      line, std::regex("  1\\) ebc.huge: its nearest option, row_wise/fused_uvm \\(2 shards of up to " + kBytes +
                       " HBM \\+ " + kBytes + " DDR\\), needs " + kBytes + " more DDR per rank: --ddr-cap \\d+GiB")));
  const long ddr = gib_of(line, "--ddr-cap");
  CHECK(plan_exit(config, "--ddr-cap " + std::to_string(ddr) + "GiB") == 0);
  CHECK(plan_exit(config, "--ddr-cap " + std::to_string(ddr - 1) + "GiB") == 1);
}

}  // namespace
}  // namespace shardplan::testing
