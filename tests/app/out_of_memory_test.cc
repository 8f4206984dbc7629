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

// 40 tables on 65 536 ranks: every row-wise option holds 65 536 shards, gigabytes
// of options in all, while every value is far inside the loader's limits.
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
  const std::string command = "ulimit -v 400000; '" + std::string(SHARDPLAN_BINARY) + "' plan --config '" + input +
                              "' --stats none -o '" + plan + "' 2>'" + scratch_prefix() + "oom.err'";
  const int status = std::system(command.c_str());
  REQUIRE(WIFEXITED(status));
  CHECK(WEXITSTATUS(status) == 4);
  const std::string err = slurp(scratch_prefix() + "oom.err");
  // 400000 KiB = 390 MiB.
  CHECK(err.substr(0, err.find('\n')) ==
        "error: out of memory while enumerating sharding options: the model needs more memory than available "
        "(address space limit: 390 MiB, ulimit -v)");
  CHECK(err.find("--proposers greedy") != std::string::npos);
  CHECK(err.find("internal error") == std::string::npos);
  CHECK_FALSE(std::filesystem::exists(plan));
}

}  // namespace
}  // namespace shardplan::testing
