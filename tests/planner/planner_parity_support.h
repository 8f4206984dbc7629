// Test-only bridges from a golden case to the planner's inputs: the topology
// from the golden's `topology`, the golden options as the search space, and an
// estimator that looks estimates up among those options (until the enumerator's
// populate_estimates is wired in).
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "config/config.h"
#include "planner/proposers/proposer.h"
#include "planner/types.h"
#include "support/golden.h"

namespace shardplan::testing {

// The golden's options in torchrec's order (seed 0), with module/table indices
// taken from the model.
inline std::vector<ShardingOption> search_space_from_golden(const GoldenCase& c, const nlohmann::json& golden,
                                                            const ModelConfig& model) {
  std::vector<ShardingOption> space;
  for (const auto& o : golden_options(c, golden)) {
    ShardingOption option = option_from_golden(o);
    for (std::size_t m = 0; m < model.modules.size(); ++m) {
      if (model.modules[m].path != option.path) continue;
      for (std::size_t t = 0; t < model.modules[m].tables.size(); ++t)
        if (model.modules[m].tables[t].name == option.name) {
          option.module_index = static_cast<int>(m);
          option.table_index = static_cast<int>(t);
        }
    }
    space.push_back(std::move(option));
  }
  return space;
}

// Re-estimates an option by copying the shards of the search-space option with the
// same (fqn, sharding type, kernel); leaves it unchanged when there is none.
inline OptionEstimator lookup_estimator(const std::vector<ShardingOption>& space) {
  return [&space](ShardingOption& option) {
    for (const auto& candidate : space) {
      if (candidate.fqn() == option.fqn() && candidate.sharding_type == option.sharding_type &&
          candidate.compute_kernel == option.compute_kernel && candidate.shards.size() == option.shards.size()) {
        ShardList estimated;
        for (std::size_t i = 0; i < option.shards.size(); ++i) {
          Shard shard = option.shards[i];
          shard.storage = candidate.shards[i].storage;
          shard.perf = candidate.shards[i].perf;
          estimated.push_back(shard);
        }
        option.shards = std::move(estimated);
        return;
      }
    }
  };
}

}  // namespace shardplan::testing
