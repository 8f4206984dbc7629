#include "config/canonical_input.h"

#include <nlohmann/json.hpp>

#include "common/json_object.h"
#include "common/sha256.h"

namespace shardplan {

namespace {

using Json = nlohmann::ordered_json;

template <typename T>
Json optional_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

template <typename Enum>
Json name_json(const std::optional<Enum>& value) {
  return value ? Json(std::string(to_string(*value))) : Json(nullptr);
}

template <typename T>
bool non_empty(const std::optional<std::vector<T>>& list) {
  return list && !list->empty();
}

template <typename Enum>
Json names_json(const std::vector<Enum>& values) {
  Json out = Json::array();
  for (Enum v : values) out.push_back(std::string(to_string(v)));
  return out;
}

Json cache_params_canonical_json(const std::optional<CacheParams>& params) {
  if (!params) return nullptr;
  const CacheParams& p = *params;
  return json_object("load_factor", optional_json(p.load_factor), "algorithm", name_json(p.algorithm),
                     "reserved_memory", optional_json(p.reserved_memory), "precision", name_json(p.precision),
                     "prefetch_pipeline", optional_json(p.prefetch_pipeline));
}

Json constraints_json(const ParameterConstraintsConfig& c) {
  // torchrec reads an empty list, and min_partition 0, as "not given" (enumerators.py
  // `if not constraints.sharding_types`; sharding_plan.py `if column_wise_shard_dim`;
  // shard_estimators.py `if constraints and constraints.num_poolings`): so do we here.
  return json_object(
      "sharding_types", non_empty(c.sharding_types) ? names_json(*c.sharding_types) : Json(nullptr), "compute_kernels",
      non_empty(c.compute_kernels) ? names_json(*c.compute_kernels) : Json(nullptr), "min_partition",
      c.min_partition && *c.min_partition != 0 ? Json(*c.min_partition) : Json(nullptr), "pooling_factors",
      Json(c.pooling_factors), "num_poolings", non_empty(c.num_poolings) ? Json(*c.num_poolings) : Json(nullptr),
      "batch_sizes", non_empty(c.batch_sizes) ? Json(*c.batch_sizes) : Json(nullptr), "is_weighted", c.is_weighted,
      "cache_params", cache_params_canonical_json(c.cache_params), "enforce_hbm", optional_json(c.enforce_hbm),
      "stochastic_rounding", optional_json(c.stochastic_rounding), "bounds_check_mode", name_json(c.bounds_check_mode),
      "output_dtype", name_json(c.output_dtype), "device_group", name_json(c.device_group));
}

Json model_json(const ModelConfig& m) {
  Json j;
  j["name"] = m.name;
  // planners.py: `batch_size if batch_size else BATCH_SIZE`.
  j["batch_size"] = m.batch_size != 0 ? m.batch_size : ModelConfig{}.batch_size;
  Json modules = Json::array();
  for (const ModuleConfig& module : m.modules) {
    Json tables = Json::array();
    for (const TableConfig& t : module.tables)
      tables.push_back(json_object("name", t.name, "num_embeddings", t.num_embeddings, "embedding_dim", t.embedding_dim,
                                   "data_type", std::string(to_string(t.data_type)),
                                   // An empty list plans as the omitted key, which the loader reads as [name].
                                   "feature_names",
                                   Json(t.feature_names.empty() ? std::vector<std::string>{t.name} : t.feature_names)));
    modules.push_back(
        json_object("path", module.path, "kind", std::string(to_string(module.kind)), "tables", std::move(tables)));
  }
  j["modules"] = std::move(modules);
  j["dense"] = Json{{"parameters", m.dense.parameters}, {"data_type", std::string(to_string(m.dense.data_type))}};
  Json constraints = Json::object();  // std::map: ordered by table name
  // Appended, not looked up: the map's keys are distinct (a lookup per key made
  // 5 000 constraints quadratic).
  auto& fields = constraints.get_ref<Json::object_t&>();
  for (const auto& [table, c] : m.constraints) fields.emplace_back(table, constraints_json(c));
  j["constraints"] = std::move(constraints);
  return j;
}

Json topology_json(const TopologyConfig& t) {
  Json j;
  j["world_size"] = t.world_size;
  // types.py Topology: `local_world_size if local_world_size else world_size`.
  j["local_world_size"] = t.local_world_size && *t.local_world_size != 0 ? *t.local_world_size : t.world_size;
  j["compute_device"] = std::string(to_string(t.compute_device));
  j["hbm_cap"] = optional_json(t.hbm_cap);
  j["ddr_cap"] = optional_json(t.ddr_cap);
  j["hbm_mem_bw"] = optional_json(t.hbm_mem_bw);
  j["ddr_mem_bw"] = optional_json(t.ddr_mem_bw);
  j["hbm_to_ddr_mem_bw"] = optional_json(t.hbm_to_ddr_mem_bw);
  j["intra_host_bw"] = optional_json(t.intra_host_bw);
  j["inter_host_bw"] = optional_json(t.inter_host_bw);
  j["bwd_compute_multiplier"] = optional_json(t.bwd_compute_multiplier);
  j["weighted_feature_bwd_compute_multiplier"] = optional_json(t.weighted_feature_bwd_compute_multiplier);
  j["uneven_sharding_perf_multiplier"] = optional_json(t.uneven_sharding_perf_multiplier);
  j["custom_hbm_cap"] = optional_json(t.custom_hbm_cap);
  j["custom_ddr_cap"] = optional_json(t.custom_ddr_cap);
  return j;
}

Json planner_json(const PlannerOptions& p) {
  Json j;
  // planners.py `if proposer` : no proposers is torchrec's default set.
  j["proposers"] = names_json(p.proposers.empty() ? PlannerOptions{}.proposers : p.proposers);
  j["partitioner"] = Json{{"type", std::string(to_string(p.partitioner.type))},
                          {"sort_by", std::string(to_string(p.partitioner.sort_by))},
                          {"balance_modules", p.partitioner.balance_modules},
                          {"max_search_count", p.partitioner.max_search_count},
                          {"tolerance", p.partitioner.tolerance}};
  j["storage_reservation"] =
      Json{{"policy", std::string(to_string(p.storage_reservation.policy))},
           {"percentage", p.storage_reservation.percentage},
           {"parameter_multiplier", p.storage_reservation.parameter_multiplier},
           {"dense_tensor_estimate", optional_json(p.storage_reservation.dense_tensor_estimate)}};
  j["is_inference"] = p.is_inference;
  j["greedy_threshold"] = optional_json(p.greedy_threshold);
  return j;
}

}  // namespace

std::string canonical_input_text(const PlanningInput& input) {
  Json j;
  j["model"] = model_json(input.model);
  j["topology"] = topology_json(input.topology);
  j["planner"] = planner_json(input.planner);
  return j.dump();
}

std::string inputs_sha256(const PlanningInput& input) { return sha256_hex(canonical_input_text(input)); }

}  // namespace shardplan
