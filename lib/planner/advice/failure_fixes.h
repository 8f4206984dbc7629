// The numbers behind "what would fix it" when no plan exists: which constraint makes
// a table too narrow, which capacity is short and by how much, and the flag values
// (--hbm-cap, --ddr-cap, --world-size) that would give that capacity. Computed only
// after a failed plan; lib/planner_output/failure_text.h renders it.
#pragma once

#include <optional>
#include <vector>

#include "config/config.h"
#include "planner/planner.h"

namespace shardplan {

// Fills the fix fields of `failure` (a kPlan failure): per failing table its options,
// constraint keys, the options its constraints remove that would fit, the allowed
// option nearest to fitting with the capacity it lacks; and, when the smallest
// proposal exceeds all ranks together, the total shortfall. `topology` is before the
// reservation; `search_space` the enumerated options.
void describe_fixes(PlanFailure& failure, const PlanningInput& input, const Topology& topology,
                    const std::optional<ReservationResult>& reservation,
                    const std::vector<ShardingOption>& search_space);

}  // namespace shardplan
