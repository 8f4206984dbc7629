// Proofs that no choice of options fits the ranks' total memory (issue 30): used
// when `--partitioner optimizing` searched every option and placed none.
#pragma once

#include <optional>
#include <vector>

#include "planner/planner.h"
#include "planner/types.h"

namespace shardplan {

// For a few weightings of HBM against DDR bytes (HBM alone, DDR alone, both at
// one, and ratios around the capacities' own), whether the least weighted storage
// of each table's options, summed, exceeds the weighted storage of all ranks of
// `reserved`: then no plan exists (each table needs one option, storage only adds
// up). The first weighting (in that order) that proves it, or nullopt when none
// does. Tables are grouped by fqn.
std::optional<CapacityProof> capacity_proof(const std::vector<ShardingOption>& options, const Topology& reserved);

}  // namespace shardplan
