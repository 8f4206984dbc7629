// Rendering the plan-derived mode's result as JSON: every input dist with its
// feature layout and expected collectives, and per-rank byte totals split into
// local copy, intra-host and cross-host traffic.
#pragma once

#include <string>

#include "kjt/plan_traffic.h"

namespace shardplan::kjt {

// The whole document, deterministic, ending in a newline.
std::string plan_traffic_json(const PlanTrafficInput& input, const PlanTrafficResult& result);

}  // namespace shardplan::kjt
