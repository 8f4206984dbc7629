// Which task runs when: Pipe's clock cycles (docs/formats/pipeline.md) and the per-device task
// orders of 1F1B and interleaved 1F1B (docs/pipeline-schedules.md), with the time
// each takes.
#pragma once

#include <functional>
#include <vector>

#include "common/names.h"
#include "pipeline/types.h"

namespace shardplan::pipeline {

enum class TaskKind { kForward, kBackward };

// How tasks are written in the output ("F0s1": forward of micro-batch 0 on stage 1).
inline constexpr NameTable<TaskKind, 2> kTaskKindNames{{
    {TaskKind::kForward, "F", "forward of one micro-batch on one stage"},
    {TaskKind::kBackward, "B", "backward (with recomputation when checkpointed)"},
}};

// One unit of work: a forward or backward of one micro-batch on one (virtual) stage.
struct Task {
  TaskKind kind = TaskKind::kForward;
  int micro_batch = 0;
  int stage = 0;
  bool operator==(const Task&) const = default;
};

// Pipe's _clock_cycles for m micro-batches and n stages, forward then mirrored backward.
struct GpipeClocks {
  std::vector<std::vector<Task>> forward;
  std::vector<std::vector<Task>> backward;
};
GpipeClocks gpipe_clocks(int micro_batches, int stages);

// The order in which each of `devices` runs its tasks; virtual stage s lives on
// device s % devices (virtual_stages > 1 only for kInterleaved).
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
// its inputs are done (forward of the previous stage; backward of the next stage
// and its own forward). Transfers take no time. `stages` = number of virtual stages.
Timeline simulate(const std::vector<std::vector<Task>>& orders, int micro_batches, int stages,
                  const std::function<double(const Task&)>& duration_ms);

}  // namespace shardplan::pipeline
