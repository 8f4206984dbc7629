// canonical_input_text writes its compact JSON directly; it was nlohmann's dump()
// of a tree, and the plan file's inputs_sha256 is the hash of those bytes. The
// reference below builds that tree (the same fields in the same order, as the
// format in canonical_input.h describes) and the two texts must be equal, byte for
// byte, for inputs that set every field, leave them unset, or hold strings that
// need escaping and numbers of every kind.
#include <catch2/catch.hpp>
#include <cmath>
#include <limits>
#include <nlohmann/json.hpp>

#include "config/canonical_input.h"
#include "config/loader.h"
#include "config/planner_names.h"
#include "support/run_binary.h"

namespace shardplan::testing {
namespace {

using RefJson = nlohmann::ordered_json;

template <typename T>
RefJson ref_optional(const std::optional<T>& v) {
  return v ? RefJson(*v) : RefJson(nullptr);
}
template <typename Enum>
RefJson ref_name(const std::optional<Enum>& v) {
  return v ? RefJson(std::string(to_string(*v))) : RefJson(nullptr);
}
template <typename Enum>
RefJson ref_names(const std::vector<Enum>& values) {
  RefJson out = RefJson::array();
  for (Enum v : values) out.push_back(std::string(to_string(v)));
  return out;
}
template <typename T>
bool ref_given(const std::optional<std::vector<T>>& list) {
  return list && !list->empty();
}

std::string reference_canonical_text(const PlanningInput& input) {
  const ModelConfig& m = input.model;
  RefJson model;
  model["name"] = m.name;
  model["batch_size"] = m.batch_size != 0 ? m.batch_size : ModelConfig{}.batch_size;
  RefJson modules = RefJson::array();
  for (const ModuleConfig& module : m.modules) {
    RefJson tables = RefJson::array();
    for (const TableConfig& t : module.tables) {
      RefJson table;
      table["name"] = t.name;
      table["num_embeddings"] = t.num_embeddings;
      table["embedding_dim"] = t.embedding_dim;
      table["data_type"] = std::string(to_string(t.data_type));
      table["feature_names"] = t.feature_names.empty() ? std::vector<std::string>{t.name} : t.feature_names;
      tables.push_back(table);
    }
    RefJson jm;
    jm["path"] = module.path;
    jm["kind"] = std::string(to_string(module.kind));
    jm["tables"] = tables;
    modules.push_back(jm);
  }
  model["modules"] = modules;
  model["dense"] =
      RefJson{{"parameters", m.dense.parameters}, {"data_type", std::string(to_string(m.dense.data_type))}};
  RefJson constraints = RefJson::object();
  for (const auto& [name, c] : m.constraints) {
    RefJson j;
    j["sharding_types"] = ref_given(c.sharding_types) ? ref_names(*c.sharding_types) : RefJson(nullptr);
    j["compute_kernels"] = ref_given(c.compute_kernels) ? ref_names(*c.compute_kernels) : RefJson(nullptr);
    j["min_partition"] = c.min_partition && *c.min_partition != 0 ? RefJson(*c.min_partition) : RefJson(nullptr);
    j["pooling_factors"] = c.pooling_factors;
    j["num_poolings"] = ref_given(c.num_poolings) ? RefJson(*c.num_poolings) : RefJson(nullptr);
    j["batch_sizes"] = ref_given(c.batch_sizes) ? RefJson(*c.batch_sizes) : RefJson(nullptr);
    j["is_weighted"] = c.is_weighted;
    if (c.cache_params) {
      const CacheParams& p = *c.cache_params;
      j["cache_params"] = RefJson{{"load_factor", ref_optional(p.load_factor)},
                                  {"algorithm", ref_name(p.algorithm)},
                                  {"reserved_memory", ref_optional(p.reserved_memory)},
                                  {"precision", ref_name(p.precision)},
                                  {"prefetch_pipeline", ref_optional(p.prefetch_pipeline)}};
    } else {
      j["cache_params"] = nullptr;
    }
    j["enforce_hbm"] = ref_optional(c.enforce_hbm);
    j["stochastic_rounding"] = ref_optional(c.stochastic_rounding);
    j["bounds_check_mode"] = ref_name(c.bounds_check_mode);
    j["output_dtype"] = ref_name(c.output_dtype);
    j["device_group"] = ref_name(c.device_group);
    constraints[name] = j;
  }
  model["constraints"] = constraints;
  const TopologyConfig& t = input.topology;
  RefJson topology;
  topology["world_size"] = t.world_size;
  topology["local_world_size"] = t.local_world_size && *t.local_world_size != 0 ? *t.local_world_size : t.world_size;
  topology["compute_device"] = std::string(to_string(t.compute_device));
  topology["hbm_cap"] = ref_optional(t.hbm_cap);
  topology["ddr_cap"] = ref_optional(t.ddr_cap);
  topology["hbm_mem_bw"] = ref_optional(t.hbm_mem_bw);
  topology["ddr_mem_bw"] = ref_optional(t.ddr_mem_bw);
  topology["hbm_to_ddr_mem_bw"] = ref_optional(t.hbm_to_ddr_mem_bw);
  topology["intra_host_bw"] = ref_optional(t.intra_host_bw);
  topology["inter_host_bw"] = ref_optional(t.inter_host_bw);
  topology["bwd_compute_multiplier"] = ref_optional(t.bwd_compute_multiplier);
  topology["weighted_feature_bwd_compute_multiplier"] = ref_optional(t.weighted_feature_bwd_compute_multiplier);
  topology["uneven_sharding_perf_multiplier"] = ref_optional(t.uneven_sharding_perf_multiplier);
  topology["custom_hbm_cap"] = ref_optional(t.custom_hbm_cap);
  topology["custom_ddr_cap"] = ref_optional(t.custom_ddr_cap);
  const PlannerOptions& p = input.planner;
  RefJson planner;
  planner["proposers"] = ref_names(p.proposers.empty() ? PlannerOptions{}.proposers : p.proposers);
  planner["partitioner"] = RefJson{{"type", std::string(to_string(p.partitioner.type))},
                                   {"sort_by", std::string(to_string(p.partitioner.sort_by))},
                                   {"balance_modules", p.partitioner.balance_modules},
                                   {"max_search_count", p.partitioner.max_search_count},
                                   {"tolerance", p.partitioner.tolerance}};
  planner["storage_reservation"] =
      RefJson{{"policy", std::string(to_string(p.storage_reservation.policy))},
              {"percentage", p.storage_reservation.percentage},
              {"parameter_multiplier", p.storage_reservation.parameter_multiplier},
              {"dense_tensor_estimate", ref_optional(p.storage_reservation.dense_tensor_estimate)}};
  planner["is_inference"] = p.is_inference;
  planner["greedy_threshold"] = ref_optional(p.greedy_threshold);
  RefJson all;
  all["model"] = model;
  all["topology"] = topology;
  all["planner"] = planner;
  return all.dump();
}

}  // namespace

TEST_CASE("canonical input text: written directly, the bytes of the tree's dump", "[config][canonical]") {
  std::vector<PlanningInput> inputs;
  inputs.push_back(load_case(kQuickstartConfig));
  inputs.push_back(PlanningInput{});  // nothing set: defaults and nulls
  // Every field set, strings that need escaping, numbers of every kind.
  PlanningInput full = load_case(kQuickstartConfig);
  full.model.name = "q\"uote\\back\tslash\x01 caf\u00e9 \u6f22";
  full.model.batch_size = 0;  // "not given"
  full.model.modules[0].tables[0].feature_names = {"a\"b", "\u00e9"};
  full.model.modules[0].tables[1].feature_names.clear();
  full.model.dense.parameters = std::numeric_limits<std::int64_t>::max();
  ParameterConstraintsConfig c;
  c.sharding_types = std::vector<ShardingType>{ShardingType::kRowWise, ShardingType::kTableWise};
  c.compute_kernels = std::vector<ComputeKernel>{};  // empty: "not given"
  c.min_partition = 0;
  c.pooling_factors = {0.1, 2.0, 1e300, 5e-324, -0.0, 123456789.125};
  c.num_poolings = std::vector<double>{1.0, 3.5};
  c.batch_sizes = std::vector<std::int64_t>{1, -2};
  c.is_weighted = true;
  c.cache_params = CacheParams{0.25, CacheAlgorithm::kLfu, std::nullopt, DataType::kFp16, true};
  c.enforce_hbm = false;
  c.bounds_check_mode = BoundsCheckMode::kFatal;
  c.device_group = ComputeDevice::kCpu;
  full.model.constraints["x\"y"] = c;
  full.model.constraints["a"] = ParameterConstraintsConfig{};
  full.topology.local_world_size = 0;
  full.topology.hbm_cap = 17179869184;
  full.topology.hbm_mem_bw = std::numeric_limits<double>::quiet_NaN();
  full.topology.ddr_mem_bw = std::numeric_limits<double>::infinity();
  full.topology.intra_host_bw = 6e11;
  full.topology.custom_hbm_cap = std::vector<std::int64_t>{1, 2};
  full.topology.custom_ddr_cap = std::vector<std::int64_t>{};
  full.planner.proposers.clear();
  full.planner.partitioner.tolerance = 1.0 / 3;
  full.planner.storage_reservation.dense_tensor_estimate = 12;
  full.planner.greedy_threshold = 7;
  inputs.push_back(full);
  for (const PlanningInput& input : inputs) {
    const std::string reference = reference_canonical_text(input);
    INFO(reference);
    CHECK(canonical_input_text(input) == reference);
  }
  // The odd values did reach the text (the comparison is not of two empty outputs).
  const std::string text = canonical_input_text(full);
  CHECK(text.find("\"hbm_mem_bw\":null") != std::string::npos);
  CHECK(text.find("1e+300") != std::string::npos);
  CHECK(text.find("\\\"uote\\\\back\\tslash\\u0001") != std::string::npos);
}

}  // namespace shardplan::testing
