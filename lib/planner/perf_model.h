// torchrec's PerfModel stage: one number per placed proposal, lower is better.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// torchrec's NoopPerfModel: per rank, the sum of its shards' perf totals (in
// proposal then shard order); the rating is the largest of those sums.
class NoopPerfModel final : public PerfModel {
 public:
  // Reads the space's shard perf totals column (one flat array).
  double rate(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
              int world_size) const override;
  // From the partitioner's own per-rank sums: every rank's sum here and there adds
  // the same shards' perfs (finite, not negative) in other orders, so the two round
  // to within a relative (terms + 5) * 2^-53 or so of the exact sum each. Above
  // `cutoff` by eight times that, the rating is above it too.
  bool rated_above(const SearchSpace& space, const PartitionOutcome& outcome, double cutoff) const override;
  double load_above(const SearchSpace& space, std::size_t num_options, double cutoff) const override;
};

}  // namespace shardplan
