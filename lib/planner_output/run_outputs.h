// The two texts `shardplan plan` prints: EmbeddingStats and the plan file.
#pragma once

#include <string>

#include "common/names.h"
#include "config/config.h"
#include "planner/run.h"

namespace shardplan {

// How `plan --stats` shows the run's statistics.
enum class StatsFormat { kNone, kSummary, kText, kJson };

// kText is torchrec's EmbeddingStats text; "text" stays accepted as its old name.
inline constexpr NameTable<StatsFormat, 5> kStatsFormatNames{{
    {StatsFormat::kSummary, "summary", "a few lines: tables by kind, max-rank perf, HBM/DDR peaks, proposals"},
    {StatsFormat::kText, "torchrec", "torchrec's EmbeddingStats tables, exactly as torchrec logs them"},
    {StatsFormat::kJson, "json", "the EmbeddingStats report as one JSON object"},
    {StatsFormat::kNone, "none", "no statistics"},
    {StatsFormat::kText, "text", "the old name of torchrec"},
}};

struct RunOutputs {
  // empty for kNone, or where torchrec logs none (torchrec_logs_stats); kSummary's
  // lines are always there.
  std::string stats;
  std::string plan;  // the plan file text; empty when no plan was found
};

// Renders the stats and the plan file of `run`. They do not depend on each other,
// so for models of kParallelMinTables (64) tables or more they are rendered side
// by side, the plan itself in parts (its head with the inputs' hash, chunks of its
// tables, its tail) joined in order: the same bytes at any thread count. `plan_destination` is where
// the plan will be written ("" = stdout), for the summary's last line.
RunOutputs render_run_outputs(const PlanRun& run, const PlanningInput& input, StatsFormat stats,
                              const Parallelism& parallelism = {}, const std::string& plan_destination = {});

}  // namespace shardplan
