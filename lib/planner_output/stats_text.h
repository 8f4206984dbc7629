// torchrec's EmbeddingStats text: the '#'-framed table the planner logs, character
// for character (widths, centring, Python number formatting).
#pragma once

#include <string>
#include <vector>

#include "planner/stats_report.h"

namespace shardplan {

// The framed table, one string per logged line (no trailing newlines).
std::vector<std::string> render_stats_lines(const StatsReport& report);

// The same lines joined with '\n'.
std::string render_stats_text(const StatsReport& report);

}  // namespace shardplan
