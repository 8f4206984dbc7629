// The optimizing partitioner (`--partitioner optimizing`). Inside the planner's
// proposal loop it places every proposal exactly as torchrec's GreedyPerfPartitioner
// does, so the proposals are rated and chosen as torchrec chooses them; the
// planner run then hands the best plan to optimize_plan (optimize_plan.h), which
// improves its placement and its options together, starting from greedy's.
//
// Why the option search is not a proposer: a proposer only sees one rating per
// proposal and every proposal costs a whole partition, while changing one
// table's option next to the bottleneck is an incremental step of the placement
// search (a few ranks' loads change). Searching options inside the placement
// search makes each step cost a few evaluations instead of a full partition.
#pragma once

#include <memory>

#include "config/config.h"
#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/partitioners/optimizing/optimize_plan.h"
#include "planner/types.h"

namespace shardplan {

class OptimizingPartitioner final : public Partitioner {
 public:
  // sort_by / balance_modules: those of the greedy start; the search's budget
  // comes from options.time_budget_seconds.
  explicit OptimizingPartitioner(const PartitionerOptions& options)
      : greedy_(options.sort_by, options.balance_modules) {}

  std::unique_ptr<PartitionWorkspace> make_workspace() const override { return greedy_.make_workspace(); }

  using Partitioner::partition;
  // Greedy's placement of `proposal` (the start of the search).
  PartitionOutcome partition(const SearchSpace& space, const Proposal& proposal, const Topology& storage_constraint,
                             PartitionWorkspace* workspace) const override {
    return greedy_.partition(space, proposal, storage_constraint, workspace);
  }

 private:
  GreedyPerfPartitioner greedy_;
};

}  // namespace shardplan
