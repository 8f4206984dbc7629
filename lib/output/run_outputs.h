// The two texts `shardplan plan` prints: EmbeddingStats and the plan file.
#pragma once

#include <string>

#include "common/names.h"
#include "config/config.h"
#include "planner/run.h"

namespace shardplan {

// How `plan --stats` shows EmbeddingStats.
enum class StatsFormat { kNone, kText, kJson };

inline constexpr NameTable<StatsFormat, 3> kStatsFormatNames{{
    {StatsFormat::kText, "text", "torchrec's EmbeddingStats tables"},
    {StatsFormat::kJson, "json", "the same report as one JSON object"},
    {StatsFormat::kNone, "none", "no statistics"},
}};

struct RunOutputs {
  std::string stats;  // empty for kNone, or where torchrec logs none (torchrec_logs_stats)
  std::string plan;   // the plan file text; empty when no plan was found
};

// Renders the stats and the plan file of `run`. They do not depend on each other,
// so for models of kParallelMinTables (64) tables or more they are rendered side
// by side (about a millisecond each for 100 tables).
RunOutputs render_run_outputs(const PlanRun& run, const PlanningInput& input, StatsFormat stats,
                              const Parallelism& parallelism = {});

}  // namespace shardplan
