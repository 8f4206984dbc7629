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
};

}  // namespace shardplan
