#include "config/canonical_input.h"

#include <cstdint>
#include <optional>
#include <type_traits>
#include <vector>

#include "common/json_text.h"
#include "common/names.h"
#include "common/sha256.h"
#include "config/planner_names.h"

namespace shardplan {

namespace {

// The text is written directly, as nlohmann's compact dump() writes the same tree
// (common/json_text.h): building the tree of a 5 000-table model took longer than
// planning's other set-up steps together. One writer per object: keys in the
// order given, commas between fields.
struct CanonicalObject {
  std::string& out;
  bool first = true;
  explicit CanonicalObject(std::string& text) : out(text) { out += '{'; }
  // `"key":`, ready for the value.
  std::string& operator[](std::string_view key) {
    if (!first) out += ',';
    first = false;
    append_json_string(out, key);
    out += ':';
    return out;
  }
  void close() { out += '}'; }
};

void canonical_value(std::string& out, std::int64_t value) { append_json_int(out, value); }
void canonical_value(std::string& out, int value) { append_json_int(out, value); }
void canonical_value(std::string& out, double value) { append_json_double(out, value); }
void canonical_value(std::string& out, bool value) { out += value ? "true" : "false"; }
void canonical_value(std::string& out, const std::string& value) { append_json_string(out, value); }

template <typename Enum>
requires std::is_enum_v<Enum>
void canonical_value(std::string& out, Enum value) { append_json_string(out, to_string(value)); }

template <typename T>
void canonical_value(std::string& out, const std::vector<T>& values) {
  out += '[';
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i > 0) out += ',';
    canonical_value(out, values[i]);
  }
  out += ']';
}

// An unset optional is null.
template <typename T>
void canonical_value(std::string& out, const std::optional<T>& value) {
  if (value)
    canonical_value(out, *value);
  else
    out += "null";
}

// torchrec reads an empty list as "not given" (null here).
template <typename T>
std::optional<std::vector<T>> given_list(const std::optional<std::vector<T>>& list) {
  if (list && !list->empty()) return list;
  return std::nullopt;
}

void canonical_cache_params(std::string& out, const std::optional<CacheParams>& params) {
  if (!params) {
    out += "null";
    return;
  }
  const CacheParams& p = *params;
  CanonicalObject j(out);
  canonical_value(j["load_factor"], p.load_factor);
  canonical_value(j["algorithm"], p.algorithm);
  canonical_value(j["reserved_memory"], p.reserved_memory);
  canonical_value(j["precision"], p.precision);
  canonical_value(j["prefetch_pipeline"], p.prefetch_pipeline);
  j.close();
}

void canonical_constraints(std::string& out, const ParameterConstraintsConfig& c) {
  // torchrec reads an empty list, and min_partition 0, as "not given" (enumerators.py
  // `if not constraints.sharding_types`; sharding_plan.py `if column_wise_shard_dim`;
  // shard_estimators.py `if constraints and constraints.num_poolings`): so do we here.
  CanonicalObject j(out);
  canonical_value(j["sharding_types"], given_list(c.sharding_types));
  canonical_value(j["compute_kernels"], given_list(c.compute_kernels));
  canonical_value(j["min_partition"],
                  c.min_partition && *c.min_partition != 0 ? c.min_partition : std::optional<std::int64_t>());
  canonical_value(j["pooling_factors"], c.pooling_factors);
  canonical_value(j["num_poolings"], given_list(c.num_poolings));
  canonical_value(j["batch_sizes"], given_list(c.batch_sizes));
  canonical_value(j["is_weighted"], c.is_weighted);
  canonical_cache_params(j["cache_params"], c.cache_params);
  canonical_value(j["enforce_hbm"], c.enforce_hbm);
  canonical_value(j["stochastic_rounding"], c.stochastic_rounding);
  canonical_value(j["bounds_check_mode"], c.bounds_check_mode);
  canonical_value(j["output_dtype"], c.output_dtype);
  canonical_value(j["device_group"], c.device_group);
  j.close();
}

void canonical_model(std::string& out, const ModelConfig& m) {
  CanonicalObject j(out);
  canonical_value(j["name"], m.name);
  // planners.py: `batch_size if batch_size else BATCH_SIZE`.
  canonical_value(j["batch_size"], m.batch_size != 0 ? m.batch_size : ModelConfig{}.batch_size);
  j["modules"] += '[';
  for (std::size_t mi = 0; mi < m.modules.size(); ++mi) {
    const ModuleConfig& module = m.modules[mi];
    if (mi > 0) out += ',';
    CanonicalObject jm(out);
    canonical_value(jm["path"], module.path);
    canonical_value(jm["kind"], module.kind);
    jm["tables"] += '[';
    for (std::size_t ti = 0; ti < module.tables.size(); ++ti) {
      const TableConfig& t = module.tables[ti];
      if (ti > 0) out += ',';
      CanonicalObject jt(out);
      canonical_value(jt["name"], t.name);
      canonical_value(jt["num_embeddings"], t.num_embeddings);
      canonical_value(jt["embedding_dim"], t.embedding_dim);
      canonical_value(jt["data_type"], t.data_type);
      // An empty list plans as the omitted key, which the loader reads as [name].
      canonical_value(jt["feature_names"],
                      t.feature_names.empty() ? std::vector<std::string>{t.name} : t.feature_names);
      jt.close();
    }
    out += ']';
    jm.close();
  }
  out += ']';
  CanonicalObject dense(j["dense"]);
  canonical_value(dense["parameters"], m.dense.parameters);
  canonical_value(dense["data_type"], m.dense.data_type);
  dense.close();
  // By table name (the std::map's order).
  CanonicalObject constraints(j["constraints"]);
  for (const auto& [table, c] : m.constraints) canonical_constraints(constraints[table], c);
  constraints.close();
  j.close();
}

void canonical_topology(std::string& out, const TopologyConfig& t) {
  CanonicalObject j(out);
  canonical_value(j["world_size"], t.world_size);
  // types.py Topology: `local_world_size if local_world_size else world_size`.
  canonical_value(j["local_world_size"],
                  t.local_world_size && *t.local_world_size != 0 ? *t.local_world_size : t.world_size);
  canonical_value(j["compute_device"], t.compute_device);
  canonical_value(j["hbm_cap"], t.hbm_cap);
  canonical_value(j["ddr_cap"], t.ddr_cap);
  canonical_value(j["hbm_mem_bw"], t.hbm_mem_bw);
  canonical_value(j["ddr_mem_bw"], t.ddr_mem_bw);
  canonical_value(j["hbm_to_ddr_mem_bw"], t.hbm_to_ddr_mem_bw);
  canonical_value(j["intra_host_bw"], t.intra_host_bw);
  canonical_value(j["inter_host_bw"], t.inter_host_bw);
  canonical_value(j["bwd_compute_multiplier"], t.bwd_compute_multiplier);
  canonical_value(j["weighted_feature_bwd_compute_multiplier"], t.weighted_feature_bwd_compute_multiplier);
  canonical_value(j["uneven_sharding_perf_multiplier"], t.uneven_sharding_perf_multiplier);
  canonical_value(j["custom_hbm_cap"], t.custom_hbm_cap);
  canonical_value(j["custom_ddr_cap"], t.custom_ddr_cap);
  j.close();
}

void canonical_planner(std::string& out, const PlannerOptions& p) {
  CanonicalObject j(out);
  // planners.py `if proposer` : no proposers is torchrec's default set.
  canonical_value(j["proposers"], p.proposers.empty() ? PlannerOptions{}.proposers : p.proposers);
  CanonicalObject partitioner(j["partitioner"]);
  canonical_value(partitioner["type"], p.partitioner.type);
  canonical_value(partitioner["sort_by"], p.partitioner.sort_by);
  canonical_value(partitioner["balance_modules"], p.partitioner.balance_modules);
  canonical_value(partitioner["max_search_count"], p.partitioner.max_search_count);
  canonical_value(partitioner["tolerance"], p.partitioner.tolerance);
  partitioner.close();
  CanonicalObject reservation(j["storage_reservation"]);
  canonical_value(reservation["policy"], p.storage_reservation.policy);
  canonical_value(reservation["percentage"], p.storage_reservation.percentage);
  canonical_value(reservation["parameter_multiplier"], p.storage_reservation.parameter_multiplier);
  canonical_value(reservation["dense_tensor_estimate"], p.storage_reservation.dense_tensor_estimate);
  reservation.close();
  canonical_value(j["is_inference"], p.is_inference);
  canonical_value(j["greedy_threshold"], p.greedy_threshold);
  j.close();
}

}  // namespace

std::string canonical_input_text(const PlanningInput& input) {
  std::string out;
  CanonicalObject j(out);
  canonical_model(j["model"], input.model);
  canonical_topology(j["topology"], input.topology);
  canonical_planner(j["planner"], input.planner);
  j.close();
  return out;
}

std::string inputs_sha256(const PlanningInput& input) { return sha256_hex(canonical_input_text(input)); }

}  // namespace shardplan
