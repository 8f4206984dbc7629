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
std::vector<Task> megatron_interleaved_order(int m, int n, int v, int device) {
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

// torch's rounds (ScheduleInterleaved1F1B.__init__, ScheduleInterleavedZeroBubble.__init__):
// number_of_rounds = max(1, m // p), microbatches_per_round = m // number_of_rounds.
int torch_rounds(int m, int p) { return std::max(1, m / p); }

// torch's ScheduleInterleaved1F1B and ScheduleInterleavedZeroBubble
// (_calculate_single_rank_operations, _get_warmup_ops, _get_1f1b_rank_ops), read as rules:
// - _get_warmup_ops: warm-up = (v-1) * microbatches_per_round + factor * (p-1-d), at most
//   m*v; factor 2 for interleaved 1F1B, 1 for zero bubble.
// - the device runs m*v forward "ops" k = 0..m*v-1 and as many backward ops; op k's
//   forward runs local chunk (k // mpr) % v (forward_stage_index); the backward paired
//   with op k (k >= warm-up) runs local chunk v-1 - ((k - warm-up) // mpr) % v
//   (backward_stage_index). Local chunk c is stage c*p + d. Each stage takes its
//   micro-batches in order 0, 1, ... (the per-stage counters fwd_stage_mb_index,
//   bwd_stage_mb_index, weight_stage_mb_index).
// - _get_1f1b_rank_ops: ops 0..warm-up-1 are forwards; ops warm-up..m*v-1 are a
//   forward then a backward; ops m*v..m*v+warm-up-1 are backwards only.
// - zero bubble (enable_zero_bubble): the backward is I instead of B; after the I of
//   op k, when k - warm-up >= d (num_1f1b_microbatches = rank), the W of the oldest
//   I without one follows; the Ws still missing at the end follow in I order.
std::vector<Task> torch_interleaved_order(int m, int p, int v, int device, bool zero_bubble) {
  const int mpr = m / torch_rounds(m, p);
  const int total = m * v;
  const int warmup = std::min((v - 1) * mpr + (zero_bubble ? 1 : 2) * (p - 1 - device), total);
  std::vector<int> next_f(v, 0), next_b(v, 0), next_w(v, 0);
  std::vector<int> backward_chunks;  // local chunk of each backward, in order
  std::size_t weights_done = 0;
  std::vector<Task> order;
  auto stage_of = [&](int chunk) { return chunk * p + device; };
  auto forward = [&](int op) {
    int c = (op / mpr) % v;
    order.push_back({TaskKind::kForward, next_f[c]++, stage_of(c)});
  };
  auto weight = [&] {
    int c = backward_chunks[weights_done++];
    order.push_back({TaskKind::kBackwardWeight, next_w[c]++, stage_of(c)});
  };
  auto backward = [&](int op) {
    int c = v - 1 - ((op - warmup) / mpr) % v;
    order.push_back({zero_bubble ? TaskKind::kBackwardInput : TaskKind::kBackward, next_b[c]++, stage_of(c)});
    backward_chunks.push_back(c);
    if (zero_bubble && op - warmup >= device) weight();
  };
  for (int op = 0; op < total + warmup; ++op) {
    if (op < total) forward(op);
    if (op >= warmup) backward(op);
  }
  while (zero_bubble && weights_done < backward_chunks.size()) weight();
  return order;
}

// torch's ScheduleZBVZeroBubble._calculate_single_rank_operations, read as rules. Device
// d holds chunk 0 = stage d and chunk 1 = stage 2p-1-d; n = max(2p-1, m) micro-batches are
// planned and those >= m dropped afterwards.
// warm-up: 2(p-d)-1 x F0; d x (F1, F0); p-d x (F1, I1, W1);
// steady, while F1 lags F0 or F0 < n: F0 (if < n), I0, W0, F1, I1, W1;
// cool-down: d x (I0, I1); p-d x (I0, W0 of the oldest without one); then every missing W1,
// then every missing W0.
std::vector<Task> zbv_order(int m, int p, int device) {
  const int n = std::max(2 * p - 1, m);
  const int s0 = device, s1 = 2 * p - 1 - device;
  int f0 = 0, f1 = 0, b0 = 0, b1 = 0;
  std::vector<Task> order;
  auto add = [&](TaskKind kind, int stage, int micro_batch) { order.push_back({kind, micro_batch, stage}); };
  for (int k = 0; k < 2 * (p - device) - 1; ++k) add(TaskKind::kForward, s0, f0++);
  for (int k = 0; k < device; ++k) {
    add(TaskKind::kForward, s1, f1++);
    add(TaskKind::kForward, s0, f0++);
  }
  for (int k = 0; k < p - device; ++k) {
    add(TaskKind::kForward, s1, f1++);
    add(TaskKind::kBackwardInput, s1, b1);
    add(TaskKind::kBackwardWeight, s1, b1++);
  }
  while (f1 < f0 || f0 < n) {
    if (f0 < n) add(TaskKind::kForward, s0, f0++);
    add(TaskKind::kBackwardInput, s0, b0);
    add(TaskKind::kBackwardWeight, s0, b0++);
    add(TaskKind::kForward, s1, f1++);
    add(TaskKind::kBackwardInput, s1, b1);
    add(TaskKind::kBackwardWeight, s1, b1++);
  }
  int w0 = b0, w1 = b1;
  for (int k = 0; k < device; ++k) {
    add(TaskKind::kBackwardInput, s0, b0++);
    add(TaskKind::kBackwardInput, s1, b1++);
  }
  for (int k = 0; k < p - device; ++k) {
    add(TaskKind::kBackwardInput, s0, b0++);
    add(TaskKind::kBackwardWeight, s0, w0++);
  }
  while (w1 < b1) add(TaskKind::kBackwardWeight, s1, w1++);
  while (w0 < b0) add(TaskKind::kBackwardWeight, s0, w0++);
  std::vector<Task> kept;
  for (const auto& t : order)
    if (t.micro_batch < m) kept.push_back(t);
  return kept;
}

// torch's ScheduleDualPipeV._calculate_single_rank_operations, read as rules. Device d
// holds s0 = stage d and s1 = stage 2p-1-d. Each (stage, kind) takes micro-batches in
// order; a full B advances that stage's I and W counters together; every I queues its
// W, and "W if pending" runs the oldest queued one.
// 1: 2(p-d-1) x F(s0).  2: d+1 x [F(s0), F(s1)].  3: p-d-1 x [I(s1), W if pending, F(s1)].
// 4: m-2p+d+1 x [F(s0)+B(s1) overlapped (the last device runs them apart the first
//    time), F(s1)+B(s0) overlapped].  5: p-d-1 x [B(s1), F(s1)+B(s0) overlapped].
// 6: d+1 x [backward of s1, backward of s0], switching from B to I at the middle
//    iteration (before s1's on odd devices, before s0's on even ones).
// 7: p-d-1 x [W if pending, backward of s0].  8: d+1 x W if pending.
std::vector<Task> dualpipev_order(int m, int p, int device) {
  const int s0 = device, s1 = 2 * p - 1 - device;
  std::vector<int> next_f(2 * p, 0), next_i(2 * p, 0), next_w(2 * p, 0);
  std::vector<std::pair<int, int>> weight_queue;  // (stage, micro-batch)
  std::size_t queue_head = 0;
  std::vector<Task> order;
  auto forward = [&](int s, bool overlapped) { order.push_back({TaskKind::kForward, next_f[s]++, s, overlapped}); };
  auto full_backward = [&](int s, bool overlapped) {
    order.push_back({TaskKind::kBackward, next_i[s]++, s, overlapped});
    ++next_w[s];
  };
  auto input_backward = [&](int s) {
    weight_queue.emplace_back(s, next_i[s]);
    order.push_back({TaskKind::kBackwardInput, next_i[s]++, s});
  };
  auto weight_if_pending = [&] {
    if (queue_head == weight_queue.size()) return;
    auto [s, mb] = weight_queue[queue_head++];
    order.push_back({TaskKind::kBackwardWeight, mb, s});
    ++next_w[s];
  };
  auto overlap = [&](int forward_stage, int backward_stage) {
    forward(forward_stage, false);
    full_backward(backward_stage, true);
  };
  for (int k = 0; k < 2 * (p - device - 1); ++k) forward(s0, false);
  for (int k = 0; k < device + 1; ++k) {
    forward(s0, false);
    forward(s1, false);
  }
  for (int k = 0; k < p - device - 1; ++k) {
    input_backward(s1);
    weight_if_pending();
    forward(s1, false);
  }
  for (int i = 0; i < m - 2 * p + device + 1; ++i) {
    if (i == 0 && device == p - 1) {
      forward(s0, false);
      full_backward(s1, false);
    } else {
      overlap(s0, s1);
    }
    overlap(s1, s0);
  }
  for (int k = 0; k < p - device - 1; ++k) {
    full_backward(s1, false);
    overlap(s1, s0);
  }
  bool zero_bubble = false;
  auto backward = [&](int s) {
    if (zero_bubble)
      input_backward(s);
    else
      full_backward(s, false);
  };
  const int step6 = device + 1;
  for (int i = 0; i < step6; ++i) {
    if (i == step6 / 2 && device % 2 == 1) zero_bubble = true;
    backward(s1);
    if (i == step6 / 2 && device % 2 == 0) zero_bubble = true;
    backward(s0);
  }
  for (int k = 0; k < p - device - 1; ++k) {
    weight_if_pending();
    backward(s0);
  }
  for (int k = 0; k < device + 1; ++k) weight_if_pending();
  return order;
}

}  // namespace

std::optional<std::string> schedule_refusal(ScheduleKind schedule, int micro_batches, int devices, int virtual_stages) {
  const int m = micro_batches, p = devices;
  if (m == 0 || p == 0) return std::nullopt;
  switch (schedule) {
    case ScheduleKind::kGpipe:
    case ScheduleKind::kOneFOneB:
      return std::nullopt;
    case ScheduleKind::kInterleaved:
    case ScheduleKind::kInterleavedZeroBubble: {
      const int rounds = torch_rounds(m, p);
      if (m % rounds == 0) return std::nullopt;
      return std::string(schedule == ScheduleKind::kInterleaved ? "ValueError: Interleaved 1F1B"
                                                                : "ValueError: Zero bubble") +
             " requires the number of microbatches to be a multiple of the number of rounds (" +
             std::to_string(rounds) + "), but got " + std::to_string(m) + ".";
    }
    case ScheduleKind::kInterleavedMegatron:
      if (m % p == 0) return std::nullopt;
      return "interleaved_1f1b_megatron needs a multiple of " + std::to_string(p) +
             " micro-batches (one per device in each group, as Megatron-LM), found " + std::to_string(m);
    case ScheduleKind::kZbv:
    case ScheduleKind::kDualPipeV:
      if (virtual_stages != 2)
        return "ValueError: ZBV requires exactly 2 stages per rank, but got " + std::to_string(virtual_stages) + ".";
      if (schedule == ScheduleKind::kDualPipeV && m < 2 * p)
        return "ValueError: DualPipeV requires at least as many microbatches as stages, but got " + std::to_string(m) +
               " microbatches and " + std::to_string(2 * p) + " stages.";
      return std::nullopt;
  }
  return std::nullopt;
}

std::vector<std::vector<Task>> device_task_orders(ScheduleKind schedule, int micro_batches, int devices,
                                                  int virtual_stages) {
  std::vector<std::vector<Task>> orders;
  const int m = micro_batches, p = devices, v = virtual_stages;
  for (int d = 0; d < devices; ++d) {
    if (m == 0) {
      orders.emplace_back();
      continue;
    }
    switch (schedule) {
      case ScheduleKind::kGpipe:
        orders.push_back(gpipe_order(m, d));
        break;
      case ScheduleKind::kOneFOneB:
        orders.push_back(one_f_one_b_order(m, p, d));
        break;
      case ScheduleKind::kInterleaved:
        orders.push_back(torch_interleaved_order(m, p, v, d, false));
        break;
      case ScheduleKind::kInterleavedZeroBubble:
        orders.push_back(torch_interleaved_order(m, p, v, d, true));
        break;
      case ScheduleKind::kInterleavedMegatron:
        orders.push_back(megatron_interleaved_order(m, p, v, d));
        break;
      case ScheduleKind::kZbv:
        orders.push_back(zbv_order(m, p, d));
        break;
      case ScheduleKind::kDualPipeV:
        orders.push_back(dualpipev_order(m, p, d));
        break;
    }
  }
  return orders;
}

Timeline simulate(const std::vector<std::vector<Task>>& orders, int micro_batches, int stages,
                  const std::function<double(const Task&)>& duration_ms) {
  const int devices = static_cast<int>(orders.size());
  const std::size_t cells = static_cast<std::size_t>(micro_batches) * stages;
  // Per (micro-batch, stage): end time and clock of its forward, of its input
  // gradient (B or I) and of its I alone (for W); -1 = not yet run.
  std::vector<double> forward_end(cells, -1), grad_end(cells, -1);
  std::vector<int> forward_clock(cells, -1), grad_clock(cells, -1);
  auto cell = [&](int i, int s) { return static_cast<std::size_t>(i) * stages + s; };

  Timeline timeline;
  timeline.devices.resize(devices);
  timeline.busy_ms.assign(devices, 0.0);
  std::vector<std::size_t> next(devices, 0);
  std::vector<double> free_at(devices, 0.0);
  std::vector<int> last_clock(devices, -1);
  std::size_t remaining = 0;
  for (const auto& order : orders) remaining += order.size();

  // The earliest start and clock of `t` as far as its inputs go; false when an input is missing.
  auto inputs_ready = [&](const Task& t, double& ready, int& clock) {
    auto need = [&](double end, int at) {
      if (end < 0) return false;
      ready = std::max(ready, end);
      clock = std::max(clock, at + 1);
      return true;
    };
    const std::size_t c = cell(t.micro_batch, t.stage);
    switch (t.kind) {
      case TaskKind::kForward:
        return t.stage == 0 ||
               need(forward_end[cell(t.micro_batch, t.stage - 1)], forward_clock[cell(t.micro_batch, t.stage - 1)]);
      case TaskKind::kBackward:
      case TaskKind::kBackwardInput:
        if (!need(forward_end[c], forward_clock[c])) return false;
        return t.stage == stages - 1 ||
               need(grad_end[cell(t.micro_batch, t.stage + 1)], grad_clock[cell(t.micro_batch, t.stage + 1)]);
      case TaskKind::kBackwardWeight:
        return need(grad_end[c], grad_clock[c]);
    }
    return false;
  };

  while (remaining > 0) {
    bool progressed = false;
    for (int d = 0; d < devices; ++d) {
      while (next[d] < orders[d].size()) {
        const auto& order = orders[d];
        const std::size_t count = next[d] + 1 < order.size() && order[next[d] + 1].overlapped ? 2 : 1;
        std::vector<double> ready(count, free_at[d]);
        int clock = last_clock[d] + 1;
        bool ok = true;
        for (std::size_t k = 0; k < count && ok; ++k) ok = inputs_ready(order[next[d] + k], ready[k], clock);
        if (!ok) break;
        double at = free_at[d];
        for (std::size_t k = 0; k < count; ++k) {
          const Task& t = order[next[d] + k];
          const double start = std::max(at, ready[k]);
          const double task_ms = duration_ms(t);
          const double end = start + task_ms;
          const std::size_t c = cell(t.micro_batch, t.stage);
          if (t.kind == TaskKind::kForward) {
            forward_end[c] = end;
            forward_clock[c] = clock;
          } else if (t.kind != TaskKind::kBackwardWeight) {
            grad_end[c] = end;
            grad_clock[c] = clock;
          }
          timeline.devices[d].push_back({t, clock, start, end});
          timeline.busy_ms[d] += task_ms;
          timeline.step_ms = std::max(timeline.step_ms, end);
          at = end;
        }
        free_at[d] = at;
        last_clock[d] = clock;
        next[d] += count;
        remaining -= count;
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
