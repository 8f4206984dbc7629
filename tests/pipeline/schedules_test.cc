// The 1F1B and interleaved 1F1B schedules on small examples worked out by hand
// (rules: docs/pipeline-schedules.md), through the real binary. Every layer
// below takes f = 1 ms forward and g = 2 ms backward per sample, each
// micro-batch is one sample and nothing is checkpointed, so a forward task
// takes 1 ms, a backward 2 ms, and a micro-batch kept by a stage costs
// (in + A) * 1 = 20 bytes (in = 10, one layer of A = 10).
#include <catch2/catch.hpp>

#include "pipeline/pipeline_test_util.h"
#include "support/golden.h"

namespace shardplan::testing {
namespace {

using nlohmann::json;

std::string one_layer_per_stage(int layers, int devices, const std::string& options) {
  std::string list;
  for (int i = 0; i < layers; ++i)
    list += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) +
            R"(","activation_bytes_per_sample":10,"fwd_ms_per_sample":1,"bwd_ms_per_sample":2})";
  return R"({"layers":[)" + list + R"(],"input_bytes_per_sample":10,"batch_size":)" +
         std::to_string(layers == 2 ? 4 : 8) + R"(,"devices":{"count":)" + std::to_string(devices) + R"(},"options":)" +
         options + "}";
}

// A device's tasks as "F0s1@4" (task, micro-batch, stage, start ms), space separated.
std::string timeline(const json& device) {
  std::string out;
  for (const auto& t : device) {
    double start = t["start_ms"].get<double>();
    out += (out.empty() ? "" : " ") + t["task"].get<std::string>() + std::to_string(t["micro_batch"].get<int>()) + "s" +
           std::to_string(t["stage"].get<int>()) + "@" + std::to_string(static_cast<int>(start));
    CHECK(start == static_cast<int>(start));
  }
  return out;
}

TEST_CASE("1f1b: 2 stages x 4 micro-batches, worked by hand", "[pipeline][schedules]") {
  // Order (PipeDream-Flush): stage j first runs n-1-j = 1 (stage 0) or 0 (stage 1)
  // warm-up forwards, then alternates F(i + warm-up), B(i), then drains backwards:
  //   device 0: F0 F1 B0 F2 B1 F3 B2 B3      device 1: F0 B0 F1 B1 F2 B2 F3 B3
  // Times: a task starts when its device is free and its input is ready
  // (F(i,1) after F(i,0); B(i,0) after B(i,1); B(i,1) after F(i,1)):
  //   d0 F0 0-1, F1 1-2 | d1 F0 1-2, B0 2-4 | d0 B0 4-6 (waits for d1's B0)
  //   d1 F1 4-5 (d1 busy until 4), B1 5-7 | d0 F2 6-7, B1 7-9 | d1 F2 7-8, B2 8-10
  //   d0 F3 9-10, B2 10-12 | d1 F3 10-11, B3 11-13 | d0 B3 13-15.
  // Step 15 = (m + n - 1)(f + g) = 5 * 3; each device is busy 4 * 3 = 12, so
  // bubble = 1 - 24 / 30 = 0.2 = (n-1)/(m+n-1), the same as GPipe's.
  // Memory: stage 0 holds at most n - 0 = 2 micro-batches (after F0, F1) = 40
  // bytes, stage 1 at most 1 = 20; GPipe would hold all 4 (80) on both.
  // Clocks (one task per device, as early as inputs allow): d0 F0 | d0 F1, d1 F0 |
  // d1 B0 | d0 B0, d1 F1 | d0 F2, d1 B1 | d0 B1, d1 F2 | d0 F3, d1 B2 | d0 B2, d1 F3 |
  // d1 B3 | d0 B3.
  RunResult r =
      run_pipeline("1f1b.json", one_layer_per_stage(2, 2, R"({"chunks":4,"checkpoint":"never","schedule":"1f1b"})"));
  REQUIRE(r.exit_code == 0);
  json plan = json::parse(r.out);
  CHECK(plan["balance"] == json::parse("[1,1]"));
  CHECK(timeline(plan["schedule"]["devices"][0]) == "F0s0@0 F1s0@1 B0s0@4 F2s0@6 B1s0@7 F3s0@9 B2s0@10 B3s0@13");
  CHECK(timeline(plan["schedule"]["devices"][1]) == "F0s1@1 B0s1@2 F1s1@4 B1s1@5 F2s1@7 B2s1@8 F3s1@10 B3s1@11");
  CHECK(plan["schedule"]["clocks"] == json::parse(R"([[["F",0,0]],[["F",1,0],["F",0,1]],[["B",0,1]],
    [["B",0,0],["F",1,1]],[["F",2,0],["B",1,1]],[["B",1,0],["F",2,1]],[["F",3,0],["B",2,1]],
    [["B",2,0],["F",3,1]],[["B",3,1]],[["B",3,0]]])"));
  CHECK(plan["step_time_ms"].get<double>() == 15.0);
  CHECK(close_enough(plan["bubble_fraction"].get<double>(), 0.2));
  CHECK(close_enough(plan["schedule_bubble_formula"].get<double>(), 0.2));
  CHECK(plan["stages"][0]["memory"]["activations"] == 40);
  CHECK(plan["stages"][1]["memory"]["activations"] == 20);

  // The same input under GPipe keeps every micro-batch: 4 * 20 = 80 on both stages.
  RunResult g = run_pipeline("gpipe.json", one_layer_per_stage(2, 2, R"({"chunks":4,"checkpoint":"never"})"));
  REQUIRE(g.exit_code == 0);
  json gpipe = json::parse(g.out);
  CHECK(gpipe["stages"][0]["memory"]["activations"] == 80);
  CHECK(gpipe["stages"][1]["memory"]["activations"] == 80);
}

TEST_CASE("interleaved_1f1b: 4 devices x 8 micro-batches x 2 virtual stages, worked by hand", "[pipeline][schedules]") {
  // 8 layers = 8 virtual stages; stage s on device s % 4, so device d holds
  // chunk 0 = stage d and chunk 1 = stage d + 4.
  // Megatron-LM's order for device d: 16 = m*v forwards k = 0..15, the k-th on chunk
  // (k mod 8) div 4 and micro-batch (k div 8)*4 + k mod 4; backward k on chunk
  // 1 - (k mod 8) div 4, same micro-batch. Warm-up 2(p-1-d) + (v-1)p forwards:
  // 10, 8, 6, 4 for d = 0..3; then F(warm-up + k), B(k) pairs; then the rest of the B's.
  // Device 0 therefore runs
  //   F0s0 F1s0 F2s0 F3s0 F0s4 F1s4 F2s4 F3s4 F4s0 F5s0 | F6s0 B0s4 F7s0 B1s4 F4s4 B2s4
  //   F5s4 B3s4 F6s4 B0s0 F7s4 B1s0 | B2s0 B3s0 B4s4 B5s4 B6s4 B7s4 B4s0 B5s0 B6s0 B7s0
  // and device 3 (warm-up 4): F0s3..F3s3, then F0s7 B0s7 F1s7 B1s7 ... in pairs.
  // Times: micro-batch 0 goes through s0..s7 at 0..7 (one forward per ms per
  // device), so B0s7 runs on device 3 at 8-10, B0s6 on device 2 at 10-12,
  // B0s5 on device 1 at 12-14 and B0s4 on device 0 at 14-16; device 0 ran its
  // 11 forwards in 0-11 and waits 11-14. Device 0 then idles 19-20, 34-35,
  // 37-38, 40-41, 43-44 and 46-47 waiting for backwards from device 1: 9 ms of
  // idling in all, beside 16 forwards (1 ms) and 16 backwards (2 ms) = 48 ms.
  // Step = 57 = m (t_f + t_b) + (p-1)(t_f + t_b) / v = 8 * 6 + 3 * 6 / 2 = 48 + 9, with
  // t_f = 2, t_b = 4 a device's time per micro-batch (Narayanan et al.: interleaving
  // shrinks the bubble (p-1)(t_f+t_b) by v); bubble = 9 / 57 = 3/19, which is
  // (p-1)/(v m + p - 1). GPipe's formula for 4 stages and 8 micro-batches is 3/11.
  // Memory: device d keeps warm-up + 1 micro-batch-stages at its peak (the
  // warm-up forwards and the first steady forward, before the first backward
  // frees one): 11, 9, 7, 5 times 20 bytes = 220, 180, 140, 100.
  RunResult r =
      run_pipeline("interleaved.json",
                   one_layer_per_stage(
                       8, 4, R"({"chunks":8,"checkpoint":"never","schedule":"interleaved_1f1b","virtual_stages":2})"));
  REQUIRE(r.exit_code == 0);
  json plan = json::parse(r.out);
  CHECK(plan["balance"] == json::parse("[1,1,1,1,1,1,1,1]"));
  CHECK(timeline(plan["schedule"]["devices"][0]) ==
        "F0s0@0 F1s0@1 F2s0@2 F3s0@3 F0s4@4 F1s4@5 F2s4@6 F3s4@7 F4s0@8 F5s0@9 F6s0@10 B0s4@14 F7s0@16 B1s4@17 "
        "F4s4@20 B2s4@21 F5s4@23 B3s4@24 F6s4@26 B0s0@27 F7s4@29 B1s0@30 B2s0@32 B3s0@35 B4s4@38 B5s4@41 "
        "B6s4@44 B7s4@47 B4s0@49 B5s0@51 B6s0@53 B7s0@55");
  // The first backward's chain through the devices.
  std::string d3 = timeline(plan["schedule"]["devices"][3]);
  CHECK(d3.rfind("F0s3@3 F1s3@4 F2s3@5 F3s3@6 F0s7@7 B0s7@8 F1s7@10 B1s7@11", 0) == 0);
  CHECK(timeline(plan["schedule"]["devices"][2]).find("B0s6@10") != std::string::npos);
  CHECK(timeline(plan["schedule"]["devices"][1]).find("B0s5@12") != std::string::npos);
  CHECK(plan["step_time_ms"].get<double>() == 57.0);
  CHECK(close_enough(plan["bubble_fraction"].get<double>(), 3.0 / 19));
  CHECK(close_enough(plan["schedule_bubble_formula"].get<double>(), 3.0 / 19));
  CHECK(close_enough(plan["gpipe_bubble_formula"].get<double>(), 3.0 / 11));
  std::vector<int> peaks;
  for (const auto& d : plan["devices"]) peaks.push_back(d["memory"]["activations"].get<int>());
  CHECK(peaks == std::vector<int>{220, 180, 140, 100});
  CHECK(plan["devices"][0]["stages"] == json::parse("[0,4]"));
  // Boundaries between consecutive virtual stages: 7 of them, 80 bytes each way (10 * 8).
  CHECK(plan["transfers"].size() == 7);
}

TEST_CASE("interleaved_1f1b_megatron: micro-batches must come in groups of one per device", "[pipeline][schedules]") {
  // B = 8 in chunks of 3: torch.chunk gives 3 micro-batches, not a multiple of 4 devices
  // (torch's interleaved_1f1b runs them in one round; Megatron-LM's refuses).
  const std::string content =
      one_layer_per_stage(8, 4, R"({"chunks":3,"schedule":"interleaved_1f1b_megatron","virtual_stages":2})");
  RunResult r = run_pipeline("interleaved-bad.json", content);
  CHECK(r.exit_code == 2);
  const std::string column =
      std::to_string(content.find("\"interleaved_1f1b_megatron\"") + 1);  // one line: column = offset + 1
  CHECK(error_lines(r) == std::vector<std::string>{
                              "error: interleaved-bad.json:1:" + column +
                              ": options.schedule: interleaved_1f1b_megatron needs a "
                              "multiple of 4 micro-batches (one per device in each group, as Megatron-LM), found 3"});
}

TEST_CASE("memory-aware balancing uses the chosen schedule's memory", "[pipeline][schedules]") {
  // 4 layers of A = 100 bytes, 8 micro-batches of 1 sample, never checkpointed, 1000 bytes per device.
  // GPipe keeps all 8: a first stage [0,1) needs 8 * 100 = 800, but then the second
  // holds 3 layers, in = 100: 8 * 400 = 3200; [0,2): 1600; nothing fits.
  // 1F1B keeps 2 on stage 0 and 1 on stage 1: [2,2] needs 2 * 200 = 400 and 1 * 300 = 300.
  std::string layers;
  for (int i = 0; i < 4; ++i)
    layers += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) +
              R"(","activation_bytes_per_sample":100,"fwd_ms_per_sample":1,"bwd_ms_per_sample":1})";
  auto input = [&](const std::string& schedule) {
    return R"({"layers":[)" + layers + R"(],"batch_size":8,"devices":{"count":2,"memory_bytes":1000},
      "options":{"chunks":8,"checkpoint":"never","schedule":")" +
           schedule + R"("}})";
  };
  RunResult gpipe = run_pipeline("mem-gpipe.json", input("gpipe"));
  CHECK(gpipe.exit_code == 1);
  CHECK(error_lines(gpipe) ==
        std::vector<std::string>{"error: no partition of 4 layers into 2 stages fits in 1000 bytes per device"});
  RunResult one_f_one_b = run_pipeline("mem-1f1b.json", input("1f1b"));
  REQUIRE(one_f_one_b.exit_code == 0);
  json plan = json::parse(one_f_one_b.out);
  CHECK(plan["balance"] == json::parse("[2,2]"));
  CHECK(plan["stages"][0]["memory"]["peak"] == 400);
  CHECK(plan["stages"][1]["memory"]["peak"] == 300);
}

TEST_CASE("partition_method parameters and uniform (DeepSpeed's names)", "[pipeline][schedules]") {
  // Parameters 4, 1, 1, 1, 1 into 2: the bottleneck 4 alone, then the rest.
  std::string layers;
  const int params[] = {4, 1, 1, 1, 1};
  for (int i = 0; i < 5; ++i)
    layers += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) + R"(","param_bytes":)" +
              std::to_string(params[i]) + R"(,"fwd_ms_per_sample":1})";
  auto input = [&](const std::string& method) {
    return R"({"layers":[)" + layers + R"(],"batch_size":1,"devices":{"count":2},"options":{"partition_method":")" +
           method + R"("}})";
  };
  RunResult by_params = run_pipeline("params.json", input("parameters"));
  REQUIRE(by_params.exit_code == 0);
  CHECK(json::parse(by_params.out)["balance"] == json::parse("[1,4]"));
  // uniform: 5 layers into 2, the first stage takes the extra one.
  RunResult uniform = run_pipeline("uniform.json", input("uniform"));
  REQUIRE(uniform.exit_code == 0);
  CHECK(json::parse(uniform.out)["balance"] == json::parse("[3,2]"));
  // By time (all 1) the optimal split is [2,3]: lexicographically smallest of the equal ones.
  RunResult by_time = run_pipeline("time.json", input("time"));
  REQUIRE(by_time.exit_code == 0);
  CHECK(json::parse(by_time.out)["balance"] == json::parse("[2,3]"));
}

}  // namespace
}  // namespace shardplan::testing
