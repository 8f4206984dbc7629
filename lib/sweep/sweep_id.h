// A sweep's id: a hash of what decides its rows (the tool version, the input
// files' bytes, the grid, the output format, whether plan files are written and
// the per-point timeout),
// carried by every row so that resume and merge refuse rows of another sweep.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "sweep/sweep_grid.h"
#include "sweep/sweep_rows.h"

namespace shardplan {

// 16 hex digits (FNV-1a, 64 bits: a check against mix-ups, not against forgery).
// `input_files` are the contents of the model/topology/planner or case files, in
// flag order; their paths do not count, so slices may read copies elsewhere.
// A sweep without a timeout has the id it had before --timeout existed.
std::string sweep_id(const std::vector<std::string>& input_files, const SweepGrid& grid, SweepFormat format,
                     bool with_plan_files, std::optional<double> timeout_seconds = std::nullopt);

}  // namespace shardplan
