// The schedules of torch.distributed.pipelining (ScheduleInterleaved1F1B,
// ScheduleInterleavedZeroBubble, ScheduleZBVZeroBubble, ScheduleDualPipeV) as
// per-device compute orders. The expected orders below are derived BY HAND from
// the rules as torch's source states them (torch/distributed/pipelining/
// schedules.py; the function each rule comes from is named), not printed by the
// code under test; then properties every order must have are checked on the grid
// of ranks 2-8, micro-batches p..4p, virtual stages 1-4.
#include <catch2/catch.hpp>

#include <map>
#include <set>
#include <tuple>

#include "pipeline/pipeline_test_util.h"
#include "pipeline/schedule.h"

namespace shardplan::pipeline {
namespace {

// "F0s1" = forward of micro-batch 0 on stage 1; "+" marks the second half of an
// overlapped action (DualPipeV's OVERLAP_F_B).
std::string torch_order_text(const std::vector<Task>& order) {
  std::string out;
  for (const auto& t : order)
    out += std::string(out.empty() ? "" : " ") + (t.overlapped ? "+" : "") +
           std::string(name_of(kTaskKindNames, t.kind)) + std::to_string(t.micro_batch) + "s" + std::to_string(t.stage);
  return out;
}

TEST_CASE("interleaved_1f1b follows torch's flexible rounds where m is not a multiple of p", "[pipeline][torch]") {
  // p = 2, m = 3, v = 2. ScheduleInterleaved1F1B.__init__: number_of_rounds =
  // max(1, 3 // 2) = 1, microbatches_per_round = 3 // 1 = 3 (3 % 1 == 0: accepted).
  // _get_warmup_ops (multiply_factor 2): (v-1)*3 + 2*(p-1-d) = 5 (d=0), 3 (d=1).
  // forward_stage_index(op): chunk (op // 3) % 2 -> ops 0-2 chunk 0, ops 3-5 chunk 1.
  // backward_stage_index(op): chunk 1 - ((op - warmup) // 3) % 2.
  // _get_1f1b_rank_ops: warm-up forwards, then (F op, B op) pairs for op < m*v = 6,
  // then B only. Device 0 holds stages 0 and 2:
  //   ops 0-4: F0s0 F1s0 F2s0 F0s2 F1s2; op 5: F2s2, B chunk 1 -> B0s2;
  //   ops 6,7: (op-5)//3 = 0 -> B1s2 B2s2; ops 8-10: 1 -> chunk 0: B0s0 B1s0 B2s0.
  // Device 1 holds stages 1 and 3, warm-up 3: F0s1 F1s1 F2s1; ops 3-5 pair
  //   F{0,1,2}s3 with B{0,1,2}s3 ((op-3)//3 = 0 -> chunk 1); ops 6-8: chunk 0.
  auto orders = device_task_orders(ScheduleKind::kInterleaved, 3, 2, 2);
  CHECK(torch_order_text(orders[0]) == "F0s0 F1s0 F2s0 F0s2 F1s2 F2s2 B0s2 B1s2 B2s2 B0s0 B1s0 B2s0");
  CHECK(torch_order_text(orders[1]) == "F0s1 F1s1 F2s1 F0s3 B0s3 F1s3 B1s3 F2s3 B2s3 B0s1 B1s1 B2s1");
  // Megatron's version refuses it (groups of one micro-batch per device).
  CHECK(schedule_refusal(ScheduleKind::kInterleavedMegatron, 3, 2, 2).has_value());
  CHECK_FALSE(schedule_refusal(ScheduleKind::kInterleaved, 3, 2, 2).has_value());
  // torch refuses m = 9 on 4 ranks: 2 rounds, 9 % 2 != 0.
  CHECK(schedule_refusal(ScheduleKind::kInterleaved, 9, 4, 2) ==
        "ValueError: Interleaved 1F1B requires the number of microbatches to be a multiple of the number of rounds "
        "(2), but got 9.");
}

TEST_CASE("interleaved_1f1b at m == p has no all-forwards special case; Megatron's keeps it", "[pipeline][torch]") {
  // p = 2, m = 2, v = 2: rounds 1, per round 2; warm-up (1*2) + 2*(1-d) = 4 (d=0), 2 (d=1).
  // Device 0 (stages 0, 2): ops 0-3 forwards F0s0 F1s0 F0s2 F1s2 (warm-up = m*v: all
  // forwards anyway); then B chunk 1-((op-4)//2)%2: B0s2 B1s2 B0s0 B1s0.
  // Device 1 (stages 1, 3): F0s1 F1s1; op 2: F0s3 B0s3; op 3: F1s3 B1s3; ops 4,5: chunk 0.
  auto torch = device_task_orders(ScheduleKind::kInterleaved, 2, 2, 2);
  CHECK(torch_order_text(torch[1]) == "F0s1 F1s1 F0s3 B0s3 F1s3 B1s3 B0s1 B1s1");
  // Megatron-LM (forward_backward_pipelining_with_interleaving): m == p runs every forward first.
  auto megatron = device_task_orders(ScheduleKind::kInterleavedMegatron, 2, 2, 2);
  CHECK(torch_order_text(megatron[1]) == "F0s1 F1s1 F0s3 F1s3 B0s3 B1s3 B0s1 B1s1");
}

TEST_CASE("interleaved_zero_bubble: ZB1P order worked by hand", "[pipeline][torch]") {
  // p = 2, m = 4, v = 2. ScheduleInterleavedZeroBubble.__init__: rounds 2, 2 per round.
  // _get_warmup_ops with multiply_factor 1: 1*2 + (1-d) = 3 (d=0), 2 (d=1).
  // forward chunk (op // 2) % 2; backward chunk 1 - ((op - warmup) // 2) % 2.
  // _get_1f1b_rank_ops(enable_zero_bubble): backwards are I; after the I of op, when
  // op - warmup >= num_1f1b_microbatches (= rank), the W of the oldest I without one;
  // the remaining Ws at the end.
  // Device 0 (stages 0, 2), warm-up 3: F0s0 F1s0 F0s2 | op3: F1s2 I0s2 W0s2 |
  //   op4: F2s0 I1s2 W1s2 | op5: F3s0 I0s0 W0s0 | op6: F2s2 I1s0 W1s0 |
  //   op7: F3s2 I2s2 W2s2 | op8: I3s2 W3s2 | op9: I2s0 W2s0 | op10: I3s0 W3s0.
  // Device 1 (stages 1, 3), warm-up 2, Ws lag by one: F0s1 F1s1 | op2: F0s3 I0s3 |
  //   op3: F1s3 I1s3 W0s3 | op4: F2s1 I0s1 W1s3 | op5: F3s1 I1s1 W0s1 |
  //   op6: F2s3 I2s3 W1s1 | op7: F3s3 I3s3 W2s3 | op8: I2s1 W3s3 | op9: I3s1 W2s1 | W3s1.
  auto orders = device_task_orders(ScheduleKind::kInterleavedZeroBubble, 4, 2, 2);
  CHECK(torch_order_text(orders[0]) ==
        "F0s0 F1s0 F0s2 F1s2 I0s2 W0s2 F2s0 I1s2 W1s2 F3s0 I0s0 W0s0 F2s2 I1s0 W1s0 F3s2 I2s2 W2s2 I3s2 W3s2 "
        "I2s0 W2s0 I3s0 W3s0");
  CHECK(torch_order_text(orders[1]) ==
        "F0s1 F1s1 F0s3 I0s3 F1s3 I1s3 W0s3 F2s1 I0s1 W1s3 F3s1 I1s1 W0s1 F2s3 I2s3 W1s1 F3s3 I3s3 W2s3 I2s1 "
        "W3s3 I3s1 W2s1 W3s1");
}

TEST_CASE("zbv_zero_bubble: ZB-V order worked by hand", "[pipeline][torch]") {
  // p = 2, m = 4; generate_stage_to_rank_mapping(style="v"): device d holds stages d
  // and 2p-1-d (0 and 3; 1 and 2). ScheduleZBVZeroBubble._calculate_single_rank_operations:
  // n_micro = max(2p-1, m) = 4; warm-up 2(p-d)-1 x F(chunk 0), d x (F1, F0),
  // p-d x (F1, I1, W1); steady while f1 < f0 or f0 < n: F0 (if f0 < n), I0, W0, F1, I1, W1;
  // cool-down d x (I0, I1), p-d x (I0, W0), then remaining W1s, then remaining W0s.
  // Device 0: F0s0 F1s0 F2s0 | F0s3 I0s3 W0s3 F1s3 I1s3 W1s3 | F3s0 I0s0 W0s0 F2s3 I2s3 W2s3 |
  //   (f0 = 4) I1s0 W1s0 F3s3 I3s3 W3s3 | I2s0 W2s0 I3s0 W3s0.
  // Device 1: F0s1 | F0s2 F1s1 | F1s2 I0s2 W0s2 | F2s1 I0s1 W0s1 F2s2 I1s2 W1s2 |
  //   F3s1 I1s1 W1s1 F3s2 I2s2 W2s2 | I2s1 I3s2 | I3s1 W2s1 | W3s2 | W3s1.
  auto orders = device_task_orders(ScheduleKind::kZbv, 4, 2, 2);
  CHECK(torch_order_text(orders[0]) ==
        "F0s0 F1s0 F2s0 F0s3 I0s3 W0s3 F1s3 I1s3 W1s3 F3s0 I0s0 W0s0 F2s3 I2s3 W2s3 I1s0 W1s0 F3s3 I3s3 W3s3 "
        "I2s0 W2s0 I3s0 W3s0");
  CHECK(torch_order_text(orders[1]) ==
        "F0s1 F0s2 F1s1 F1s2 I0s2 W0s2 F2s1 I0s1 W0s1 F2s2 I1s2 W1s2 F3s1 I1s1 W1s1 F3s2 I2s2 W2s2 I2s1 I3s2 "
        "I3s1 W2s1 W3s2 W3s1");
  // With m < 2p-1 torch plans 2p-1 micro-batches and drops the extra ones.
  auto small = device_task_orders(ScheduleKind::kZbv, 2, 2, 2);
  for (const auto& order : small)
    for (const auto& t : order) CHECK(t.micro_batch < 2);
}

TEST_CASE("dualpipev: order with overlapped F+B actions worked by hand", "[pipeline][torch]") {
  // p = 2, m = 4 (ScheduleDualPipeV.__init__ needs m >= 2p stages). Device d holds s0 = d,
  // s1 = 2p-1-d. _calculate_single_rank_operations: 1: 2(p-d-1) x F(s0); 2: d+1 x
  // (F s0, F s1); 3: p-d-1 x (I s1, W if pending, F s1); 4: m-2p+d+1 x (overlap F s0 + B s1
  // -- apart the first time on the last rank --, overlap F s1 + B s0); 5: p-d-1 x (B s1,
  // overlap F s1 + B s0); 6: d+1 x (backward s1, backward s0) switching to I at iteration
  // (d+1)//2, before s1 on odd ranks, before s0 on even; 7: p-d-1 x (W if pending,
  // backward s0); 8: d+1 x W if pending. A full B advances the I counter of its stage.
  // Device 0 (s0 = 0, s1 = 3): F0s0 F1s0 | F2s0 F0s3 | I0s3 W0s3 F1s3 | [F3s0 B1s3]
  //   [F2s3 B0s0] | B2s3 [F3s3 B1s0] | B3s3 (even rank: I from s0 on) I2s0 | W2s0 I3s0 | W3s0.
  // Device 1 (s0 = 1, s1 = 2): F0s1 F0s2 F1s1 F1s2 | F2s1 B0s2 [F2s2 B0s1] [F3s1 B1s2]
  //   [F3s2 B1s1] | B2s2 B2s1 (odd rank, iteration 1: I from s1 on) I3s2 I3s1 | W3s2 W3s1.
  auto orders = device_task_orders(ScheduleKind::kDualPipeV, 4, 2, 2);
  CHECK(torch_order_text(orders[0]) ==
        "F0s0 F1s0 F2s0 F0s3 I0s3 W0s3 F1s3 F3s0 +B1s3 F2s3 +B0s0 B2s3 F3s3 +B1s0 B3s3 I2s0 W2s0 I3s0 W3s0");
  CHECK(torch_order_text(orders[1]) ==
        "F0s1 F0s2 F1s1 F1s2 F2s1 B0s2 F2s2 +B0s1 F3s1 +B1s2 F3s2 +B1s1 B2s2 B2s1 I3s2 I3s1 W3s2 W3s1");
  CHECK(schedule_refusal(ScheduleKind::kDualPipeV, 3, 2, 2) ==
        "ValueError: DualPipeV requires at least as many microbatches as stages, but got 3 microbatches and 4 stages.");
}

// Where torch's interleaving and Megatron-LM's agree (m a multiple of p, m > p),
// two independently written generators must give the same orders.
TEST_CASE("interleaved_1f1b equals Megatron-LM's order where m is a multiple of p above p", "[pipeline][torch]") {
  for (int p = 2; p <= 8; ++p)
    for (int m = 2 * p; m <= 4 * p; m += p)
      for (int v = 1; v <= 4; ++v) {
        INFO("p " << p << " m " << m << " v " << v);
        CHECK(device_task_orders(ScheduleKind::kInterleaved, m, p, v) ==
              device_task_orders(ScheduleKind::kInterleavedMegatron, m, p, v));
      }
}

struct TorchGridCase {
  ScheduleKind schedule;
  int p, m, v;
};

std::vector<TorchGridCase> torch_schedule_grid() {
  std::vector<TorchGridCase> cases;
  for (int p = 2; p <= 8; ++p)
    for (int m = p; m <= 4 * p; ++m) {
      for (int v = 1; v <= 4; ++v) {
        cases.push_back({ScheduleKind::kInterleaved, p, m, v});
        cases.push_back({ScheduleKind::kInterleavedZeroBubble, p, m, v});
        cases.push_back({ScheduleKind::kInterleavedMegatron, p, m, v});
      }
      cases.push_back({ScheduleKind::kZbv, p, m, 2});
      cases.push_back({ScheduleKind::kDualPipeV, p, m, 2});
      cases.push_back({ScheduleKind::kOneFOneB, p, m, 1});
    }
  return cases;
}

TEST_CASE("every schedule on the grid: each action once, in dependency order, one action per clock",
          "[pipeline][torch]") {
  int checked = 0;
  for (const auto& c : torch_schedule_grid()) {
    if (schedule_refusal(c.schedule, c.m, c.p, c.v)) continue;
    ++checked;
    INFO(name_of(kScheduleKindNames, c.schedule) << " p " << c.p << " m " << c.m << " v " << c.v);
    const int stages = c.p * c.v;
    auto orders = device_task_orders(c.schedule, c.m, c.p, c.v);
    REQUIRE(static_cast<int>(orders.size()) == c.p);
    // (kind, micro-batch, stage) -> position on its device; each exactly once.
    std::map<std::tuple<TaskKind, int, int>, int> position;
    bool ok = true;
    for (int d = 0; d < c.p; ++d)
      for (int k = 0; k < static_cast<int>(orders[d].size()); ++k) {
        const Task& t = orders[d][k];
        ok = ok && device_of_stage(c.schedule, t.stage, c.p) == d && t.micro_batch >= 0 && t.micro_batch < c.m;
        ok = ok && position.emplace(std::tuple(t.kind, t.micro_batch, t.stage), k).second;
      }
    CHECK(ok);
    for (int s = 0; s < stages; ++s)
      for (int i = 0; i < c.m; ++i) {
        auto at = [&](TaskKind kind) {
          auto it = position.find(std::tuple(kind, i, s));
          return it == position.end() ? -1 : it->second;
        };
        const int f = at(TaskKind::kForward), b = at(TaskKind::kBackward), in = at(TaskKind::kBackwardInput),
                  w = at(TaskKind::kBackwardWeight);
        // F once; then either one full B, or an I and later its W; every F before its backward.
        ok = ok && f >= 0 && ((b >= 0) != (in >= 0 && w >= 0)) && (b < 0 || (in < 0 && w < 0));
        ok = ok && (b < 0 || f < b) && (in < 0 || (f < in && in < w));
      }
    CHECK(ok);
    // Dependencies across stages: the simulation (which throws on a deadlock) starts
    // every task after its inputs end; each device runs one action per clock.
    Timeline timeline =
        simulate(orders, c.m, stages, [](const Task& t) { return t.kind == TaskKind::kForward ? 1.0 : 2.0; });
    std::map<std::tuple<TaskKind, int, int>, std::pair<double, double>> when;  // start, end
    for (const auto& device : timeline.devices)
      for (const auto& tt : device)
        when[std::tuple(tt.task.kind, tt.task.micro_batch, tt.task.stage)] = {tt.start_ms, tt.end_ms};
    auto end_of = [&](TaskKind kind, int i, int s) {
      auto it = when.find(std::tuple(kind, i, s));
      return it == when.end() ? -1.0 : it->second.second;
    };
    for (const auto& [key, span] : when) {
      auto [kind, i, s] = key;
      if (kind == TaskKind::kForward && s > 0) ok = ok && span.first >= end_of(TaskKind::kForward, i, s - 1);
      if (kind == TaskKind::kBackward || kind == TaskKind::kBackwardInput) {
        ok = ok && span.first >= end_of(TaskKind::kForward, i, s);
        if (s + 1 < stages)
          ok = ok && span.first >=
                         std::max(end_of(TaskKind::kBackward, i, s + 1), end_of(TaskKind::kBackwardInput, i, s + 1));
      }
      if (kind == TaskKind::kBackwardWeight) ok = ok && span.first >= end_of(TaskKind::kBackwardInput, i, s);
    }
    CHECK(ok);
    for (const auto& device : timeline.devices)
      for (std::size_t k = 1; k < device.size(); ++k) {
        // Only the second half of an overlapped action shares its clock.
        if (device[k].task.overlapped)
          ok = ok && device[k].clock == device[k - 1].clock;
        else
          ok = ok && device[k].clock > device[k - 1].clock;
        ok = ok && device[k].start_ms >= device[k - 1].end_ms;
      }
    CHECK(ok);
  }
  CHECK(checked > 900);
}

TEST_CASE("zero-bubble schedules shrink the bubble of 1F1B on equal stages", "[pipeline][torch]") {
  // Equal stages, F = 1, I = W = 1 (B = 2): Qi et al.'s setting. With p = 4, m = 12:
  // 1F1B's bubble is (p-1)(F+B) = 9 of a step of 12*3 + 9 = 45 per device.
  const int p = 4, m = 12;
  auto duration = [](const Task& t) {
    return t.kind == TaskKind::kBackward ? 2.0 : 1.0;  // F, I and W 1 each, B = I + W
  };
  auto one_f_one_b = simulate(device_task_orders(ScheduleKind::kOneFOneB, m, p, 1), m, p, duration);
  CHECK(one_f_one_b.step_ms == 45.0);
  // ZB-V on the same 4 devices with 8 half-size stages: every device is busy
  // 12 * 2 * (0.5 + 0.5 + 0.5) = 36; the V keeps its bubble below 1F1B's.
  auto half = [](const Task& t) { return t.kind == TaskKind::kBackward ? 1.0 : 0.5; };
  auto zbv = simulate(device_task_orders(ScheduleKind::kZbv, m, p, 2), m, 2 * p, half);
  CHECK(zbv.busy_ms[0] == 36.0);
  CHECK(zbv.step_ms - 36.0 < 45.0 - 36.0);
}

}  // namespace
}  // namespace shardplan::pipeline
