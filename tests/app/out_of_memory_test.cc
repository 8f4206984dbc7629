// Running out of memory is reported with the stage and the limit, exit 4, and no
// output file: through the real binary under an address-space limit (ulimit -v).
// Not run in the ASan build (scripts/test-sanitized): ASan cannot start under it.
#include <sys/wait.h>

#include <catch2/catch.hpp>
#include <cstdlib>
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

// 40 tables on 65 536 ranks: every value far inside the loader's limits, yet the run
// needs about 240 MB (per-rank loads, per-shard perf columns, a plan of 65 536-shard
// row-wise tables to render) against the 97 MiB limit below.
std::string huge_case() {
  nlohmann::json tables = nlohmann::json::array();
  for (int t = 0; t < 40; ++t)
    tables.push_back({{"name", "t" + std::to_string(t)}, {"num_embeddings", 1000000}, {"embedding_dim", 128}});
  nlohmann::json c = {
      {"model", {{"name", "oom"}, {"modules", {{{"path", "ebc"}, {"kind", "embedding_bag"}, {"tables", tables}}}}}},
      {"topology", {{"world_size", 65536}, {"local_world_size", 8}, {"compute_device", "cuda"}, {"hbm_cap", "80 GiB"}}},
      {"planner", nlohmann::json::object()}};
  return write_scratch("oom-case.json", c.dump());
}

TEST_CASE("out of memory: exit 4 with the stage and the limit, no plan file", "[out-of-memory]") {
  const std::string input = huge_case();
  const std::string plan = scratch_prefix() + "oom-plan.json";
  std::filesystem::remove(plan);
  // std::system runs a shell of its own: the limit applies to it and shardplan only.
  const std::string command = "ulimit -v 100000; '" + std::string(SHARDPLAN_BINARY) + "' plan --config '" + input +
                              "' --stats none -o '" + plan + "' 2>'" + scratch_prefix() + "oom.err'";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);
  const std::string err = slurp(scratch_prefix() + "oom.err");
  // 100000 KiB = 97 MiB. Which stage runs out depends on the allocator; the message
  // names it, then the limit.
  const std::string first_line = err.substr(0, err.find('\n'));
  CHECK(first_line.rfind("error: out of memory while ", 0) == 0);
  CHECK(first_line.find(": the model needs more memory than available (address space limit: 97 MiB, ulimit -v)") !=
        std::string::npos);
  CHECK(err.find("--proposers greedy") != std::string::npos);
  CHECK(err.find("internal error") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(plan));
}

// Running out while big JSON trees are alive (--stats json builds one per rank list)
// used to end in std::terminate at some limits: nlohmann's destructor allocates as
// the exception unwinds. main keeps a reserve for that (common/out_of_memory.h), and
// the plan file is written without one big tree. Before that, each of these limits
// aborted (signal 6); each one runs out in a different stage.
TEST_CASE("out of memory with JSON statistics: exit 4 at every limit, never an abort", "[out-of-memory]") {
  const std::string input = huge_case();
  for (const char* limit_kib : {"60000", "100000", "140000", "170000"}) {
    INFO("ulimit -v " << limit_kib);
    const std::string plan = scratch_prefix() + "oom-json-plan.json";
    std::filesystem::remove(plan);
    const std::string command = std::string("ulimit -v ") + limit_kib + "; '" + SHARDPLAN_BINARY + "' plan --config '" +
                                input + "' --stats json -o '" + plan + "' >/dev/null 2>'" + scratch_prefix() +
                                "oom-json.err'";
    const int status = std::system(command.c_str());
    REQUIRE(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 4);
    const std::string err = slurp(scratch_prefix() + "oom-json.err");
    CHECK(err.rfind("error: out of memory while ", 0) == 0);
    CHECK(err.find("terminate") == std::string::npos);
    CHECK_FALSE(std::filesystem::exists(plan));
  }
}

}  // namespace
}  // namespace shardplan::testing
