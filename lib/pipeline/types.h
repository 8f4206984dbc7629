// The pipeline planner's value types (docs/formats/pipeline.md): the input a user
// describes, and the plan computed from it. Read this file first: the stages are
//   reader (input.h) -> micro-batches (microbatch.h) -> partition (partition.h)
//   -> schedule and time (schedule.h) -> memory (memory.h) -> plan (planner.h)
//   -> JSON (plan_json.h).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
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

// The order in which devices run forward and backward tasks.
enum class ScheduleKind { kGpipe, kOneFOneB, kInterleaved };

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

inline constexpr NameTable<ScheduleKind, 3> kScheduleKindNames{{
    {ScheduleKind::kGpipe, "gpipe", "all forwards, then all backwards, clock by clock (torch Pipe)"},
    {ScheduleKind::kOneFOneB, "1f1b", "one forward, one backward (PipeDream-Flush, Megatron-LM)"},
    {ScheduleKind::kInterleaved, "interleaved_1f1b",
     "1F1B over several model chunks per device (Narayanan et al. 2021)"},
}};

// One entry of the `layers` list; times are per sample (whole-batch times were
// divided by the batch size when read).
struct Layer {
  std::string name;
  std::int64_t param_bytes = 0;
  std::int64_t activation_bytes_per_sample = 0;
  double fwd_ms_per_sample = 0;
  double bwd_ms_per_sample = 0;
  std::int64_t batch_norm_features = 0;  // > 0 marks a BatchNorm layer
};

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
  int virtual_stages = 1;  // model chunks per device (interleaved_1f1b only)
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
