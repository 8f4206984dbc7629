// `sweep --plot` and `sweep merge --plot`: an SVG picture of a sweep, three panels
// against the first swept field (max-rank perf, max HBM per rank, throughput in
// samples/s), one line per combination of the other fields' values. Written by hand
// (a few elements): no plotting dependency.
#pragma once

#include <string>

#include "sweep/sweep_table.h"

namespace shardplan {

// The SVG document for `table` (any subset of a sweep's rows). In each panel (a
// <g class="panel perf|hbm|throughput">), every feasible row is one marker (class
// "point") and one vertex of its series' <polyline> (class "series"), and every
// infeasible row a red cross (class "infeasible") at the foot of the panel. Series
// differ in colour, marker shape and dash pattern, and are nudged a few pixels
// apart so that equal series stay visible. Axes have round ticks (1-2-5 steps);
// the legend sits below the panels with the full labels. Deterministic text.
std::string render_sweep_svg(const SweepTable& table);

}  // namespace shardplan
