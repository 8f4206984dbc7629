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

inline Topology topology_from_golden(const nlohmann::json& t) {
  Topology topo;
  topo.world_size = t.at("world_size").get<int>();
  topo.local_world_size = t.at("local_world_size").get<int>();
  topo.compute_device = *parse_name(kComputeDeviceNames, t.at("compute_device").get<std::string>());
  topo.hbm_mem_bw = t.at("hbm_mem_bw").get<double>();
  topo.ddr_mem_bw = t.at("ddr_mem_bw").get<double>();
  topo.hbm_to_ddr_mem_bw = t.at("hbm_to_ddr_mem_bw").get<double>();
  topo.intra_host_bw = t.at("intra_host_bw").get<double>();
  topo.inter_host_bw = t.at("inter_host_bw").get<double>();
  topo.bwd_compute_multiplier = t.at("bwd_compute_multiplier").get<double>();
  topo.weighted_feature_bwd_compute_multiplier = t.at("weighted_feature_bwd_compute_multiplier").get<double>();
  topo.uneven_sharding_perf_multiplier = t.at("uneven_sharding_perf_multiplier").get<double>();
  int rank = 0;
  for (const auto& d : t.at("devices"))
    topo.devices.push_back(DeviceHardware{rank++, Storage{d.at("hbm").get<std::int64_t>(), d.at("ddr").get<std::int64_t>()}, Perf{}});
  return topo;
}

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
        for (std::size_t i = 0; i < option.shards.size(); ++i) {
          option.shards[i].storage = candidate.shards[i].storage;
          option.shards[i].perf = candidate.shards[i].perf;
        }
        return;
      }
    }
  };
}

}  // namespace shardplan::testing
