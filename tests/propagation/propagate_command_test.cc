// The `propagate` command line: --help, -o (atomic, nothing on bad input),
// determinism, unreadable input. Propagation results are in the expectation files.
#include <catch2/catch.hpp>

#include <filesystem>

#include "config/config_test_util.h"
#include "support/run_binary.h"

namespace {

using shardplan::testing::run_shardplan;
using shardplan::testing::scratch_prefix;
using shardplan::testing::slurp;
using shardplan::testing::write_scratch;

const char* kE1 = R"({"mesh": [["a", 2], ["b", 2], ["c", 2]],
 "tensors": [{"name": "x", "shape": [8, 8], "sharding": "[{a}, {?}]"},
             {"name": "y", "shape": [8, 8], "sharding": "[{?}, {a}]"},
             {"name": "z", "shape": [8, 8]}],
 "ops": [{"name": "add0", "kind": "add", "operands": ["x", "y"], "results": ["z"]}],
 "outputs": ["z"]})";

}  // namespace

TEST_CASE("propagate --help lists every flag and an example", "[propagate]") {
  auto r = run_shardplan("propagate --help");
  CHECK(r.exit_code == 0);
  for (const char* flag : {"--input", "--strategy", "--conservative-propagation", "--keep-sharding-rules",
                           "--module-dump-directory", "--factor-propagation", "--no-op-priority-propagation",
                           "--output", "--format"})
    CHECK(r.out.find(flag) != std::string::npos);
  CHECK(r.out.find("shardplan propagate --input configs/mlp-2layer-propagate.json") != std::string::npos);
}

TEST_CASE("propagate -o writes the result file and nothing to stdout", "[propagate]") {
  std::string input = write_scratch("e1.json", kE1);
  std::string out = scratch_prefix() + "e1-result.json";
  std::filesystem::remove(out);
  auto r = run_shardplan("propagate --input '" + input + "' --strategy aggressive -o '" + out + "'");
  CHECK(r.exit_code == 0);
  CHECK(r.out.empty());
  auto stdout_run = run_shardplan("propagate --input '" + input + "' --strategy aggressive");
  CHECK(slurp(out) == stdout_run.out);
  CHECK(slurp(out).find(R"({"name":"z","sharding":"[{a, ?}, {?}]"})") != std::string::npos);
}

TEST_CASE("propagate writes no output file for bad input", "[propagate]") {
  std::string input = write_scratch("bad.json", R"({"mesh": [["a", 2]], "tensors": [], "ops": [], "outputs": ["q"]})");
  std::string out = scratch_prefix() + "bad-result.json";
  std::filesystem::remove(out);
  auto r = run_shardplan("propagate --input '" + input + "' -o '" + out + "'");
  CHECK(r.exit_code == 2);
  CHECK(r.err == "error: " + input + ":1:60: outputs: unknown tensor 'q'\n");
  CHECK_FALSE(std::filesystem::exists(out));
}

TEST_CASE("propagate output is byte-identical across runs", "[propagate]") {
  std::string input = write_scratch("e1.json", kE1);
  auto first = run_shardplan("propagate --input '" + input + "' --keep-sharding-rules");
  auto second = run_shardplan("propagate --input '" + input + "' --keep-sharding-rules");
  CHECK(first.exit_code == 0);
  CHECK(first.out == second.out);
}

TEST_CASE("propagate reports a missing input file", "[propagate]") {
  auto r = run_shardplan("propagate --input '" + scratch_prefix() + "no-such-program.json'");
  CHECK(r.exit_code == 2);
  CHECK(r.err.rfind("error: ", 0) == 0);
  CHECK(r.out.empty());
}
