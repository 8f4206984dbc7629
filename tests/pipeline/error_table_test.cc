// Every row of the spec's error table (docs/formats/pipeline.md, "P1 with one change"), and
// the check order of §2, run through the real binary: whole stderr lines, exit 2,
// nothing on stdout. Each input puts the changed value on a line of its own, so
// the position in each line can be read off the input below.
#include <catch2/catch.hpp>

#include "pipeline/pipeline_test_util.h"

namespace shardplan::testing {
namespace {

const std::string kLayers = R"([{"name": "l0", "fwd_ms_per_sample": 1}, {"name": "l1", "fwd_ms_per_sample": 1}, )"
                            R"({"name": "l2", "fwd_ms_per_sample": 1}, {"name": "l3", "fwd_ms_per_sample": 1}])";
const std::string kDevices = R"({"count": 2, "memory_bytes": 1000000})";

// Line 2: layers, line 5: devices, line 6: options, line 7: skips.
std::string input(const std::string& layers, const std::string& devices, const std::string& options,
                  const std::string& skips = "[]") {
  return "{\n\"layers\": " + layers +
         ",\n\"input_bytes_per_sample\": 50,\n\"batch_size\": 8,\n\"devices\": " + devices +
         ",\n\"options\": " + options + ",\n\"skips\": " + skips + "\n}\n";
}

void check_error(const std::string& name, const std::string& content, const std::vector<std::string>& expected) {
  RunResult r = run_pipeline(name, content);
  INFO(content);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(error_lines(r) == expected);
}

TEST_CASE("pipeline errors: every row of the spec's table", "[pipeline][errors]") {
  check_error("chunks.json", input(kLayers, kDevices, R"({"chunks": 0})"),
              {"error: chunks.json:6:23: options.chunks: ValueError: number of chunks must be positive integer"});
  check_error("checkpoint.json", input(kLayers, kDevices, R"({"chunks": 4, "checkpoint": "sometimes"})"),
              {"error: checkpoint.json:6:40: options.checkpoint: ValueError: checkpoint is not one of 'always', "
               "'except_last', or 'never'"});
  check_error("layers.json", input(R"({"l0": {}})", kDevices, R"({"chunks": 4})"),
              {"error: layers.json:2:11: layers: TypeError: module must be nn.Sequential to be partitioned"});
  check_error(
      "duplicate.json",
      input(R"([{"name": "l0"}, {"name": "l1"}, {"name": "l1"}, {"name": "l3"}])", kDevices, R"({"chunks": 4})"),
      {"error: duplicate.json:2:53: layers[2].name: ValueError: module with duplicate children is not supported"});
  check_error("balance-sum.json", input(kLayers, kDevices, R"({"chunks": 4, "balance": [2,1]})"),
              {"error: balance-sum.json:6:37: options.balance: ValueError: module and sum of balance have different "
               "length (module: 4, sum of balance: 3)"});
  check_error("balance-zero.json", input(kLayers, kDevices, R"({"chunks": 4, "balance": [2,0,2]})"),
              {"error: balance-zero.json:6:37: options.balance: ValueError: all balance numbers must be positive "
               "integer (balance: [2, 0, 2])"});
  check_error("balance-devices.json", input(kLayers, kDevices, R"({"chunks": 4, "balance": [1,1,2]})"),
              {"error: balance-devices.json:6:37: options.balance: IndexError: too few devices to hold given "
               "partitions (devices: 2, partitions: 3)"});
  check_error("stages.json",
              input(kLayers, R"({"count": 8, "memory_bytes": 1000000})", R"({"chunks": 4, "stages": 5})"),
              {"error: stages.json:6:36: options.stages: ValueError: sequence is shorter than intended partitions "
               "(4 < 5)"});
  check_error("ddp.json", input(kLayers, kDevices, R"({"chunks": 4, "ddp": true})"),
              {"error: ddp.json:6:33: options.ddp: ValueError: DistributedDataParallel can wrap Pipe only when "
               "checkpoint='never' (got 'except_last')"});
  check_error("skip.json",
              input(kLayers, kDevices, R"({"chunks": 4})",
                    R"([{"name": "s", "stash": "l2", "pop": "l1", "bytes_per_sample": 8}])"),
              {"error: skip.json:7:10: skips: TypeError: one or more pairs of stash and pop do not match: 'l1' "
               "declared 's' as poppable but it was not stashed; no module declared 's' as poppable but stashed"});
}

TEST_CASE("pipeline errors: independent checks are all reported, in the spec's order", "[pipeline][errors]") {
  // chunks (1), checkpoint (2), layers (3; skips 4, 5 and 7), ddp (8), then other options.
  check_error("many.json",
              input(R"({"l0": {}})", kDevices,
                    R"({"chunks": 2.5, "checkpoint": 3, "stages": 0, "ddp": true, "balance_by": "tim"})"),
              {"error: many.json:6:23: options.chunks: ValueError: number of chunks must be positive integer",
               "error: many.json:6:42: options.checkpoint: ValueError: checkpoint is not one of 'always', "
               "'except_last', or 'never'",
               "error: many.json:2:11: layers: TypeError: module must be nn.Sequential to be partitioned",
               // torch names the checkpoint the input gave (3), not the default it fell back to.
               "error: many.json:6:65: options.ddp: ValueError: DistributedDataParallel can wrap Pipe only when "
               "checkpoint='never' (got '3')",
               "error: many.json:6:85: options.balance_by: unknown balance_by 'tim', did you mean 'time'?"});
  // Within check 7 only the first failing condition: the sum differs and an entry is <= 0.
  check_error("first-of-7.json", input(kLayers, kDevices, R"({"balance": [0,1,1,1,-1,1]})"),
              {"error: first-of-7.json:6:24: options.balance: ValueError: module and sum of balance have different "
               "length (module: 4, sum of balance: 3)"});
}

TEST_CASE("pipeline errors: §10 amendments on chunks, stages and null options", "[pipeline][errors]") {
  // 4.0 is 4; 2.5, strings and booleans are not.
  RunResult whole = run_pipeline("chunks-4.0.json", input(kLayers, kDevices, R"({"chunks": 4.0, "checkpoint": null})"));
  CHECK(whole.exit_code == 0);
  CHECK(whole.out.find(R"("micro_batches":[2,2,2,2],"checkpointed":[true,true,true,false])") != std::string::npos);
  for (const std::string value : {"2.5", R"("4")", "true"})
    check_error("chunks-bad.json", input(kLayers, kDevices, R"({"chunks": )" + value + "}"),
                {"error: chunks-bad.json:6:23: options.chunks: ValueError: number of chunks must be positive integer"});
  check_error("stages-0.json", input(kLayers, kDevices, R"({"stages": 0})"),
              {"error: stages-0.json:6:23: options.stages: ValueError: partitions must be a positive integer (0 < 1)"});
  RunResult null_stages = run_pipeline("stages-null.json", input(kLayers, kDevices, R"({"stages": null})"));
  CHECK(null_stages.exit_code == 0);
  // An empty model without "balance": [] still asks for devices.count stages (check 7).
  check_error(
      "batch.json", "{\"layers\": [], \"devices\": {\"count\": 1},\n\"batch_size\": 0}",
      {"error: batch.json:2:15: batch_size: ValueError: batch_size must be a positive integer",
       "error: batch.json:1:37: devices.count: ValueError: sequence is shorter than intended partitions (0 < 1)"});
}

TEST_CASE("pipeline errors: layer fields, skips to unknown layers, and more stages than devices",
          "[pipeline][errors]") {
  check_error(
      "layer-fields.json",
      input(R"([{"name": "l0", "fwd_ms": 8, "fwd_ms_per_sample": 1, "param_bytes": -5}, {"name": "l1"}])", kDevices,
            "{}"),
      {"error: layer-fields.json:2:37: layers[0].fwd_ms: ValueError: layer 'l0': give fwd_ms_per_sample or "
       "fwd_ms, not both",
       "error: layer-fields.json:2:79: layers[0].param_bytes: ValueError: layer 'l0': param_bytes must be >= 0"});
  check_error("skip-unknown.json", input(kLayers, kDevices, "{}", R"([{"name": "s", "stash": "l0", "pop": "l9"}])"),
              {"error: skip-unknown.json:7:47: skips[0].pop: ValueError: skip 's' refers to unknown layer 'l9'"});
  check_error("too-many-stages.json", input(kLayers, kDevices, R"({"stages": 3})"),
              {"error: too-many-stages.json:6:23: options.stages: IndexError: too few devices to hold given "
               "partitions (devices: 2, partitions: 3)"});
}

TEST_CASE("pipeline errors: verify_skippables messages in walk order", "[pipeline][errors]") {
  // l0 stashes a and b; l1 pops a, and pops and stashes c; l2 re-stashes b; l3 pops a again.
  check_error("skips-order.json",
              input(kLayers, kDevices, "{}",
                    R"([{"name": "a", "stash": "l0", "pop": "l1"}, {"name": "b", "stash": "l0", "pop": "l3"},)"
                    R"( {"name": "b", "stash": "l2", "pop": "l3"}, {"name": "c", "stash": "l1", "pop": "l1"},)"
                    R"( {"name": "a", "stash": "l0", "pop": "l3"}])"),
              {"error: skips-order.json:7:10: skips: TypeError: one or more pairs of stash and pop do not match: "
               "'l1' declared 'c' both as stashable and as poppable; "
               "'l2' redeclared 'b' as stashable but not isolated by namespace; "
               "'l3' redeclared 'a' as poppable but not isolated by namespace"});
}

}  // namespace
}  // namespace shardplan::testing
