// `shardplan show plan.json`: a plan file as text a person reads in a terminal —
// one row per table saying what went where (like torchrec's ShardingPlan.__str__,
// but within 100 columns), then one row of bars per rank (perf against the slowest
// rank, HBM and DDR used against usable: planner/memory_basis.h, the basis of every
// output), then the fullest rank of each memory kind as the plan summary prints it.
#pragma once

#include <string>

#include "config/plan_file.h"

namespace shardplan {

// Width of each bar in characters.
inline constexpr int kShowBarWidth = 16;

// The whole text; every line at most 100 columns (a table name longer than its
// column gets a line of its own above its row).
std::string render_plan_show(const PlanFile& plan);

// A bar of `width` characters: '#' for the share value/scale (rounded to the nearest
// character), '.' for the rest; a value past the scale fills the bar and ends in '!'.
std::string text_bar(double value, double scale, int width = kShowBarWidth);

}  // namespace shardplan
