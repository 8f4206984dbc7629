// A plan file checked against the model it is meant for (`shardplan validate --plan`,
// and shardplan.validate_plan in Python, which words its findings the same way): every
// table of the model planned and nothing else, each table's shards inside its shape
// and covering it exactly once, ranks inside the world size.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "config/plan_file.h"

namespace shardplan {

// What differs, one line each ("" none): "<fqn>: in the model, not in the plan", ...
// `world_size`, when given (the topology's), must also be the plan's.
std::vector<std::string> plan_model_differences(const PlanFile& plan, const ModelConfig& model,
                                                std::optional<std::int64_t> world_size);

}  // namespace shardplan
