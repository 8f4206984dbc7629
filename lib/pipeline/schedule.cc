#include "pipeline/schedule.h"

#include <algorithm>
#include <stdexcept>

namespace shardplan::pipeline {

GpipeClocks gpipe_clocks(int micro_batches, int stages) {
  GpipeClocks clocks;
  const int m = micro_batches;
  const int n = stages;
  if (m == 0 || n == 0) return clocks;
  for (int k = 0; k < m + n - 1; ++k) {
    std::vector<Task> forward;
    for (int j = std::max(0, k - m + 1); j <= std::min(k, n - 1); ++j)
      forward.push_back({TaskKind::kForward, k - j, j});
    clocks.forward.push_back(std::move(forward));
    // Mirrored: (m-1-i) + (n-1-j) = k, stages descending.
    std::vector<Task> backward;
    for (int j = std::max(0, k - m + 1); j <= std::min(k, n - 1); ++j)
      backward.push_back({TaskKind::kBackward, m - 1 - (k - j), n - 1 - j});
    clocks.backward.push_back(std::move(backward));
  }
  return clocks;
}

namespace {

std::vector<Task> gpipe_order(int m, int device) {
  std::vector<Task> order;
  for (int i = 0; i < m; ++i) order.push_back({TaskKind::kForward, i, device});
  for (int i = m - 1; i >= 0; --i) order.push_back({TaskKind::kBackward, i, device});
  return order;
}

// PipeDream-Flush / Megatron-LM 1F1B: n-1-d warm-up forwards, then alternate one
// forward and one backward, then drain the remaining backwards.
std::vector<Task> one_f_one_b_order(int m, int n, int device) {
  std::vector<Task> order;
  const int warmup = std::min(n - 1 - device, m);
  for (int i = 0; i < warmup; ++i) order.push_back({TaskKind::kForward, i, device});
  for (int k = 0; k < m - warmup; ++k) {
    order.push_back({TaskKind::kForward, warmup + k, device});
    order.push_back({TaskKind::kBackward, k, device});
  }
  for (int k = m - warmup; k < m; ++k) order.push_back({TaskKind::kBackward, k, device});
  return order;
}

// Megatron-LM's interleaved schedule (forward_backward_pipelining_with_interleaving):
// the k-th forward of a device runs model chunk (k mod nv) div n on micro-batch
// (k div nv)*n + k mod n; backwards walk the chunks in reverse; warm-up is
// 2(n-1-d) + (v-1)n forwards, or everything when m == n.
std::vector<Task> interleaved_order(int m, int n, int v, int device) {
  const int total = m * v;
  auto task = [&](int k, TaskKind kind) {
    int in_group = k % (n * v);
    int chunk = in_group / n;
    if (kind == TaskKind::kBackward) chunk = v - 1 - chunk;
    int micro_batch = (k / (n * v)) * n + k % n;
    return Task{kind, micro_batch, chunk * n + device};
  };
  int warmup = m == n ? total : std::min(2 * (n - 1 - device) + (v - 1) * n, total);
  std::vector<Task> order;
  for (int k = 0; k < warmup; ++k) order.push_back(task(k, TaskKind::kForward));
  for (int k = 0; k < total - warmup; ++k) {
    order.push_back(task(warmup + k, TaskKind::kForward));
    order.push_back(task(k, TaskKind::kBackward));
  }
  for (int k = total - warmup; k < total; ++k) order.push_back(task(k, TaskKind::kBackward));
  return order;
}

}  // namespace

std::vector<std::vector<Task>> device_task_orders(ScheduleKind schedule, int micro_batches, int devices,
                                                  int virtual_stages) {
  std::vector<std::vector<Task>> orders;
  for (int d = 0; d < devices; ++d) {
    switch (schedule) {
      case ScheduleKind::kGpipe: orders.push_back(gpipe_order(micro_batches, d)); break;
      case ScheduleKind::kOneFOneB: orders.push_back(one_f_one_b_order(micro_batches, devices, d)); break;
      case ScheduleKind::kInterleaved:
        orders.push_back(interleaved_order(micro_batches, devices, virtual_stages, d));
        break;
    }
  }
  return orders;
}

Timeline simulate(const std::vector<std::vector<Task>>& orders, int micro_batches, int stages,
                  const std::function<double(const Task&)>& duration_ms) {
  const int devices = static_cast<int>(orders.size());
  const std::size_t cells = static_cast<std::size_t>(micro_batches) * stages;
  // Per (micro-batch, stage): end time and clock of its forward and backward; -1 = not yet run.
  std::vector<double> forward_end(cells, -1), backward_end(cells, -1);
  std::vector<int> forward_clock(cells, -1), backward_clock(cells, -1);
  auto cell = [&](int i, int s) { return static_cast<std::size_t>(i) * stages + s; };

  Timeline timeline;
  timeline.devices.resize(devices);
  timeline.busy_ms.assign(devices, 0.0);
  std::vector<std::size_t> next(devices, 0);
  std::vector<double> free_at(devices, 0.0);
  std::vector<int> last_clock(devices, -1);
  std::size_t remaining = 0;
  for (const auto& order : orders) remaining += order.size();

  while (remaining > 0) {
    bool progressed = false;
    for (int d = 0; d < devices; ++d) {
      while (next[d] < orders[d].size()) {
        const Task& t = orders[d][next[d]];
        double ready = free_at[d];
        int clock = last_clock[d] + 1;
        auto need = [&](double end, int at) {
          if (end < 0) return false;
          ready = std::max(ready, end);
          clock = std::max(clock, at + 1);
          return true;
        };
        bool ok = true;
        if (t.kind == TaskKind::kForward) {
          if (t.stage > 0) ok = need(forward_end[cell(t.micro_batch, t.stage - 1)], forward_clock[cell(t.micro_batch, t.stage - 1)]);
        } else {
          ok = need(forward_end[cell(t.micro_batch, t.stage)], forward_clock[cell(t.micro_batch, t.stage)]);
          if (ok && t.stage < stages - 1)
            ok = need(backward_end[cell(t.micro_batch, t.stage + 1)], backward_clock[cell(t.micro_batch, t.stage + 1)]);
        }
        if (!ok) break;
        const double task_ms = duration_ms(t);
        const double end = ready + task_ms;
        if (t.kind == TaskKind::kForward) {
          forward_end[cell(t.micro_batch, t.stage)] = end;
          forward_clock[cell(t.micro_batch, t.stage)] = clock;
        } else {
          backward_end[cell(t.micro_batch, t.stage)] = end;
          backward_clock[cell(t.micro_batch, t.stage)] = clock;
        }
        timeline.devices[d].push_back({t, clock, ready, end});
        timeline.busy_ms[d] += task_ms;
        timeline.step_ms = std::max(timeline.step_ms, end);
        free_at[d] = end;
        last_clock[d] = clock;
        ++next[d];
        --remaining;
        progressed = true;
      }
    }
    if (!progressed) throw std::logic_error("pipeline schedule deadlocks: a task waits for one that never runs");
  }
  for (int d = 0; d < devices; ++d)
    for (const auto& timed : timeline.devices[d]) {
      if (static_cast<std::size_t>(timed.clock) >= timeline.clocks.size()) timeline.clocks.resize(timed.clock + 1);
      timeline.clocks[timed.clock].push_back(timed.task);
    }
  return timeline;
}

}  // namespace shardplan::pipeline
