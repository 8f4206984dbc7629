// The spec's worked examples P1-P5 (docs/formats/pipeline.md), run through the real
// binary; every number below is the spec's.
#include <catch2/catch.hpp>
#include <filesystem>

#include "config/config_test_util.h"
#include "pipeline/pipeline_test_util.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

void require_same(const json& expected, const RunResult& r, bool subset) {
  INFO("stderr: " << r.err << "\nstdout: " << r.out);
  json actual = json::parse(r.out);
  auto differences = json_differences(expected, actual, subset);
  for (const auto& d : differences) FAIL_CHECK(d);
  CHECK(differences.empty());
}

const char* kP1Input = R"({"layers":[
 {"name":"l0","param_bytes":1000,"activation_bytes_per_sample":100,"fwd_ms_per_sample":1,"bwd_ms_per_sample":2},
 {"name":"l1","param_bytes":1000,"activation_bytes_per_sample":100,"fwd_ms_per_sample":1,"bwd_ms_per_sample":2},
 {"name":"l2","param_bytes":1000,"activation_bytes_per_sample":100,"fwd_ms_per_sample":1,"bwd_ms_per_sample":2},
 {"name":"l3","param_bytes":1000,"activation_bytes_per_sample":100,"fwd_ms_per_sample":1,"bwd_ms_per_sample":2}],
 "input_bytes_per_sample":50,"batch_size":8,"devices":{"count":2,"memory_bytes":1000000},"options":{"chunks":4}})";

TEST_CASE("pipeline P1: balanced, except_last - the whole output", "[pipeline][examples]") {
  const json expected = json::parse(R"({"balance":[2,2],"micro_batches":[2,2,2,2],"checkpointed":[true,true,true,false],
 "stages":[
  {"stage":0,"device":0,"layers":["l0","l1"],"fwd_ms_per_sample":2.0,"bwd_ms_per_sample":4.0,"param_bytes":2000,
   "memory":{"parameters":4000,"deferred_bn_buffers":0,"activations":800,"peak":4800},"fits":true},
  {"stage":1,"device":1,"layers":["l2","l3"],"fwd_ms_per_sample":2.0,"bwd_ms_per_sample":4.0,"param_bytes":2000,
   "memory":{"parameters":4000,"deferred_bn_buffers":0,"activations":1200,"peak":5200},"fits":true}],
 "schedule":{"forward":[[[0,0]],[[1,0],[0,1]],[[2,0],[1,1]],[[3,0],[2,1]],[[3,1]]],
             "backward":[[[3,1]],[[2,1],[3,0]],[[1,1],[2,0]],[[0,1],[1,0]],[[0,0]]]},
 "clock_ms":{"forward":[4.0,4.0,4.0,4.0,4.0],"backward":[8.0,12.0,12.0,12.0,12.0]},
 "step_time_ms":76.0,"bubble_fraction":0.21052631578947367,"gpipe_bubble_formula":0.2,"sequential_ms":96.0,
 "transfers":[{"from":0,"to":1,"kind":"boundary","activation_bytes":800,"gradient_bytes":800}],
 "warnings":[]})");
  RunResult r = run_pipeline("p1.json", kP1Input);
  REQUIRE(r.exit_code == 0);
  CHECK(r.err.empty());
  require_same(expected, r, false);
  // Keys in the spec's order, too.
  CHECK(r.out.rfind(R"({"balance":[2,2],"micro_batches":[2,2,2,2],"checkpointed":)", 0) == 0);
}

TEST_CASE("pipeline P1: --output writes the same document atomically, nothing on stdout", "[pipeline][examples]") {
  RunResult to_stdout = run_pipeline("p1.json", kP1Input);
  const std::string out = scratch_prefix() + "p1-plan.json";
  std::filesystem::remove(out);
  RunResult to_file = run_pipeline("p1.json", kP1Input, "-o '" + out + "'");
  REQUIRE(to_file.exit_code == 0);
  CHECK(to_file.out.empty());
  CHECK(slurp(out) == to_stdout.out);
  // A bad input leaves no file behind.
  std::filesystem::remove(out);
  RunResult bad =
      run_pipeline("p1-bad.json", R"({"layers": {}, "batch_size": 8, "devices": {"count": 2}})", "-o '" + out + "'");
  CHECK(bad.exit_code == 2);
  CHECK(!std::filesystem::exists(out));
}

std::string p2_input(const std::string& algorithm) {
  return R"({"layers":[
 {"name":"l0","param_bytes":1000,"activation_bytes_per_sample":100,"fwd_ms_per_sample":1,"bwd_ms_per_sample":0},
 {"name":"l1","param_bytes":1000,"activation_bytes_per_sample":200,"fwd_ms_per_sample":1,"bwd_ms_per_sample":1},
 {"name":"l2","param_bytes":1000,"activation_bytes_per_sample":300,"fwd_ms_per_sample":1,"bwd_ms_per_sample":2},
 {"name":"l3","param_bytes":1000,"activation_bytes_per_sample":400,"fwd_ms_per_sample":2,"bwd_ms_per_sample":2},
 {"name":"l4","param_bytes":1000,"activation_bytes_per_sample":500,"fwd_ms_per_sample":2,"bwd_ms_per_sample":3},
 {"name":"l5","param_bytes":1000,"activation_bytes_per_sample":600,"fwd_ms_per_sample":2,"bwd_ms_per_sample":4}],
 "input_bytes_per_sample":64,"batch_size":8,"devices":{"count":3,"memory_bytes":1000000},
 "options":{"chunks":4,"checkpoint":"never","balance_algorithm":")" +
         algorithm + R"("}})";
}

TEST_CASE("pipeline P2: uneven layers, optimal 3-way split, never", "[pipeline][examples]") {
  const json expected = json::parse(R"({"balance":[3,2,1],"micro_batches":[2,2,2,2],
 "checkpointed":[false,false,false,false],
 "stages":[{"fwd_ms_per_sample":3,"bwd_ms_per_sample":3,"memory":{"peak":11312}},
           {"fwd_ms_per_sample":4,"bwd_ms_per_sample":5,"memory":{"peak":13600}},
           {"fwd_ms_per_sample":2,"bwd_ms_per_sample":4,"memory":{"peak":10800}}],
 "clock_ms":{"forward":[6,8,8,8,8,4],"backward":[8,10,10,10,10,6]},
 "step_time_ms":96,"bubble_fraction":0.41666666666666663,"gpipe_bubble_formula":0.3333333333333333,
 "sequential_ms":168,
 "transfers":[{"from":0,"to":1,"kind":"boundary","activation_bytes":2400,"gradient_bytes":2400},
              {"from":1,"to":2,"kind":"boundary","activation_bytes":4000,"gradient_bytes":4000}],
 "warnings":[]})");
  RunResult r = run_pipeline("p2.json", p2_input("optimal"));
  REQUIRE(r.exit_code == 0);
  require_same(expected, r, true);
  // "balance_algorithm: blockpartition also yields [3,2,1] here."
  RunResult block = run_pipeline("p2-block.json", p2_input("blockpartition"));
  REQUIRE(block.exit_code == 0);
  CHECK(json::parse(block.out)["balance"] == json::parse("[3,2,1]"));
}

TEST_CASE("pipeline P3: torch.chunk quirk and deferred BatchNorm", "[pipeline][examples]") {
  const std::string input = R"({"layers":[
 {"name":"l0","param_bytes":100,"activation_bytes_per_sample":10,"fwd_ms_per_sample":1,"bwd_ms_per_sample":1,
  "batch_norm_features":16},
 {"name":"l1","param_bytes":100,"activation_bytes_per_sample":10,"fwd_ms_per_sample":1,"bwd_ms_per_sample":1}],
 "input_bytes_per_sample":10,"batch_size":6,"devices":{"count":2,"memory_bytes":1000000},
 "options":{"chunks":4,"deferred_batch_norm":true}})";
  const json expected = json::parse(R"({"balance":[1,1],"micro_batches":[2,2,2],"checkpointed":[true,true,true],
 "stages":[{"memory":{"parameters":200,"deferred_bn_buffers":128,"activations":80,"peak":408}},
           {"memory":{"parameters":200,"deferred_bn_buffers":0,"activations":80,"peak":280}}],
 "clock_ms":{"forward":[2,2,2,2],"backward":[4,4,4,4]},
 "step_time_ms":24,"bubble_fraction":0.25,"gpipe_bubble_formula":0.25,
 "warnings":["batch_size 6 with chunks 4 yields 3 micro-batches; all of them are checkpointed",
             "deferred_batch_norm: statistics are committed every 4 micro-batches but a step has 3"]})");
  RunResult r = run_pipeline("p3.json", input);
  REQUIRE(r.exit_code == 0);
  require_same(expected, r, true);
}

std::string p4_input(bool memory_aware) {
  std::string layers;
  for (int i = 0; i < 4; ++i)
    layers += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) + R"(","param_bytes":)" +
              (i == 0 ? "3000" : "1000") + R"(,"fwd_ms_per_sample":1,"bwd_ms_per_sample":1})";
  return R"({"layers":[)" + layers + R"(],"batch_size":4,"devices":{"count":2,"memory_bytes":7000},
 "options":{"chunks":2,"memory_aware":)" +
         (memory_aware ? "true" : "false") + "}}";
}

TEST_CASE("pipeline P4: memory-aware balancing", "[pipeline][examples]") {
  const json expected = json::parse(R"({"balance":[1,3],"micro_batches":[2,2],"checkpointed":[true,false],
 "stages":[{"memory":{"peak":6000},"fits":true},{"memory":{"peak":6000},"fits":true}],
 "clock_ms":{"forward":[2,6,6],"backward":[6,12,4]},
 "step_time_ms":36,"bubble_fraction":0.4444444444444444,"gpipe_bubble_formula":0.3333333333333333})");
  RunResult r = run_pipeline("p4.json", p4_input(true));
  REQUIRE(r.exit_code == 0);
  require_same(expected, r, true);

  // Without memory awareness the time-optimal [2,2] is printed, then the stage that does not fit.
  const json unaware = json::parse(R"({"balance":[2,2],
 "stages":[{"memory":{"peak":8000},"fits":false},{"memory":{"peak":4000},"fits":true}],
 "step_time_ms":32,"bubble_fraction":0.375})");
  RunResult u = run_pipeline("p4-unaware.json", p4_input(false));
  CHECK(u.exit_code == 1);
  require_same(unaware, u, true);
  CHECK(error_lines(u) == std::vector<std::string>{"error: stage 0 needs 8000 bytes but devices have 7000"});
}

std::string p5_input(const std::string& algorithm) {
  std::string layers;
  const int f[] = {9, 4, 1, 4};
  for (int i = 0; i < 4; ++i)
    layers += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) + R"(","fwd_ms_per_sample":)" +
              std::to_string(f[i]) + "}";
  return R"({"layers":[)" + layers + R"(],"batch_size":1,"devices":{"count":2},
 "options":{"chunks":1,"balance_algorithm":")" +
         algorithm + R"("}})";
}

TEST_CASE("pipeline P5: blockpartition is not optimal", "[pipeline][examples]") {
  RunResult optimal = run_pipeline("p5-optimal.json", p5_input("optimal"));
  REQUIRE(optimal.exit_code == 0);
  CHECK(json::parse(optimal.out)["balance"] == json::parse("[1,3]"));
  RunResult block = run_pipeline("p5-block.json", p5_input("blockpartition"));
  REQUIRE(block.exit_code == 0);
  CHECK(json::parse(block.out)["balance"] == json::parse("[2,2]"));
}

TEST_CASE("pipeline §10.1: torch's blockpartition returning an empty block is an error", "[pipeline][examples]") {
  // Costs [1,5,2,1,1,3,4] into 5 stages -> [2,1,3,0,1].
  std::string layers;
  const int f[] = {1, 5, 2, 1, 1, 3, 4};
  for (int i = 0; i < 7; ++i)
    layers += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) + R"(","fwd_ms_per_sample":)" +
              std::to_string(f[i]) + "}";
  RunResult r = run_pipeline("invalid-block.json", R"({"layers":[)" + layers + R"(],"batch_size":1,
 "devices":{"count":5},"options":{"balance_algorithm":"blockpartition"}})");
  CHECK(r.exit_code == 1);
  CHECK(r.out.empty());
  CHECK(error_lines(r) ==
        std::vector<std::string>{"error: blockpartition produced an invalid balance [2, 1, 3, 0, 1]"});
}

TEST_CASE("pipeline skips: a popped skip is extra input of its pop stage and a direct transfer",
          "[pipeline][examples]") {
  // Spec §1 and §6: stage 1 ([l2, l3]) takes in a_1 = 100 plus the skip's 30 bytes;
  // checkpoint never, one micro-batch of 8: act = (in + A) * 8 = (130 + 200) * 8 = 2640
  // (stage 0: (50 + 200) * 8 = 2000).
  // The skip stashed in stage 0 and popped in stage 1 moves 30 * 8 = 240 bytes each way,
  // listed after the boundaries; a skip inside one stage moves nothing.
  std::string layers;
  for (int i = 0; i < 4; ++i)
    layers += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) +
              R"(","activation_bytes_per_sample":100,"fwd_ms_per_sample":1})";
  RunResult r = run_pipeline("skips.json", R"({"layers":[)" + layers + R"(],"input_bytes_per_sample":50,
   "skips":[{"name":"s","stash":"l0","pop":"l3","bytes_per_sample":30},
            {"name":"t","stash":"l2","pop":"l3","bytes_per_sample":1000}],
   "batch_size":8,"devices":{"count":2},"options":{"balance":[2,2],"checkpoint":"never"}})");
  REQUIRE(r.exit_code == 0);
  const json expected = json::parse(R"({"stages":[{"memory":{"activations":2000}},{"memory":{"activations":2640}}],
   "transfers":[{"from":0,"to":1,"kind":"boundary","activation_bytes":800,"gradient_bytes":800},
                {"from":0,"to":1,"kind":"skip","name":"s","activation_bytes":240,"gradient_bytes":240}]})");
  require_same(expected, r, true);
}

TEST_CASE("pipeline §10.5: an empty model has no stages, micro-batches or time", "[pipeline][examples]") {
  RunResult r = run_pipeline("empty.json", R"({"layers":[],"batch_size":8,"devices":{"count":2},
 "options":{"balance":[],"chunks":4}})");
  REQUIRE(r.exit_code == 0);
  const json expected = json::parse(R"({"balance":[],"micro_batches":[],"checkpointed":[],"stages":[],
 "schedule":{"forward":[],"backward":[]},"clock_ms":{"forward":[],"backward":[]},
 "step_time_ms":0,"bubble_fraction":0,"gpipe_bubble_formula":0,"sequential_ms":0,"transfers":[],"warnings":[]})");
  require_same(expected, r, false);
}

}  // namespace
}  // namespace shardplan::testing
