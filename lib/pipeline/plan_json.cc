#include "pipeline/plan_json.h"

#include <nlohmann/json.hpp>

namespace shardplan::pipeline {

namespace {

using Json = nlohmann::ordered_json;

Json memory_json(const StageMemory& m) {
  return Json{{"parameters", m.parameters},
              {"deferred_bn_buffers", m.deferred_bn_buffers},
              {"activations", m.activations},
              {"peak", m.peak}};
}

Json task_pair(const Task& t) { return Json::array({t.micro_batch, t.stage}); }

Json clocks_json(const std::vector<std::vector<Task>>& clocks) {
  Json out = Json::array();
  for (const auto& clock : clocks) {
    Json tasks = Json::array();
    for (const auto& t : clock) tasks.push_back(task_pair(t));
    out.push_back(tasks);
  }
  return out;
}

// 1F1B schedules: clock by clock ("F"/"B", micro-batch, stage) and each device's timeline.
Json ordered_schedule_json(const PipelinePlan& plan) {
  Json clocks = Json::array();
  for (const auto& clock : plan.timeline.clocks) {
    Json tasks = Json::array();
    for (const auto& t : clock) tasks.push_back(Json::array({name_of(kTaskKindNames, t.kind), t.micro_batch, t.stage}));
    clocks.push_back(tasks);
  }
  Json devices = Json::array();
  for (const auto& device : plan.timeline.devices) {
    Json tasks = Json::array();
    for (const auto& timed : device) {
      Json task{{"task", name_of(kTaskKindNames, timed.task.kind)},
                {"micro_batch", timed.task.micro_batch},
                {"stage", timed.task.stage},
                {"start_ms", timed.start_ms},
                {"end_ms", timed.end_ms}};
      // DualPipeV's overlapped forward+backward: this task is the second half of one action.
      if (timed.task.overlapped) task["overlapped"] = true;
      tasks.push_back(std::move(task));
    }
    devices.push_back(tasks);
  }
  return Json{{"name", name_of(kScheduleKindNames, plan.schedule)},
              {"virtual_stages", plan.virtual_stages},
              {"clocks", clocks},
              {"devices", devices}};
}

}  // namespace

std::string render_plan_json(const PipelinePlan& plan, const PipelineInput& input) {
  Json doc;
  doc["balance"] = plan.balance;
  doc["micro_batches"] = plan.micro.sizes;
  Json checkpointed = Json::array();
  for (bool c : plan.micro.checkpointed) checkpointed.push_back(c);
  doc["checkpointed"] = checkpointed;
  Json stages = Json::array();
  for (const auto& s : plan.stages) {
    Json layers = Json::array();
    for (int l = s.begin; l < s.end; ++l) layers.push_back(input.layers[l].name);
    stages.push_back(Json{{"stage", s.stage},
                          {"device", s.device},
                          {"layers", layers},
                          {"fwd_ms_per_sample", s.fwd_ms_per_sample},
                          {"bwd_ms_per_sample", s.bwd_ms_per_sample},
                          {"param_bytes", s.param_bytes},
                          {"memory", memory_json(s.memory)},
                          {"fits", s.fits}});
  }
  // Schedules that split the backward also show the I and W times they used.
  if (uses_split_backward(plan.schedule))
    for (std::size_t j = 0; j < plan.stages.size(); ++j) {
      stages[j]["bwd_input_ms_per_sample"] = plan.stages[j].bwd_input_ms_per_sample;
      stages[j]["bwd_weight_ms_per_sample"] = plan.stages[j].bwd_weight_ms_per_sample;
    }
  doc["stages"] = stages;
  if (plan.schedule == ScheduleKind::kGpipe) {
    doc["schedule"] =
        Json{{"forward", clocks_json(plan.gpipe.forward)}, {"backward", clocks_json(plan.gpipe.backward)}};
    doc["clock_ms"] = Json{{"forward", plan.forward_clock_ms}, {"backward", plan.backward_clock_ms}};
  } else {
    doc["schedule"] = ordered_schedule_json(plan);
  }
  if (multi_stage_schedule(plan.schedule)) {
    Json devices = Json::array();
    for (const auto& d : plan.device_plans)
      devices.push_back(
          Json{{"device", d.device}, {"stages", d.stages}, {"memory", memory_json(d.memory)}, {"fits", d.fits}});
    doc["devices"] = devices;
  }
  doc["step_time_ms"] = plan.step_time_ms;
  doc["bubble_fraction"] = plan.bubble_fraction;
  doc["gpipe_bubble_formula"] = plan.gpipe_bubble_formula;
  if (plan.schedule != ScheduleKind::kGpipe) doc["schedule_bubble_formula"] = plan.schedule_bubble_formula;
  doc["sequential_ms"] = plan.sequential_ms;
  Json transfers = Json::array();
  for (const auto& t : plan.transfers) {
    Json entry{{"from", t.from}, {"to", t.to}, {"kind", t.skip ? "skip" : "boundary"}};
    if (t.skip) entry["name"] = t.name;
    entry["activation_bytes"] = t.activation_bytes;
    entry["gradient_bytes"] = t.gradient_bytes;
    transfers.push_back(entry);
  }
  doc["transfers"] = transfers;
  doc["warnings"] = plan.warnings;
  return doc.dump() + "\n";
}

}  // namespace shardplan::pipeline
