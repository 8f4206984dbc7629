#include "planner/advice/constraint_exclusions.h"

#include <algorithm>
#include <set>

#include "planner/enumerator.h"
#include "planner/perf_estimator.h"
#include "planner/storage_estimator.h"

namespace shardplan {

namespace {

template <typename T>
bool listed(const std::optional<std::vector<T>>& list, T value) {
  return !list || list->empty() || std::find(list->begin(), list->end(), value) != list->end();
}

std::string table_of(const std::string& fqn) {
  const auto dot = fqn.rfind('.');
  return dot == std::string::npos ? fqn : fqn.substr(dot + 1);
}

}  // namespace

std::vector<std::string> excluding_constraint_keys(const ParameterConstraintsConfig& constraints,
                                                   ShardingType sharding_type, ComputeKernel kernel) {
  std::vector<std::string> keys;
  if (!listed(constraints.sharding_types, sharding_type)) keys.push_back("sharding_types");
  if (!listed(constraints.compute_kernels, kernel)) keys.push_back("compute_kernels");
  return keys;
}

std::vector<ExcludedOption> options_excluded_by_constraints(const PlanningInput& input, const Topology& topology,
                                                            const std::vector<std::string>& fqns) {
  // Constraints are keyed by table name; relaxing one relaxes it for every module
  // holding a table of that name, so only the asked fqns are kept afterwards.
  PlanningInput relaxed = input;
  std::set<std::string> names;
  for (const auto& fqn : fqns) {
    auto it = relaxed.model.constraints.find(table_of(fqn));
    if (it == relaxed.model.constraints.end()) continue;
    if (!it->second.sharding_types && !it->second.compute_kernels) continue;
    names.insert(it->first);
    it->second.sharding_types.reset();
    it->second.compute_kernels.reset();
  }
  if (names.empty()) return {};
  EmbeddingPerfEstimator perf;
  EmbeddingStorageEstimator storage;
  std::vector<ShardingOption> options;
  try {
    options = enumerate_options(relaxed, topology, {&perf, &storage});
  } catch (const std::exception&) {
    return {};  // another table cannot be enumerated: nothing to compare with
  }
  const std::set<std::string> wanted(fqns.begin(), fqns.end());
  std::vector<ExcludedOption> out;
  for (auto& option : options) {
    if (!wanted.count(option.fqn())) continue;
    auto it = input.model.constraints.find(option.name);
    if (it == input.model.constraints.end()) continue;
    auto keys = excluding_constraint_keys(it->second, option.sharding_type, option.compute_kernel);
    if (!keys.empty()) out.push_back({std::move(option), std::move(keys)});
  }
  return out;
}

}  // namespace shardplan
