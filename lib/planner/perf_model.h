// torchrec's PerfModel stage: one number per placed proposal, lower is better.
#pragma once

#include <cstddef>
#include <vector>

#include "planner/search_space.h"
#include "planner/types.h"

namespace shardplan {

// Rates a placed proposal; the planner keeps the proposal with the lowest rating.
class PerfModel {
 public:
  virtual ~PerfModel() = default;
  // The rating of `proposal` (ids into `space`) placed by `placement`.
  virtual double rate(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
                      int world_size) const = 0;
};

// torchrec's NoopPerfModel: per rank, the sum of its shards' perf totals (in
// proposal then shard order); the rating is the largest of those sums.
class NoopPerfModel final : public PerfModel {
 public:
  // Reads the space's shard perf totals column (one flat array).
  double rate(const SearchSpace& space, const Proposal& proposal, const Placement& placement,
              int world_size) const override;
};

}  // namespace shardplan
