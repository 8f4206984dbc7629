// `shardplan diff OLD NEW --report diff.html`: two plans in one self-contained HTML
// page (no script, no network): the headline figures of both with the change, the
// tables that moved (sharding type, kernel or ranks changed; added; removed), and
// each plan's header and per-rank view side by side.
#pragma once

#include <string>

#include "planner_output/plan_report.h"

namespace shardplan {

// The page; `old_name` and `new_name` label the two sides (e.g. the file names).
std::string render_diff_report_html(const PlanPicture& old_plan, const PlanPicture& new_plan,
                                    const std::string& old_name, const std::string& new_name);

}  // namespace shardplan
