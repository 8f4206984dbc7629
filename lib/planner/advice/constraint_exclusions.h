// The sharding options a table's `sharding_types` / `compute_kernels` constraints
// remove: what the enumerator would offer without them. Computed only to explain a
// failure or a table's choice (`shardplan explain`), never while planning.
#pragma once

#include <string>
#include <vector>

#include "config/config.h"
#include "planner/types.h"

namespace shardplan {

// One option a constraint removed, estimated like an enumerated one, with the
// constraint keys (`sharding_types`, `compute_kernels`) that remove it.
struct ExcludedOption {
  ShardingOption option;
  std::vector<std::string> excluded_by;
};

// The constraint keys of `constraints` that exclude an option of `sharding_type`
// and `kernel` (empty: the constraints allow it).
std::vector<std::string> excluding_constraint_keys(const ParameterConstraintsConfig& constraints,
                                                   ShardingType sharding_type, ComputeKernel kernel);

// The options of the tables `fqns` (module path + "." + table name) that their
// sharding_types / compute_kernels constraints remove, in enumeration order. Empty
// for tables without such constraints, or when the model cannot be enumerated
// without them.
std::vector<ExcludedOption> options_excluded_by_constraints(const PlanningInput& input, const Topology& topology,
                                                            const std::vector<std::string>& fqns);

}  // namespace shardplan
