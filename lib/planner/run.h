// The whole planning job as the CLI runs it: topology -> enumerate (with the
// storage and perf estimators) -> storage reservation -> proposers / partitioner
// -> best plan, plus the statistics report. The app only parses flags and renders.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "planner/planner.h"
#include "planner/stats_report.h"
#include "planner/types.h"

namespace shardplan {

// Enumerates and estimates every sharding option of `input` on `topology`.
// Throws EnumerationError when constraints leave a table without options.
std::vector<ShardingOption> enumerate_and_estimate(const PlanningInput& input,
                                                   const Topology& topology);

// What `shardplan plan` computed. When enumeration failed, `enumeration_error`
// holds torchrec's RuntimeError text and `result` is empty.
struct PlanRun {
  Topology topology;                        // before reservation
  std::vector<ShardingOption> search_space;  // enumerated and estimated options
  PlanResult result;
  std::optional<std::string> enumeration_error;
  double seconds = 0;  // wall time of planning (stats only, never the plan file)
  PhaseTimes phases;   // enumeration, then the planner's phases

  bool ok() const { return !enumeration_error && result.ok(); }
};

PlanRun run_plan(const PlanningInput& input);

// The EmbeddingStats report of a run (also for failed runs, as torchrec logs it).
StatsReport stats_report_of(const PlanRun& run, const PlanningInput& input);

// A user-facing explanation of a failed run: torchrec's error kind, which tables
// did not fit, what their smallest option needs, the largest free rank.
std::string explain_failure(const PlanRun& run);

}  // namespace shardplan
