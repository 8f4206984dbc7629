// Where and how torchrec's EmbeddingShardingPlanner.plan (planners.py) stops
// without a plan, beyond the "no plan found" of the proposal loop: the order of
// its stages (storage reservation before enumeration), the inputs on which it
// crashes instead of raising PlannerError, and the runs after which it logs no
// EmbeddingStats at all.
#pragma once

#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "planner/planner.h"
#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// torchrec reserves storage first (planners.py EmbeddingShardingPlanner.plan:
// `self._storage_reservation.reserve(...)` comes before `self._enumerator.enumerate`),
// so a reservation that fails is what it reports, whatever enumeration would
// have said. Runs the reservation of `input` on `topology`; the failure in the
// form EmbeddingShardingPlanner::plan gives it, or nullopt when it succeeds.
std::optional<PlanFailure> reservation_failure(const PlanningInput& input, const Topology& topology);

// True when `topology` has no whole host (world_size // local_world_size == 0)
// and `search_space` holds a grid_shard (multi-host) option: then torchrec's
// GreedyPerfPartitioner._multi_hosts_partition indexes `_host_level_devices[0]`
// of an empty list and plan() dies with IndexError as soon as a proposal
// reaches that option.
bool multi_host_crash_possible(const Topology& topology, const SearchSpace& space);

// Wraps a partitioner and notes the first proposal on which torchrec's greedy
// partitioner would crash (see multi_host_crash_possible); that proposal is
// reported as not partitionable, so the proposal loop continues exactly as if
// the crash were a PlannerError, and the caller turns a noted crash into the
// run's error. Every proposal torchrec would partition is partitioned here
// (the planner's set_partition_every_proposal), so a crash is noted iff torchrec's run crashes.
// Thread-safe like any Partitioner.
class MultiHostCrashGuard : public Partitioner {
 public:
  explicit MultiHostCrashGuard(Partitioner& inner) : inner_(inner) {}
  std::unique_ptr<PartitionWorkspace> make_workspace() const override { return inner_.make_workspace(); }
  PartitionOutcome partition(const SearchSpace& space, const Proposal& proposal, const Topology& storage_constraint,
                             PartitionWorkspace* workspace) const override;
  // Whether some proposal would have crashed torchrec.
  bool crashed() const;

 private:
  Partitioner& inner_;
  mutable std::mutex mutex_;
  mutable bool crashed_ = false;
};

// The failure shardplan reports where torchrec crashes on a grid_shard option with
// no whole host (stage FailureStage::kCrash): names the grid_shard tables and the host arithmetic.
PlanFailure multi_host_crash(const Topology& topology, const SearchSpace& space);

}  // namespace shardplan
