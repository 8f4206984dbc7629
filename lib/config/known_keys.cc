#include "config/known_keys.h"

#include <map>

namespace shardplan {

namespace {
const std::map<std::string, std::vector<std::string>, std::less<>>& sections() {
  static const std::map<std::string, std::vector<std::string>, std::less<>> table{
      {"case", {"model", "topology", "planner"}},
      {"model", {"name", "batch_size", "modules", "dense", "constraints", "planner"}},
      {"module", {"path", "kind", "tables"}},
      {"table", {"name", "num_embeddings", "embedding_dim", "data_type", "feature_names"}},
      {"dense", {"parameters", "data_type"}},
      {"constraints",
       {"sharding_types", "compute_kernels", "min_partition", "pooling_factors", "num_poolings", "batch_sizes",
        "is_weighted", "cache_params", "enforce_hbm", "stochastic_rounding", "bounds_check_mode", "output_dtype",
        "device_group"}},
      {"cache_params", {"load_factor", "algorithm", "reserved_memory", "precision", "prefetch_pipeline"}},
      {"topology",
       {"world_size", "local_world_size", "compute_device", "hbm_cap", "ddr_cap", "hbm_mem_bw", "ddr_mem_bw",
        "hbm_to_ddr_mem_bw", "intra_host_bw", "inter_host_bw", "bwd_compute_multiplier",
        "weighted_feature_bwd_compute_multiplier", "uneven_sharding_perf_multiplier", "custom"}},
      {"custom", {"hbm_cap", "ddr_cap"}},
      {"planner", {"proposers", "partitioner", "storage_reservation", "is_inference", "greedy_threshold"}},
      {"partitioner", {"type", "sort_by", "balance_modules", "max_search_count", "tolerance"}},
      {"storage_reservation", {"policy", "percentage", "parameter_multiplier", "dense_tensor_estimate"}},
  };
  return table;
}
}  // namespace

std::vector<std::string> section_names() {
  std::vector<std::string> out;
  for (const auto& [name, keys] : sections()) out.push_back(name);
  return out;
}

const std::vector<std::string>& known_keys(std::string_view section) {
  static const std::vector<std::string> kNone;
  auto it = sections().find(section);
  return it == sections().end() ? kNone : it->second;
}

}  // namespace shardplan
