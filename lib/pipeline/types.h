// The pipeline planner's value types (docs/formats/pipeline.md): the input a user
// describes, and the plan computed from it. Read this file first: the stages are
//   reader (input.h) -> micro-batches (microbatch.h) -> partition (partition.h)
//   -> schedule and time (schedule.h) -> memory (memory.h) -> plan (planner.h)
//   -> JSON (plan_json.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "common/names.h"

namespace shardplan::pipeline {

// Pipe's `checkpoint` argument: which micro-batches recompute their stage internals.
enum class CheckpointMode { kAlways, kExceptLast, kNever };

// What a layer costs when stages are balanced (torchgpipe's balance_by_time /
// balance_by_size; DeepSpeed's partition_method "parameters" and "uniform").
enum class BalanceBy { kTime, kSize, kParameters, kUniform };

// How stage boundaries are chosen from the costs.
enum class BalanceAlgorithm { kOptimal, kBlockpartition };

// The order in which devices run forward and backward tasks
// (docs/pipeline-schedules.md gives each one's rules and sources).
enum class ScheduleKind {
  kGpipe,
  kOneFOneB,
  kInterleaved,            // torch ScheduleInterleaved1F1B (flexible rounds)
  kInterleavedMegatron,    // Megatron-LM's original interleaving (m a multiple of p)
  kInterleavedZeroBubble,  // torch ScheduleInterleavedZeroBubble (ZB1P)
  kZbv,                    // torch ScheduleZBVZeroBubble (two stages per device in a V)
  kDualPipeV,              // torch ScheduleDualPipeV (DeepSeek-V3's DualPipe, V-shaped)
};

inline constexpr NameTable<CheckpointMode, 3> kCheckpointModeNames{{
    {CheckpointMode::kAlways, "always", "every micro-batch is checkpointed"},
    {CheckpointMode::kExceptLast, "except_last", "all micro-batches but the last are checkpointed"},
    {CheckpointMode::kNever, "never", "no checkpointing"},
}};

inline constexpr NameTable<BalanceBy, 4> kBalanceByNames{{
    {BalanceBy::kTime, "time", "forward + backward ms per sample of each layer"},
    {BalanceBy::kSize, "size", "activation bytes x batch/chunks + parameter bytes x param_scale"},
    {BalanceBy::kParameters, "parameters", "parameter bytes of each layer (DeepSpeed)"},
    {BalanceBy::kUniform, "uniform", "the same number of layers per stage (DeepSpeed)"},
}};

inline constexpr NameTable<BalanceAlgorithm, 2> kBalanceAlgorithmNames{{
    {BalanceAlgorithm::kOptimal, "optimal", "smallest bottleneck, then the most even stages"},
    {BalanceAlgorithm::kBlockpartition, "blockpartition", "torchgpipe's heuristic (Barany et al.), not optimal"},
}};

inline constexpr NameTable<ScheduleKind, 7> kScheduleKindNames{{
    {ScheduleKind::kGpipe, "gpipe", "all forwards, then all backwards, clock by clock (torch Pipe)"},
    {ScheduleKind::kOneFOneB, "1f1b", "one forward, one backward (PipeDream-Flush, Megatron-LM)"},
    {ScheduleKind::kInterleaved, "interleaved_1f1b",
     "1F1B over several model chunks per device, torch's flexible rounds (ScheduleInterleaved1F1B)"},
    {ScheduleKind::kInterleavedMegatron, "interleaved_1f1b_megatron",
     "Megatron-LM's interleaved 1F1B (micro-batches a multiple of the devices; all forwards first when equal)"},
    {ScheduleKind::kInterleavedZeroBubble, "interleaved_zero_bubble",
     "zero bubble ZB1P: backward split into input (I) and weight (W) gradients (ScheduleInterleavedZeroBubble)"},
    {ScheduleKind::kZbv, "zbv_zero_bubble", "zero bubble ZB-V: two stages per device in a V (ScheduleZBVZeroBubble)"},
    {ScheduleKind::kDualPipeV, "dualpipev",
     "DeepSeek-V3's DualPipe on a V: overlapped forward+backward steps (ScheduleDualPipeV)"},
}};

// Schedules that place several (virtual) stages on each device.
inline bool multi_stage_schedule(ScheduleKind s) { return s != ScheduleKind::kGpipe && s != ScheduleKind::kOneFOneB; }
// Schedules that place a device's two stages in a V: device d holds stages d and 2p-1-d.
inline bool v_shaped_schedule(ScheduleKind s) { return s == ScheduleKind::kZbv || s == ScheduleKind::kDualPipeV; }
// Schedules that split backwards into I and W (DualPipeV runs both full and split ones).
inline bool uses_split_backward(ScheduleKind s) {
  return s == ScheduleKind::kInterleavedZeroBubble || s == ScheduleKind::kZbv || s == ScheduleKind::kDualPipeV;
}
// The device of stage `stage` among `devices` (torch's stage-to-rank mapping: "loop" or "v").
inline int device_of_stage(ScheduleKind s, int stage, int devices) {
  if (devices <= 0) return 0;
  if (v_shaped_schedule(s)) return stage < devices ? stage : 2 * devices - 1 - stage;
  return stage % devices;
}

// One entry of the `layers` list; times are per sample (whole-batch times were
// divided by the batch size when read).
struct Layer {
  std::string name;
  std::int64_t param_bytes = 0;
  std::int64_t activation_bytes_per_sample = 0;
  double fwd_ms_per_sample = 0;
  double bwd_ms_per_sample = 0;
  std::int64_t batch_norm_features = 0;  // > 0 marks a BatchNorm layer
  // Last, so that positional initializers of the fields above keep their meaning.
  // The backward split for zero-bubble schedules: input gradient (I) and weight
  // gradient (W). Absent: the other one's complement of bwd_ms_per_sample, or half
  // of it when neither is given (docs/pipeline-schedules.md).
  std::optional<double> bwd_input_ms_per_sample;
  std::optional<double> bwd_weight_ms_per_sample;
};

// The I and W times of a layer with the defaults applied.
inline std::pair<double, double> split_backward_ms(const Layer& l) {
  const double g = l.bwd_ms_per_sample;
  if (l.bwd_input_ms_per_sample && l.bwd_weight_ms_per_sample)
    return {*l.bwd_input_ms_per_sample, *l.bwd_weight_ms_per_sample};
  if (l.bwd_input_ms_per_sample)
    return {*l.bwd_input_ms_per_sample, g > *l.bwd_input_ms_per_sample ? g - *l.bwd_input_ms_per_sample : 0.0};
  if (l.bwd_weight_ms_per_sample)
    return {g > *l.bwd_weight_ms_per_sample ? g - *l.bwd_weight_ms_per_sample : 0.0, *l.bwd_weight_ms_per_sample};
  return {g / 2, g / 2};
}

// A skip connection (torchgpipe's stash/pop) between two layers, by index.
struct Skip {
  std::string name;
  int stash_layer = 0;
  int pop_layer = 0;
  std::int64_t bytes_per_sample = 0;
};

struct PipelineOptions {
  int chunks = 1;
  CheckpointMode checkpoint = CheckpointMode::kExceptLast;
  bool deferred_batch_norm = false;
  std::optional<std::vector<int>> balance;  // explicit layers per stage
  std::optional<int> stages;                // stages when balancing (default: devices)
  BalanceBy balance_by = BalanceBy::kTime;
  BalanceAlgorithm balance_algorithm = BalanceAlgorithm::kOptimal;
  bool memory_aware = true;
  double param_scale = 2.0;
  bool ddp = false;
  ScheduleKind schedule = ScheduleKind::kGpipe;
  int virtual_stages = 1;  // model chunks per device (multi-stage schedules only; 2 for the V ones)
};

// A validated input file.
struct PipelineInput {
  std::vector<Layer> layers;
  std::int64_t input_bytes_per_sample = 0;
  std::vector<Skip> skips;
  int batch_size = 1;
  int device_count = 1;
  std::optional<std::int64_t> memory_bytes;  // per device; no fit checks without it
  PipelineOptions options;
};

}  // namespace shardplan::pipeline
