// The partitioner for a PartitionerKind (names, descriptions and torchrec class
// names are in config/planner_names.h's kPartitionerNames, the one table).
#pragma once

#include <memory>

#include "config/config.h"
#include "planner/partitioners/greedy_perf_partitioner.h"
#include "planner/partitioners/memory_balanced_partitioner.h"
#include "planner/partitioners/optimizing/optimizing_partitioner.h"
#include "planner/types.h"

namespace shardplan {

// The partitioner of kind options.type, configured by the rest of `options`.
std::unique_ptr<Partitioner> make_partitioner(const PartitionerOptions& options);

}  // namespace shardplan
