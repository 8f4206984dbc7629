#include "pipeline/planner.h"

#include <algorithm>
#include <stdexcept>

#include "common/python_format.h"
#include "pipeline/partition.h"

namespace shardplan::pipeline {

namespace {

int virtual_stages_of(const PipelineInput& input) {
  return multi_stage_schedule(input.options.schedule) ? input.options.virtual_stages : 1;
}

// The number of (virtual) stages when the balance is not given.
int stage_count(const PipelineInput& input) {
  int devices = input.options.stages.value_or(input.device_count);
  return devices * virtual_stages_of(input);
}

// Each virtual stage's activation profile: its own tasks in its device's order.
std::vector<ActivationProfile> stage_profiles(ScheduleKind schedule, const std::vector<std::vector<Task>>& orders,
                                              int stages, const MicroBatches& micro) {
  std::vector<ActivationProfile> profiles;
  const int devices = static_cast<int>(orders.size());
  for (int s = 0; s < stages; ++s) {
    std::vector<Task> own;
    for (const auto& t : orders[device_of_stage(schedule, s, devices)])
      if (t.stage == s) own.push_back(t);
    profiles.emplace_back(own, micro);
  }
  return profiles;
}

struct BalanceOutcome {
  std::optional<std::vector<int>> balance;
  std::optional<PlanFailure> failure;
};

BalanceOutcome choose_balance(const PipelineInput& input, const MicroBatches& micro, const LayerRanges& ranges) {
  const auto& options = input.options;
  if (options.balance) return {options.balance, std::nullopt};
  const int layers = static_cast<int>(input.layers.size());
  const int stages = stage_count(input);
  // DeepSpeed's "uniform" is a fixed rule: it looks at neither costs nor memory.
  if (options.balance_by == BalanceBy::kUniform) return {uniform_balance(layers, stages), std::nullopt};
  std::vector<double> costs = layer_costs(input);
  if (options.balance_algorithm == BalanceAlgorithm::kBlockpartition) {
    BlockpartitionResult result = blockpartition(costs, stages);
    if (!result.converged) return {std::nullopt, PlanFailure{"blockpartition did not converge"}};
    int sum = 0;
    bool empty_block = false;
    for (int length : result.balance) {
      sum += length;
      empty_block = empty_block || length <= 0;
    }
    if (empty_block || sum != layers)
      return {std::nullopt,
              PlanFailure{"blockpartition produced an invalid balance " + python_int_list(result.balance)}};
    return {result.balance, std::nullopt};
  }

  BalanceProblem problem;
  problem.costs = std::move(costs);
  problem.stages = stages;
  const bool check_memory = options.memory_aware && input.memory_bytes.has_value();
  const int v = virtual_stages_of(input);
  const int devices = stages / v;
  auto orders = device_task_orders(options.schedule, static_cast<int>(micro.sizes.size()), devices, v);
  auto profiles = stage_profiles(options.schedule, orders, stages, micro);
  if (check_memory) {
    // Interleaved: a device holds v stages, so each must fit in an equal share of
    // it (sufficient, not necessary: see docs/pipeline-schedules.md).
    const std::int64_t budget = *input.memory_bytes / v;
    problem.fits = [&, budget](int stage, int begin, int end) {
      std::int64_t act = profiles[stage].peak(ranges.input_bytes(begin, end), ranges.activation_bytes(begin, end));
      StageMemory memory =
          stage_memory(ranges.param_bytes(begin, end), options.param_scale, ranges.deferred_bn_bytes(begin, end), act);
      return memory.peak <= budget;
    };
    problem.fits_depends_on_stage = options.schedule != ScheduleKind::kGpipe;
  }
  auto balance = optimal_balance(problem);
  if (!balance) {
    // Only memory can make a partition infeasible (the reader ensured N >= stages).
    std::string message = "no partition of " + std::to_string(layers) + " layers into " + std::to_string(stages) +
                          " stages fits in " + std::to_string(input.memory_bytes.value_or(0)) + " bytes per device";
    return {std::nullopt, PlanFailure{message}};
  }
  return {balance, std::nullopt};
}

double task_ms(const Task& t, const std::vector<StagePlan>& stages, const MicroBatches& micro) {
  const double b = micro.sizes[t.micro_batch];
  const StagePlan& s = stages[t.stage];
  if (t.kind == TaskKind::kForward) return s.fwd_ms_per_sample * b;
  if (t.kind == TaskKind::kBackwardWeight) return s.bwd_weight_ms_per_sample * b;
  // A checkpointed micro-batch recomputes its forward before the backward (or its I).
  double ms = (t.kind == TaskKind::kBackward ? s.bwd_ms_per_sample : s.bwd_input_ms_per_sample) * b;
  if (micro.checkpointed[t.micro_batch]) ms += s.fwd_ms_per_sample * b;
  return ms;
}

void time_gpipe(PipelinePlan& plan) {
  const int m = static_cast<int>(plan.micro.sizes.size());
  const int n = static_cast<int>(plan.stages.size());
  plan.gpipe = gpipe_clocks(m, n);
  std::vector<double> busy(n, 0.0);
  auto clock_lengths = [&](const std::vector<std::vector<Task>>& clocks, std::vector<double>& out) {
    double total = 0;
    for (const auto& clock : clocks) {
      double longest = 0;
      for (const auto& t : clock) {
        double ms = task_ms(t, plan.stages, plan.micro);
        busy[t.stage] += ms;
        longest = std::max(longest, ms);
      }
      out.push_back(longest);
      total += longest;
    }
    return total;
  };
  const double forward = clock_lengths(plan.gpipe.forward, plan.forward_clock_ms);
  const double backward = clock_lengths(plan.gpipe.backward, plan.backward_clock_ms);
  plan.step_time_ms = forward + backward;
  double busy_total = 0;
  for (double b : busy) busy_total += b;
  if (n > 0 && plan.step_time_ms > 0) plan.bubble_fraction = 1 - busy_total / (n * plan.step_time_ms);
}

void time_with_orders(PipelinePlan& plan) {
  const int m = static_cast<int>(plan.micro.sizes.size());
  auto orders = device_task_orders(plan.schedule, m, plan.devices, plan.virtual_stages);
  plan.timeline = simulate(orders, m, static_cast<int>(plan.stages.size()),
                           [&](const Task& t) { return task_ms(t, plan.stages, plan.micro); });
  plan.step_time_ms = plan.timeline.step_ms;
  double busy_total = 0;
  for (double b : plan.timeline.busy_ms) busy_total += b;
  if (plan.devices > 0 && plan.step_time_ms > 0)
    plan.bubble_fraction = 1 - busy_total / (plan.devices * plan.step_time_ms);
}

void evaluate_memory(PipelinePlan& plan, const PipelineInput& input, const LayerRanges& ranges) {
  const int m = static_cast<int>(plan.micro.sizes.size());
  const int stages = static_cast<int>(plan.stages.size());
  auto orders = device_task_orders(plan.schedule, m, plan.devices, plan.virtual_stages);
  std::vector<std::int64_t> in(stages), act(stages);
  for (const auto& s : plan.stages) {
    in[s.stage] = ranges.input_bytes(s.begin, s.end);
    act[s.stage] = ranges.activation_bytes(s.begin, s.end);
  }
  auto fits = [&](std::int64_t peak) { return !input.memory_bytes || peak <= *input.memory_bytes; };
  auto profiles = stage_profiles(plan.schedule, orders, stages, plan.micro);
  for (auto& s : plan.stages) {
    s.memory = stage_memory(s.param_bytes, input.options.param_scale, ranges.deferred_bn_bytes(s.begin, s.end),
                            profiles[s.stage].peak(in[s.stage], act[s.stage]));
    s.fits = fits(s.memory.peak);
  }
  if (!multi_stage_schedule(plan.schedule)) return;
  for (int d = 0; d < plan.devices; ++d) {
    DevicePlan device;
    device.device = d;
    std::int64_t params = 0, bn = 0;
    for (int s = 0; s < stages; ++s) {
      if (plan.stages[s].device != d) continue;
      device.stages.push_back(s);
      params += plan.stages[s].param_bytes;
      bn += plan.stages[s].memory.deferred_bn_buffers;
    }
    device.memory =
        stage_memory(params, input.options.param_scale, bn, activation_peak(orders[d], plan.micro, in, act));
    device.fits = fits(device.memory.peak);
    for (int s : device.stages) plan.stages[s].fits = device.fits;
    plan.device_plans.push_back(device);
  }
}

void list_transfers(PipelinePlan& plan, const PipelineInput& input, const LayerRanges& ranges) {
  const std::int64_t batch = input.batch_size;
  const int stages = static_cast<int>(plan.stages.size());
  for (int j = 0; j + 1 < stages; ++j) {
    std::int64_t bytes = ranges.output_bytes(plan.stages[j].end) * batch;
    plan.transfers.push_back({j, j + 1, false, "", bytes, bytes});
  }
  std::vector<int> stage_of(input.layers.size());
  for (const auto& s : plan.stages)
    for (int l = s.begin; l < s.end; ++l) stage_of[l] = s.stage;
  // A skip goes straight from its stash stage to its pop stage, not through the stages between.
  for (const auto& skip : input.skips) {
    int from = stage_of[skip.stash_layer], to = stage_of[skip.pop_layer];
    if (from == to) continue;
    std::int64_t bytes = skip.bytes_per_sample * batch;
    plan.transfers.push_back({from, to, true, skip.name, bytes, bytes});
  }
}

}  // namespace

PlanResult plan_pipeline(const PipelineInput& input) {
  PlanResult result;
  PipelinePlan plan;
  plan.schedule = input.options.schedule;
  plan.virtual_stages = virtual_stages_of(input);
  plan.memory_bytes = input.memory_bytes;
  const LayerRanges ranges(input);
  const bool empty_model = input.layers.empty();
  // An empty Sequential is returned untouched by Pipe: no micro-batches at all.
  if (!empty_model) plan.micro = split_micro_batches(input.batch_size, input.options);

  if (auto refusal = schedule_refusal(plan.schedule, static_cast<int>(plan.micro.sizes.size()),
                                      stage_count(input) / plan.virtual_stages, plan.virtual_stages);
      refusal && !input.options.balance) {
    result.failure = PlanFailure{*refusal};
    return result;
  }
  if (input.options.balance)
    if (auto refusal = schedule_refusal(plan.schedule, static_cast<int>(plan.micro.sizes.size()),
                                        static_cast<int>(input.options.balance->size()) / plan.virtual_stages,
                                        plan.virtual_stages)) {
      result.failure = PlanFailure{*refusal};
      return result;
    }
  result.phases.restart();
  BalanceOutcome outcome = choose_balance(input, plan.micro, ranges);
  result.phases.mark("balance the stages");
  if (outcome.failure) {
    result.failure = outcome.failure;
    return result;
  }
  plan.balance = *outcome.balance;
  const int stages = static_cast<int>(plan.balance.size());
  plan.devices = stages / plan.virtual_stages;
  int begin = 0;
  for (int j = 0; j < stages; ++j) {
    StagePlan s;
    s.stage = j;
    s.device = device_of_stage(plan.schedule, j, plan.devices);
    s.begin = begin;
    s.end = begin + plan.balance[j];
    for (int l = s.begin; l < s.end; ++l) {
      s.fwd_ms_per_sample += input.layers[l].fwd_ms_per_sample;
      s.bwd_ms_per_sample += input.layers[l].bwd_ms_per_sample;
      auto [input_ms, weight_ms] = split_backward_ms(input.layers[l]);
      s.bwd_input_ms_per_sample += input_ms;
      s.bwd_weight_ms_per_sample += weight_ms;
    }
    s.param_bytes = ranges.param_bytes(s.begin, s.end);
    plan.stages.push_back(s);
    begin = s.end;
  }

  if (plan.schedule == ScheduleKind::kGpipe) {
    time_gpipe(plan);
  } else {
    try {
      time_with_orders(plan);
    } catch (const std::logic_error& e) {
      result.failure = PlanFailure{e.what()};
      return result;
    }
  }
  evaluate_memory(plan, input, ranges);

  const double m = static_cast<double>(plan.micro.sizes.size());
  const double p = plan.devices;
  if (plan.devices > 0) {
    plan.gpipe_bubble_formula = (p - 1) / (m + p - 1);
    // Narayanan et al. 2021: the bubble shrinks by v, (p-1)/(v m) of the ideal time.
    plan.schedule_bubble_formula = (p - 1) / (plan.virtual_stages * m + p - 1);
  }
  for (const auto& layer : input.layers)
    plan.sequential_ms += (layer.fwd_ms_per_sample + layer.bwd_ms_per_sample) * input.batch_size;
  list_transfers(plan, input, ranges);
  plan.warnings = plan.micro.warnings;
  result.phases.mark("schedule, time, memory and transfers");
  result.plan = std::move(plan);
  return result;
}

std::vector<std::string> fit_errors(const PipelinePlan& plan) {
  std::vector<std::string> errors;
  if (!plan.memory_bytes) return errors;
  const std::string limit = std::to_string(*plan.memory_bytes);
  if (multi_stage_schedule(plan.schedule)) {
    for (const auto& d : plan.device_plans)
      if (!d.fits)
        errors.push_back("device " + std::to_string(d.device) + " needs " + std::to_string(d.memory.peak) +
                         " bytes but devices have " + limit);
    return errors;
  }
  for (const auto& s : plan.stages)
    if (!s.fits)
      errors.push_back("stage " + std::to_string(s.stage) + " needs " + std::to_string(s.memory.peak) +
                       " bytes but devices have " + limit);
  return errors;
}

}  // namespace shardplan::pipeline
