// How a planning run tells its caller how far it got, so that the caller can draw
// a progress line: the planner never prints. Passed in like Parallelism.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>

namespace shardplan {

// The stage a planning run is in: enumerating (and estimating) the options,
// reserving storage and loading the proposers, running the proposers.
enum class PlanStage { kEnumerating, kPreparing, kProposing };

// A snapshot of a planning run.
struct PlanProgress {
  PlanStage stage = PlanStage::kEnumerating;
  std::size_t proposer = 0;         // kProposing: the running proposer's index in the planner options
  std::size_t num_proposers = 0;    // kProposing: how many proposers run
  int proposals_tried = 0;          // proposals partitioned so far, all proposers together
  std::optional<double> best_perf;  // the best plan's perf rating so far, once one was placed
};

// Called on the planning thread when a stage or proposer starts and after every
// proposal tried; it must be cheap (an observer that draws throttles itself).
using ProgressObserver = std::function<void(const PlanProgress&)>;

}  // namespace shardplan
