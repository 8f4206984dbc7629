// Request in, plan out: partitions the layers, schedules the micro-batches and
// evaluates time, bubble, memory and transfers (docs/formats/pipeline.md and the schedules of
// docs/pipeline-schedules.md). A plan that cannot be made is a normal result.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "common/phase_times.h"
#include "pipeline/memory.h"
#include "pipeline/microbatch.h"
#include "pipeline/schedule.h"
#include "pipeline/types.h"

namespace shardplan::pipeline {

// One (virtual) stage: its layers [begin, end) and what it costs.
struct StagePlan {
  int stage = 0;
  int device = 0;
  int begin = 0;
  int end = 0;
  double fwd_ms_per_sample = 0;         // F_j, summed left to right
  double bwd_ms_per_sample = 0;         // G_j
  double bwd_input_ms_per_sample = 0;   // I_j (zero-bubble schedules)
  double bwd_weight_ms_per_sample = 0;  // W_j
  std::int64_t param_bytes = 0;         // P_j
  StageMemory memory;                   // the whole device's memory unless interleaved
  bool fits = true;
};

// A device holding several stages (interleaved, zero-bubble, DualPipeV): its
// stages and their memory together.
struct DevicePlan {
  int device = 0;
  std::vector<int> stages;
  StageMemory memory;
  bool fits = true;
};

// Bytes moved per step between two stages (boundary) or by one skip.
struct Transfer {
  int from = 0;
  int to = 0;
  bool skip = false;
  std::string name;  // the skip's name
  std::int64_t activation_bytes = 0;
  std::int64_t gradient_bytes = 0;
};

struct PipelinePlan {
  ScheduleKind schedule = ScheduleKind::kGpipe;
  int virtual_stages = 1;
  int devices = 0;
  std::vector<int> balance;
  MicroBatches micro;
  std::vector<StagePlan> stages;
  std::vector<DevicePlan> device_plans;                     // multi-stage schedules only
  GpipeClocks gpipe;                                        // gpipe only
  std::vector<double> forward_clock_ms, backward_clock_ms;  // gpipe only
  Timeline timeline;                                        // 1f1b and interleaved
  double step_time_ms = 0;
  double bubble_fraction = 0;
  double gpipe_bubble_formula = 0;     // (p-1)/(m+p-1), p = devices
  double schedule_bubble_formula = 0;  // interleaved: (p-1)/(v*m+p-1); otherwise the GPipe one
  double sequential_ms = 0;
  std::vector<Transfer> transfers;
  std::vector<std::string> warnings;
  std::optional<std::int64_t> memory_bytes;
};

// Why no plan could be made (exit 1): the spec's message, without "error: ".
struct PlanFailure {
  std::string message;
};

struct PlanResult {
  std::optional<PipelinePlan> plan;
  std::optional<PlanFailure> failure;
  PhaseTimes phases;  // wall time of balancing and of the rest, for --timings only
};

// Plans a validated input.
PlanResult plan_pipeline(const PipelineInput& input);

// "stage {j} needs {peak} bytes but devices have {M}" for each stage (device,
// when interleaved) that does not fit; empty when all fit.
std::vector<std::string> fit_errors(const PipelinePlan& plan);

}  // namespace shardplan::pipeline
