// Sizes an adversarial input can choose: byte counts near 2^63 are refused with a
// position instead of wrapping, balancing beyond the documented bound is refused
// before any work, the skip-aware stage input is the plain sum, and the DDP
// message names the input's own checkpoint value.
#include <catch2/catch.hpp>

#include <random>

#include "pipeline/input.h"
#include "pipeline/memory.h"
#include "pipeline/pipeline_test_util.h"
#include "pipeline/suggest.h"

namespace shardplan::testing {
namespace {

std::string hostile_layers_of(int count, const std::string& fields) {
  std::string list;
  for (int i = 0; i < count; ++i)
    list += std::string(i ? "," : "") + R"({"name":"l)" + std::to_string(i) + R"(")" + fields + "}";
  return "[" + list + "]";
}

bool hostile_has_line(const RunResult& r, const std::string& fragment) {
  for (const auto& line : error_lines(r))
    if (line.find(fragment) != std::string::npos) return true;
  return false;
}

TEST_CASE("pipeline: parameter bytes summing past 2^62 are a positioned error", "[pipeline][hostile]") {
  // 2^60 fits (times param_scale 2: 2^61); 2^60 + 2^60 times 2 reaches the 2^62 bound.
  const std::string content =
      "{\"layers\":[{\"name\":\"a\",\"param_bytes\":1152921504606846976},\n"
      "{\"name\":\"b\",\"param_bytes\":1152921504606846976}],"
      "\"batch_size\":1,\"devices\":{\"count\":2,\"memory_bytes\":1000000}}";
  RunResult r = run_pipeline("big-params.json", content);
  CHECK(r.exit_code == 2);
  CHECK(r.out.empty());
  CHECK(hostile_has_line(r,
                         "big-params.json:2:27: layers[1].param_bytes: too large: the parameter bytes of layers 0..1"));
}

TEST_CASE("pipeline: activation bytes times the batch past 2^62 are a positioned error", "[pipeline][hostile]") {
  // 2^59 bytes per sample, twice (stored + recomputed), times batch 8 = 2^63.
  const std::string content = R"({"layers":[{"name":"a","activation_bytes_per_sample":576460752303423488}],)"
                              R"("batch_size":8,"devices":{"count":1,"memory_bytes":1000000}})";
  RunResult r = run_pipeline("big-acts.json", content);
  CHECK(r.exit_code == 2);
  CHECK(hostile_has_line(r, "layers[0]: too large: the activation bytes of layers 0..0 times the batch"));
  // A quarter of it (2^57: 2^57 * 2 * 8 = 2^61) fits the bound: a plan is made, the
  // device is just too small: no stage fits (exit 1).
  std::string half = content;
  half.replace(half.find("576460752303423488"), 18, "144115188075855872");
  RunResult ok = run_pipeline("half-acts.json", half);
  CHECK(ok.exit_code == 1);
  CHECK(hostile_has_line(ok, "no partition of 1 layers into 1 stages fits in 1000000 bytes per device"));
}

TEST_CASE("pipeline: balancing beyond layers x stages 10^7 is refused before the work", "[pipeline][hostile]") {
  // 5001 layers into 2000 stages = 10 002 000 > 10^7.
  const std::string content = R"({"layers":)" + hostile_layers_of(5001, R"(,"fwd_ms_per_sample":1)") +
                              R"(,"batch_size":1,"devices":{"count":2000}})";
  RunResult r = run_pipeline("many-stages.json", content);
  CHECK(r.exit_code == 2);
  CHECK(hostile_has_line(r,
                         "devices.count: too large: balancing 5001 layers into 2000 stages needs layers x stages <= "
                         "10000000 (found 10002000)"));
  // The same with DeepSpeed's uniform rule needs no search and is planned.
  std::string uniform = content;
  uniform.insert(uniform.size() - 1, R"(,"options":{"balance_by":"uniform"})");
  CHECK(run_pipeline("many-stages-uniform.json", uniform).exit_code == 0);
}

TEST_CASE("pipeline: more than 250 000 micro-batch x stage steps are refused before the work", "[pipeline][hostile]") {
  // 125 001 micro-batches on 2 stages: 250 002 steps. The check needs no simulation,
  // so a billion micro-batches (which would run for minutes) is refused as fast.
  auto input = [](int micro_batches) {
    return R"({"layers":)" + hostile_layers_of(2, R"(,"fwd_ms_per_sample":1)") + R"(,"batch_size":)" +
           std::to_string(micro_batches) + R"(,"devices":{"count":2},"options":{"chunks":)" +
           std::to_string(micro_batches) + "}}";
  };
  for (int micro_batches : {125001, 1000000000}) {
    INFO(micro_batches);
    RunResult r = run_pipeline("many-chunks.json", input(micro_batches));
    CHECK(r.exit_code == 2);
    CHECK(r.out.empty());
    const std::string steps = std::to_string(std::int64_t{micro_batches} * 2);
    CHECK(hostile_has_line(r, "many-chunks.json:1:"));
    CHECK(hostile_has_line(r, ": options.chunks: too large: " + std::to_string(micro_batches) +
                                  " micro-batches on 2 stages make " + steps +
                                  " schedule steps; shardplan's limit is 250000 (micro-batches x stages)"));
  }
  // Fewer micro-batches than chunks (torch's rounding: ceil(batch / ceil(batch / chunks)))
  // count as the micro-batches they make: batch 200 000 in 250 000 chunks is 200 000.
  std::string rounded = input(200000);
  rounded.replace(rounded.find(R"("chunks":200000)"), 15, R"("chunks":250000)");
  RunResult many = run_pipeline("rounded-chunks.json", rounded);
  CHECK(hostile_has_line(many, "200000 micro-batches on 2 stages make 400000 schedule steps"));
  CHECK(run_pipeline("few-chunks.json", input(1000)).exit_code == 0);
}

TEST_CASE("pipeline: counts past 10^9 are too large for shardplan, not invalid for torch", "[pipeline][hostile]") {
  const std::string layers = hostile_layers_of(2, R"(,"fwd_ms_per_sample":1)");
  RunResult batch = run_pipeline(
      "huge-batch.json", R"({"layers":)" + layers + R"(,"batch_size":9223372036854775807,"devices":{"count":2}})");
  CHECK(batch.exit_code == 2);
  CHECK(hostile_has_line(batch,
                         "batch_size: too large: expected at most 1000000000 (shardplan's limit), found "
                         "9223372036854775807"));
  RunResult chunks = run_pipeline("huge-chunks.json", R"({"layers":)" + layers +
                                                          R"(,"batch_size":8,"devices":{"count":2},)"
                                                          R"("options":{"chunks":1e12}})");
  CHECK(chunks.exit_code == 2);
  CHECK(hostile_has_line(chunks,
                         "options.chunks: too large: expected at most 1000000000 (shardplan's limit), found 1e12"));
  // What torch refuses keeps torch's words.
  RunResult half = run_pipeline("half-chunks.json", R"({"layers":)" + layers +
                                                        R"(,"batch_size":8,"devices":{"count":2},)"
                                                        R"("options":{"chunks":2.5}})");
  CHECK(hostile_has_line(half, "options.chunks: ValueError: number of chunks must be positive integer"));
}

TEST_CASE("pipeline --suggest: candidates stay within 25 000 steps, so a huge batch is quick", "[pipeline][hostile]") {
  // A batch of 2^20 offers chunk counts up to 2^20; before the bound --suggest
  // simulated every one of them (minutes, gigabytes).
  const std::string content = R"({"layers":)" + hostile_layers_of(12, R"(,"fwd_ms_per_sample":1)") +
                              R"(,"batch_size":1048576,"devices":{"count":6}})";
  const pipeline::PipelineInput in = pipeline::parse_pipeline_input("suggest-batch.json", content);
  const pipeline::Suggestions tried = pipeline::suggest(in);
  std::size_t count = 0;
  for (const auto* list : {&tried.ranked, &tried.rejected})
    for (const auto& c : *list) {
      ++count;
      CHECK(std::int64_t{c.micro_batches} * c.devices * c.virtual_stages <= 25000);
    }
  CHECK(count > 20);
  bool interleaved = false;
  for (const auto& c : tried.ranked) interleaved = interleaved || c.virtual_stages == 2;
  CHECK(interleaved);
}

TEST_CASE("pipeline: the DDP message names the input's own checkpoint value", "[pipeline][hostile]") {
  const std::string content = R"({"layers":[{"name":"a"}],"batch_size":1,"devices":{"count":1},)"
                              R"("options":{"checkpoint":"x","ddp":true}})";
  RunResult r = run_pipeline("ddp-x.json", content);
  CHECK(r.exit_code == 2);
  CHECK(hostile_has_line(r, "ValueError: checkpoint is not one of 'always', 'except_last', or 'never'"));
  CHECK(
      hostile_has_line(r, "ValueError: DistributedDataParallel can wrap Pipe only when checkpoint='never' (got 'x')"));
}

}  // namespace
}  // namespace shardplan::testing

namespace shardplan::pipeline {
namespace {

TEST_CASE("LayerRanges::input_bytes equals the plain sum over skips", "[pipeline][hostile]") {
  std::mt19937 random(5);
  for (int trial = 0; trial < 50; ++trial) {
    PipelineInput input;
    const int layers = std::uniform_int_distribution<int>(2, 30)(random);
    for (int l = 0; l < layers; ++l) {
      Layer layer;
      layer.name = "l" + std::to_string(l);
      layer.activation_bytes_per_sample = std::uniform_int_distribution<int>(0, 9)(random);
      input.layers.push_back(layer);
    }
    input.input_bytes_per_sample = 7;
    const int skips = std::uniform_int_distribution<int>(0, 40)(random);
    for (int k = 0; k < skips; ++k) {
      Skip s;
      s.stash_layer = std::uniform_int_distribution<int>(0, layers - 2)(random);
      s.pop_layer = std::uniform_int_distribution<int>(s.stash_layer + 1, layers - 1)(random);
      s.bytes_per_sample = std::uniform_int_distribution<int>(1, 1000)(random);
      input.skips.push_back(s);
    }
    LayerRanges ranges(input);
    for (int begin = 0; begin < layers; ++begin)
      for (int end = begin + 1; end <= layers; ++end) {
        std::int64_t expected = begin == 0 ? 7 : input.layers[begin - 1].activation_bytes_per_sample;
        for (const auto& s : input.skips)
          if (s.pop_layer >= begin && s.pop_layer < end && s.stash_layer < begin) expected += s.bytes_per_sample;
        INFO("trial " << trial << " range " << begin << ".." << end);
        CHECK(ranges.input_bytes(begin, end) == expected);
      }
  }
}

}  // namespace
}  // namespace shardplan::pipeline
