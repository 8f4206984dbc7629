// The command-line flags that override planner options and topology (their
// values are applied by config/planner_overrides.h).
#pragma once

#include <CLI/CLI.hpp>

#include "config/planner_overrides.h"

namespace shardplan::app {

// Declares --partitioner, --proposers, --storage-reservation, --reservation-percentage,
// --sort-by, --greedy-threshold, --time-budget, --batch-size, --world-size, --local-world-size, --hbm-cap, --ddr-cap.
void add_planner_overrides(CLI::App& sub, PlannerOverrides& overrides);

}  // namespace shardplan::app
