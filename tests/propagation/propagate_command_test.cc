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
  for (const char* flag :
       {"--input", "--strategy", "--conservative-propagation", "--keep-sharding-rules", "--module-dump-directory",
        "--factor-propagation", "--no-op-priority-propagation", "--output", "--format"})
    CHECK(r.out.find(flag) != std::string::npos);
  CHECK(r.out.find("shardplan propagate --input configs/propagate/mlp-2layer.json") != std::string::npos);
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

// Valid JSON is read by nlohmann alone, anything else by the positioned YAML reader
// (JSON is YAML): the same program must give the same bytes either way.
TEST_CASE("propagate reads a program the same through both readers", "[propagate]") {
  std::string program = R"({"mesh": [["data", 4], ["model", 2]],
 "tensors": [{"name": "x", "shape": [16, 32], "sharding": "[{data}, {?}]"},
             {"name": "w", "shape": [32, 64], "sharding": "[{?}, {model}p1]"},
             {"name": "h"}, {"name": "t"}, {"name": "r", "shape": [4, 4, 64]}, {"name": "b", "shape": [64]},
             {"name": "bb", "shape": [16, 64]}, {"name": "o"}, {"name": "s"}],
 "ops": [{"name": "mm", "kind": "matmul", "operands": ["x", "w"], "results": ["h"]},
         {"kind": "transpose", "operands": ["h"], "results": ["t"], "permutation": [1, 0]},
         {"kind": "reshape", "operands": ["h"], "results": ["r"]},
         {"kind": "broadcast_in_dim", "operands": ["b"], "results": ["bb"], "broadcast_dimensions": [1]},
         {"kind": "add", "operands": ["h", "bb"], "results": ["o"]},
         {"kind": "reduce", "operands": ["o"], "results": ["s"], "dimensions": [0]}],
 "outputs": ["t", "r", {"tensor": "s", "sharding": "[{model, ?}]"}],
 "options": {"keep_sharding_rules": true}})";
  std::string json = write_scratch("both.json", program);
  std::string yaml = write_scratch("both.yaml", program);
  for (const char* strategy : {"basic", "aggressive", "op-priority", "user-priority"}) {
    auto a = run_shardplan("propagate --input '" + json + "' --strategy " + strategy);
    auto b = run_shardplan("propagate --input '" + yaml + "' --strategy " + strategy);
    CHECK(a.exit_code == 0);
    CHECK(a.out == b.out);
  }
}

// The worked example of docs/commands/propagate.md: Megatron-style shardings a JAX user expects.
TEST_CASE("propagate the README's 2-layer MLP", "[propagate]") {
  auto r =
      run_shardplan("propagate --input '" + std::string(SHARDPLAN_SOURCE_DIR) + "/configs/propagate/mlp-2layer.json'");
  CHECK(r.exit_code == 0);
  CHECK(r.out.find(R"({"name":"h","sharding":"[{data, ?}, {model, ?}]"})") != std::string::npos);
  CHECK(r.out.find(R"({"name":"b1","sharding":"[{model, ?}]"})") != std::string::npos);
  CHECK(r.out.find(R"({"name":"y","sharding":"[{data, ?}, {?}]"})") != std::string::npos);
}

// Shardy warns and goes on when a dump cannot be written (§8).
TEST_CASE("propagate warns about unwritable dumps and still answers", "[propagate]") {
  std::string input = write_scratch("e1.json", kE1);
  auto r =
      run_shardplan("propagate --input '" + input + "' --strategy aggressive --module-dump-directory /dev/null/dumps");
  CHECK(r.exit_code == 0);
  CHECK(r.err.find("warning: cannot write dump /dev/null/dumps/00.before_propagation.json") != std::string::npos);
  CHECK(r.err.find("warning: cannot write dump /dev/null/dumps/01.after_propagation.json") != std::string::npos);
  CHECK(r.out.find(R"({"name":"z","sharding":"[{a, ?}, {?}]"})") != std::string::npos);
}
