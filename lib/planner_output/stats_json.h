// The EmbeddingStats report as JSON: the same figures as the text table, unrounded
// (bytes, ms, MB), for tools that should not parse the framed text.
#pragma once

#include <nlohmann/json.hpp>

#include "planner/stats_report.h"

namespace shardplan {

// The report as an ordered JSON object (keys in the text table's section order).
nlohmann::ordered_json render_stats_json(const StatsReport& report);

}  // namespace shardplan
