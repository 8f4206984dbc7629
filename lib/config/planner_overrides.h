// Overrides of planner options and topology given apart from the input files (the
// CLI's flags; a sweep point is one such set): they win over the files.
#pragma once

#include <optional>
#include <string>

#include "config/config.h"

namespace shardplan {

// Values as given (strings for names and sizes, parsed when applied); empty or
// unset means "keep the file's value".
struct PlannerOverrides {
  std::string partitioner;
  std::string proposers;  // comma-separated
  std::string storage_reservation;
  std::optional<double> reservation_percentage;
  std::string sort_by;
  std::optional<int> greedy_threshold;
  std::optional<double> time_budget;  // seconds, optimizing partitioner
  std::optional<std::int64_t> batch_size;
  std::optional<std::int64_t> world_size;
  std::optional<std::int64_t> local_world_size;
  std::string hbm_cap;
  std::string ddr_cap;
};

// Applies the overrides; throws InputError (with "did you mean") for unknown names
// and out-of-range values.
void apply_planner_overrides(const PlannerOverrides& overrides, PlanningInput& input);

}  // namespace shardplan
