// `sweep --plot`: an SVG picture of a sweep, max-rank perf and max HBM against the
// first swept field, one line per combination of the other fields' values.
// Written by hand (a few elements): no plotting dependency.
#pragma once

#include <string>
#include <vector>

#include "sweep/sweep_grid.h"
#include "sweep/sweep_rows.h"

namespace shardplan {

// The SVG document for the rows of `grid` (any subset; typically all of them).
// Every feasible row is one <circle> in each of the two panels (class "perf" and
// "hbm") and one vertex of its series' <polyline>; infeasible rows are listed
// as crosses on the perf panel's axis (class "infeasible"). Deterministic text.
std::string render_sweep_svg(const SweepGrid& grid, const std::vector<SweepRowRecord>& rows);

}  // namespace shardplan
