// A request to stop a planning run early (`sweep --timeout`), polled by the planner
// rather than enforced by killing its thread: a stopped run returns normally, with
// PlanResult::stopped set and no plan, so nothing half-built escapes it. Passed in
// like Parallelism and ProgressObserver; a run without one never stops early.
#pragma once

#include <atomic>
#include <chrono>
#include <optional>

namespace shardplan {

class PlanStop {
 public:
  using Clock = std::chrono::steady_clock;

  // Stops only when request() is called.
  PlanStop() = default;
  // Also stops once `deadline` has passed.
  explicit PlanStop(Clock::time_point deadline) : deadline_(deadline) {}

  // Asks the run to stop at its next check; from any thread.
  void request() { requested_.store(true, std::memory_order_relaxed); }

  // Whether the run should stop now. The planner asks between proposals (the
  // proposal loop and the proposers walked ahead on another thread) and between
  // its stages (enumeration, proposing, refinement, the lower bound): a stop takes
  // effect at the next of those points, not inside one partition.
  bool requested() const {
    return requested_.load(std::memory_order_relaxed) || (deadline_ && Clock::now() >= *deadline_);
  }

 private:
  std::atomic<bool> requested_{false};
  std::optional<Clock::time_point> deadline_;
};

// Whether `stop` (may be null: never) asks to stop.
inline bool plan_stop_requested(const PlanStop* stop) { return stop && stop->requested(); }

}  // namespace shardplan
