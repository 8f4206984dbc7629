// Which task runs when: Pipe's clock cycles (docs/formats/pipeline.md) and the per-device task
// orders of 1F1B and interleaved 1F1B (docs/pipeline-schedules.md), with the time
// each takes.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "common/names.h"
#include "pipeline/types.h"

namespace shardplan::pipeline {

// torch.distributed.pipelining's compute actions: F, full backward B, and the
// zero-bubble split of B into its input-gradient (I) and weight-gradient (W) parts.
enum class TaskKind { kForward, kBackward, kBackwardInput, kBackwardWeight };

// How tasks are written in the output (torch's action letters).
inline constexpr NameTable<TaskKind, 4> kTaskKindNames{{
    {TaskKind::kForward, "F", "forward of one micro-batch on one stage"},
    {TaskKind::kBackward, "B", "full backward (with recomputation when checkpointed)"},
    {TaskKind::kBackwardInput, "I", "input-gradient half of the backward (recomputation first when checkpointed)"},
    {TaskKind::kBackwardWeight, "W", "weight-gradient half of the backward; frees the micro-batch"},
}};

// The most (micro-batch, stage) pairs one schedule may hold: every pair is a few
// tasks in the schedule and in the output, so the time and memory of a run grow
// with it (zero-bubble schedules: about 0.85 GB of RSS and 4 s at 250 000). The input
// reader refuses more before any work; --suggest tries candidates of at most
// kMaxSuggestScheduleSteps each, as it simulates dozens of them.
inline constexpr std::int64_t kMaxScheduleSteps = 250'000;
inline constexpr std::int64_t kMaxSuggestScheduleSteps = 25'000;

// One unit of work: a compute action of one micro-batch on one (virtual) stage.
// `overlapped`: the task runs as one action together with the device's previous
// task (DualPipeV's OVERLAP_F_B: a forward then a backward, one step).
struct Task {
  TaskKind kind = TaskKind::kForward;
  int micro_batch = 0;
  int stage = 0;
  bool overlapped = false;
  bool operator==(const Task&) const = default;
};

// Why a schedule cannot run a configuration (torch raises ValueError): the
// message, or nullopt when it can. `devices` = p, `virtual_stages` = v.
std::optional<std::string> schedule_refusal(ScheduleKind schedule, int micro_batches, int devices, int virtual_stages);

// Pipe's _clock_cycles for m micro-batches and n stages, forward then mirrored backward.
struct GpipeClocks {
  std::vector<std::vector<Task>> forward;
  std::vector<std::vector<Task>> backward;
};
GpipeClocks gpipe_clocks(int micro_batches, int stages);

// The order in which each of `devices` runs its tasks (torch's per-rank compute
// actions); stage s lives on device_of_stage(schedule, s, devices).
// Precondition: schedule_refusal(...) is nullopt.
std::vector<std::vector<Task>> device_task_orders(ScheduleKind schedule, int micro_batches, int devices,
                                                  int virtual_stages);

// A task placed in time: its clock (one task per device per clock, as early as
// its inputs allow) and its start and end when tasks take their real time.
struct TimedTask {
  Task task;
  int clock = 0;
  double start_ms = 0;
  double end_ms = 0;
};

// Every device's tasks in time, the clock-by-clock view and the totals.
struct Timeline {
  std::vector<std::vector<TimedTask>> devices;
  std::vector<std::vector<Task>> clocks;  // tasks of each clock, by device
  double step_ms = 0;
  std::vector<double> busy_ms;  // per device
};

// Runs `orders` without a global fence: a task starts once its device is free and
// its inputs are done (forward of the previous stage; backward (B or I) of the next
// stage and its own forward; W after its I). Transfers take no time. An overlapped
// pair waits for both tasks' inputs, runs one after the other and takes one clock.
// `stages` = number of virtual stages. Throws std::logic_error on a deadlock.
Timeline simulate(const std::vector<std::vector<Task>>& orders, int micro_batches, int stages,
                  const std::function<double(const Task&)>& duration_ms);

}  // namespace shardplan::pipeline
