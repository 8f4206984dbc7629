// torch.chunk micro-batching and checkpoint stops (docs/formats/pipeline.md), Pipe's clock cycles
// (§5) and the memory walk (§6) against its closed forms.
#include <catch2/catch.hpp>
#include <random>

#include "pipeline/memory.h"
#include "pipeline/microbatch.h"
#include "pipeline/schedule.h"

namespace shardplan::pipeline {
namespace {

MicroBatches split(int batch, int chunks, CheckpointMode mode) {
  PipelineOptions options;
  options.chunks = chunks;
  options.checkpoint = mode;
  return split_micro_batches(batch, options);
}

TEST_CASE("micro-batches follow torch.chunk; checkpoint_stop comes from chunks", "[pipeline][microbatch]") {
  // The spec's examples: B=6, chunks=4 -> [2,2,2]; B=10, chunks=4 -> [3,3,3,1].
  CHECK(split(6, 4, CheckpointMode::kExceptLast).sizes == std::vector<int>{2, 2, 2});
  CHECK(split(10, 4, CheckpointMode::kExceptLast).sizes == std::vector<int>{3, 3, 3, 1});
  CHECK(split(8, 4, CheckpointMode::kExceptLast).sizes == std::vector<int>{2, 2, 2, 2});
  CHECK(split(3, 8, CheckpointMode::kNever).sizes == std::vector<int>{1, 1, 1});
  // except_last: stop = chunks - 1 = 3 >= m = 3, so all are checkpointed.
  CHECK(split(6, 4, CheckpointMode::kExceptLast).checkpointed == std::vector<bool>{true, true, true});
  CHECK(split(8, 4, CheckpointMode::kExceptLast).checkpointed == std::vector<bool>{true, true, true, false});
  CHECK(split(8, 4, CheckpointMode::kAlways).checkpointed == std::vector<bool>{true, true, true, true});
  CHECK(split(8, 4, CheckpointMode::kNever).checkpointed == std::vector<bool>{false, false, false, false});
  CHECK(split(8, 4, CheckpointMode::kNever).warnings.empty());
  CHECK(split(6, 4, CheckpointMode::kNever).warnings ==
        std::vector<std::string>{"batch_size 6 with chunks 4 yields 3 micro-batches"});
}

TEST_CASE("Pipe's clock cycles: forward by i + j = k, backward mirrored", "[pipeline][schedule]") {
  GpipeClocks clocks = gpipe_clocks(3, 2);
  using T = TaskKind;
  CHECK(clocks.forward == std::vector<std::vector<Task>>{{{T::kForward, 0, 0}},
                                                         {{T::kForward, 1, 0}, {T::kForward, 0, 1}},
                                                         {{T::kForward, 2, 0}, {T::kForward, 1, 1}},
                                                         {{T::kForward, 2, 1}}});
  CHECK(clocks.backward == std::vector<std::vector<Task>>{{{T::kBackward, 2, 1}},
                                                          {{T::kBackward, 1, 1}, {T::kBackward, 2, 0}},
                                                          {{T::kBackward, 0, 1}, {T::kBackward, 1, 0}},
                                                          {{T::kBackward, 0, 0}}});
  CHECK(gpipe_clocks(0, 2).forward.empty());
}

TEST_CASE("the memory walk of a GPipe stage is the spec's closed form", "[pipeline][memory]") {
  // Equal micro-batches: (in+A)*B for 'never', in*B + A*b for 'always'.
  const std::int64_t in = 7, A = 30;
  for (auto mode : {CheckpointMode::kNever, CheckpointMode::kAlways}) {
    MicroBatches micro = split(12, 4, mode);  // 4 x 3
    auto orders = device_task_orders(ScheduleKind::kGpipe, 4, 1, 1);
    std::int64_t expected = mode == CheckpointMode::kNever ? (in + A) * 12 : in * 12 + A * 3;
    CHECK(activation_peak(orders[0], micro, {in}, {A}) == expected);
    CHECK(ActivationProfile(orders[0], micro).peak(in, A) == expected);
  }
}

TEST_CASE("ActivationProfile's linear forms equal the direct walk for every schedule", "[pipeline][memory]") {
  std::mt19937 random(11);
  for (int trial = 0; trial < 300; ++trial) {
    const int devices = std::uniform_int_distribution<int>(1, 4)(random);
    const int v = std::uniform_int_distribution<int>(1, 2)(random);
    const int m = devices * std::uniform_int_distribution<int>(1, 3)(random);
    const auto schedule = static_cast<ScheduleKind>(trial % 3);
    const int vs = schedule == ScheduleKind::kInterleaved ? v : 1;
    const int stages = devices * vs;
    MicroBatches micro;
    for (int i = 0; i < m; ++i) {
      micro.sizes.push_back(std::uniform_int_distribution<int>(1, 5)(random));
      micro.checkpointed.push_back(std::uniform_int_distribution<int>(0, 1)(random) == 1);
    }
    auto orders = device_task_orders(schedule, m, devices, vs);
    for (int s = 0; s < stages; ++s) {
      std::vector<Task> own;
      for (const auto& t : orders[s % devices])
        if (t.stage == s) own.push_back(t);
      std::vector<std::int64_t> in(stages, 0), A(stages, 0);
      in[s] = std::uniform_int_distribution<int>(0, 100)(random);
      A[s] = std::uniform_int_distribution<int>(0, 100)(random);
      INFO("trial " << trial << " stage " << s);
      CHECK(ActivationProfile(own, micro).peak(in[s], A[s]) == activation_peak(own, micro, in, A));
    }
  }
}

TEST_CASE("every schedule runs each forward and backward exactly once", "[pipeline][schedule]") {
  for (auto schedule : {ScheduleKind::kGpipe, ScheduleKind::kOneFOneB, ScheduleKind::kInterleaved})
    for (int devices = 1; devices <= 4; ++devices)
      for (int m = devices; m <= 3 * devices; m += devices) {
        const int v = schedule == ScheduleKind::kInterleaved ? 2 : 1;
        auto orders = device_task_orders(schedule, m, devices, v);
        std::vector<int> seen(2 * m * devices * v, 0);
        for (int d = 0; d < devices; ++d)
          for (const auto& t : orders[d]) {
            CHECK(t.stage % devices == d);
            ++seen[(t.kind == TaskKind::kForward ? 0 : m * devices * v) + t.micro_batch * devices * v + t.stage];
          }
        for (int count : seen) CHECK(count == 1);
        // And the orders never deadlock.
        Timeline timeline = simulate(orders, m, devices * v, [](const Task&) { return 1.0; });
        CHECK(timeline.step_ms >= 2.0 * m * v);
      }
}

}  // namespace
}  // namespace shardplan::pipeline
