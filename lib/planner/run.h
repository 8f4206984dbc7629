// The whole planning job as the CLI runs it: topology -> enumerate (with the
// storage and perf estimators) -> storage reservation -> proposers / partitioner
// -> best plan, plus the statistics report. The app only parses flags and renders.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "config/config.h"
#include "planner/bounds/lower_bound.h"
#include "planner/parallelism.h"
#include "planner/plan_stop.h"
#include "planner/planner.h"
#include "planner/progress.h"
#include "planner/search_space.h"
#include "planner/stats_report.h"
#include "planner/types.h"

namespace shardplan {

// Enumerates and estimates every sharding option of `input` on `topology`.
// Throws EnumerationError when constraints leave a table without options.
std::vector<ShardingOption> enumerate_and_estimate(const PlanningInput& input, const Topology& topology,
                                                   const Parallelism& parallelism = {});

// What `shardplan plan` computed. When enumeration failed, `enumeration_error`
// holds torchrec's RuntimeError text and `result` is empty.
struct PlanRun {
  Topology topology;         // before reservation
  SearchSpace search_space;  // enumerated and estimated options, then those proposers derived
  PlanResult result;
  std::optional<std::string> enumeration_error;
  // A lower bound on the max-rank perf of any plan of these options on the
  // reserved capacities (planner/bounds/lower_bound.h); set when a plan was found.
  std::optional<LowerBound> bound;
  double seconds = 0;  // wall time of planning (stats only, never the plan file)
  PhaseTimes phases;   // enumeration, then the planner's phases
  // --partitioner optimizing: --time-budget, not the deterministic work budget,
  // ended a search (the refinement or the exact search); the plan may depend on the machine.
  bool stopped_by_clock = false;

  bool ok() const { return !enumeration_error && result.ok(); }
  // A PlanStop asked to stop before the run ended (result.stopped): no plan, no
  // failure, no bound.
  bool stopped() const { return result.stopped; }
};

// Plans `input` on the threads of `parallelism` (none by default); the result
// depends on neither it nor the observers. `observer`, when given, sees every
// proposal evaluated (planner.h); `progress` hears how far planning got. `stop`,
// when given, is polled (planner/plan_stop.h): once it asks, the run returns with
// stopped() set and nothing else (every other result is as without it).
PlanRun run_plan(const PlanningInput& input, const Parallelism& parallelism = {}, ProposalObserver* observer = nullptr,
                 const ProgressObserver& progress = {}, const PlanStop* stop = nullptr);

// Whether torchrec logs EmbeddingStats for this run: it does after the proposal
// loop (with the best plan, or with the last failed proposal), but not when it
// returns early with ShardingPlan({}) because nothing is shardable, nor when
// reserve(), enumerate() or a partitioner raises before the loop ends.
bool torchrec_logs_stats(const PlanRun& run);

// The EmbeddingStats report of a run (also for failed runs, as torchrec logs it).
StatsReport stats_report_of(const PlanRun& run, const PlanningInput& input);

}  // namespace shardplan
