// torchrec's EmbeddingStats: compute the report (stats_report.h), then render it
// as torchrec's framed text (stats_text.h) or as JSON (stats_json.h).
#pragma once

#include "planner/stats_report.h"
#include "planner_output/stats_json.h"
#include "planner_output/stats_text.h"
