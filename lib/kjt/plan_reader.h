// Reading the plan-derived mode's inputs: a plan file written by `shardplan plan`
// (schemas/plan.schema.json) and the model file it was planned for.
#pragma once

#include <string>

#include "config/config.h"
#include "kjt/plan_traffic.h"

namespace shardplan::kjt {

// Reads `plan_path` (topology and plan sections) and `model_path` (tables, features,
// pooling factors, batch size). Throws InputError listing every problem, e.g. a
// plan table the model does not have, or a model table the plan does not shard.
PlanTrafficInput read_plan_traffic_input(const std::string& plan_path, const std::string& model_path,
                                         Protocol protocol);
// The same with the model already loaded (e.g. the model section of a one-file
// config); `model_source` names where it came from in messages.
// With `topology` (a one-file config's), the plan must be for its world size (and
// its local world size, where the config gives one).
PlanTrafficInput read_plan_traffic_input(const std::string& plan_path, const ModelConfig& model,
                                         const std::string& model_source, Protocol protocol,
                                         const TopologyConfig* topology = nullptr);

}  // namespace shardplan::kjt
