// The partitioner for a PartitionerKind (names, descriptions and torchrec class
// names are in config/planner_names.h's kPartitionerNames, the one table).
#pragma once

#include <memory>

#include "config/config.h"
#include "planner/parallelism.h"
#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/partitioners/memory_balanced_partitioner.h"
#include "planner/types.h"

namespace shardplan {

// The partitioner of kind options.type, configured by the rest of `options`.
// "optimizing" places as "greedy" does; its search is the refinement below.
std::unique_ptr<Partitioner> make_partitioner(const PartitionerOptions& options);

// The refinement composed after the partitioner of kind options.type: the
// optimizing search for "optimizing" (on the threads of `parallelism`), none (null)
// for the others.
std::unique_ptr<PlanRefiner> make_refiner(const PartitionerOptions& options, const Parallelism& parallelism = {});

}  // namespace shardplan
