// torchrec's MemoryBalancedPartitioner: binary-searches a per-device HBM cap with
// GreedyPerfPartitioner(sort_by perf) and keeps the placement with the lowest cap
// whose NoopPerfModel rating stays within `tolerance` of the uncapped plan.
#pragma once

#include <cstdint>
#include <memory>

#include "config/config.h"
#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/types.h"

namespace shardplan {

// Granularity of the HBM-cap search: it stops once the bounds are this close
// (torchrec's mb_to_bytes(10)).
inline constexpr std::int64_t kHbmSearchStepBytes = 10 * 1024 * 1024;

class MemoryBalancedPartitioner final : public Partitioner {
 public:
  // max_search_count: greedy runs after the first; tolerance: accepted relative
  // perf loss (0.02 = 2% worse than the uncapped plan).
  explicit MemoryBalancedPartitioner(std::int64_t max_search_count = 10, double tolerance = 0.02,
                                     bool balance_modules = false)
      : max_search_count_(max_search_count),
        tolerance_(tolerance),
        greedy_(SortBy::kPerf, balance_modules) {}  // torchrec searches by perf, whatever sort_by says

  // The greedy partitioner's workspace.
  std::unique_ptr<PartitionWorkspace> make_workspace() const override { return greedy_.make_workspace(); }

  using Partitioner::partition;
  // Fails exactly when the uncapped greedy placement fails (with its message).
  PartitionOutcome partition(const SearchSpace& space, const Proposal& proposal, const Topology& storage_constraint,
                             PartitionWorkspace* workspace) const override;

 private:
  std::int64_t max_search_count_;
  double tolerance_;
  GreedyPerfPartitioner greedy_;
};

}  // namespace shardplan
