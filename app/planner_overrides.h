// Command-line overrides of planner options and topology (flags win over files).
#pragma once

#include <optional>
#include <string>

#include <CLI/CLI.hpp>

#include "config/config.h"

namespace shardplan::app {

struct PlannerOverrides {
  std::string partitioner;
  std::string proposers;  // comma-separated
  std::string storage_reservation;
  std::optional<double> reservation_percentage;
  std::string sort_by;
  std::optional<int> greedy_threshold;
  std::optional<std::int64_t> batch_size;
  std::optional<std::int64_t> world_size;
  std::optional<std::int64_t> local_world_size;
  std::string hbm_cap;
  std::string ddr_cap;
};

// Declares --partitioner, --proposers, --storage-reservation, --reservation-percentage,
// --sort-by, --greedy-threshold, --batch-size, --world-size, --local-world-size, --hbm-cap, --ddr-cap.
void add_planner_overrides(CLI::App& sub, PlannerOverrides& overrides);

// Applies the overrides; throws InputError (with "did you mean") for unknown names
// and out-of-range values.
void apply_planner_overrides(const PlannerOverrides& overrides, PlanningInput& input);

}  // namespace shardplan::app
