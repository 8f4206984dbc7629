#include "planner/partitioners/partitioner_factory.h"

#include "planner/refiners/optimizing_refiner.h"

namespace shardplan {

std::unique_ptr<Partitioner> make_partitioner(const PartitionerOptions& options) {
  switch (options.type) {
    case PartitionerKind::kGreedy:
      return std::make_unique<GreedyPerfPartitioner>(options.sort_by, options.balance_modules);
    case PartitionerKind::kMemoryBalanced:
      // torchrec's MemoryBalancedPartitioner searches by perf, whatever sort_by says.
      return std::make_unique<MemoryBalancedPartitioner>(options.max_search_count, options.tolerance,
                                                         options.balance_modules);
    case PartitionerKind::kOptimizing:
      // The start of the search: greedy's placement of every proposal.
      return std::make_unique<GreedyPerfPartitioner>(options.sort_by, options.balance_modules);
  }
  return nullptr;  // unreachable: the switch covers every kind (-Wswitch)
}

std::unique_ptr<PlanRefiner> make_refiner(const PartitionerOptions& options, const Parallelism& parallelism) {
  switch (options.type) {
    case PartitionerKind::kGreedy:
    case PartitionerKind::kMemoryBalanced:
      return nullptr;
    case PartitionerKind::kOptimizing:
      return std::make_unique<OptimizingRefiner>(options.time_budget_seconds, parallelism);
  }
  return nullptr;  // unreachable: the switch covers every kind (-Wswitch)
}

}  // namespace shardplan
