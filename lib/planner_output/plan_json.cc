#include "planner_output/plan_json.h"

#include <algorithm>

#include "common/json_object.h"
#include "planner/memory_basis.h"
#include "planner/rank_load.h"
#include "planner_output/bound_report.h"
#include "planner_output/options_json.h"
#include "planner_output/perf_storage_json.h"

namespace shardplan {

std::string placement_string(ComputeDevice device, int rank, int local_world_size) {
  std::string name(to_string(device));
  if (device == ComputeDevice::kCpu) return "rank:" + std::to_string(rank) + "/" + name;
  return "rank:" + std::to_string(rank) + "/" + name + ":" + std::to_string(rank % local_world_size);
}

namespace {

nlohmann::ordered_json optional_json(const auto& value) {
  if (value) return nlohmann::ordered_json(*value);
  return nlohmann::ordered_json(nullptr);
}

nlohmann::ordered_json cache_params_json(const std::optional<CacheParams>& cp) {
  if (!cp) return nullptr;
  nlohmann::ordered_json j;
  j["algorithm"] =
      cp->algorithm ? nlohmann::ordered_json(std::string(to_string(*cp->algorithm))) : nlohmann::ordered_json(nullptr);
  j["load_factor"] = optional_json(cp->load_factor);
  j["reserved_memory"] = optional_json(cp->reserved_memory);
  j["precision"] =
      cp->precision ? nlohmann::ordered_json(std::string(to_string(*cp->precision))) : nlohmann::ordered_json(nullptr);
  j["prefetch_pipeline"] = optional_json(cp->prefetch_pipeline);
  return j;
}

}  // namespace

nlohmann::ordered_json plan_to_json(const PlanFileInput& in) {
  const Topology& topo = *in.topology;
  nlohmann::ordered_json j;
  j["schema"] = "shardplan.plan/v1";
  // Which tool wrote the plan and from what: `shardplan diff` tells a change of the
  // inputs from a change of the tool alone.
  if (!in.inputs_sha256.empty()) {
    j["shardplan"] = json_object("version", std::string(SHARDPLAN_VERSION), "inputs_sha256", in.inputs_sha256);
    // The normalised inputs themselves (the text the hash is of), so that `diff`
    // can say which input field changed.
    if (!in.inputs_text.empty()) j["shardplan"]["inputs"] = nlohmann::ordered_json::parse(in.inputs_text);
  }
  j["model"] = in.model_name;
  nlohmann::ordered_json t;
  t["world_size"] = topo.world_size;
  t["local_world_size"] = topo.local_world_size;
  t["compute_device"] = std::string(to_string(topo.compute_device));
  nlohmann::ordered_json devices = nlohmann::ordered_json::array();
  for (const auto& d : topo.devices) devices.push_back(storage_json(d.storage));
  t["devices"] = std::move(devices);
  j["topology"] = std::move(t);

  nlohmann::ordered_json plan = nlohmann::ordered_json::object();
  for (const auto& option : *in.plan) {
    std::vector<int> ranks;
    for (const auto& s : option.shards) ranks.push_back(s.rank.value_or(-1));
    nlohmann::ordered_json shards = nlohmann::ordered_json::array();
    for (const auto& s : option.shards) {
      const int rank = s.rank.value_or(-1);
      shards.push_back(json_object("rank", rank, "placement",
                                   placement_string(topo.compute_device, rank, topo.local_world_size), "offsets",
                                   s.offset, "sizes", s.size, "perf", perf_json(s.perf.value_or(Perf{})), "storage",
                                   storage_json(s.storage.value_or(Storage{}))));
    }
    auto name_json = [](const auto& value) {
      return value ? nlohmann::ordered_json(std::string(to_string(*value))) : nlohmann::ordered_json(nullptr);
    };
    nlohmann::ordered_json table = json_object(
        "sharding_type", std::string(to_string(option.sharding_type)), "compute_kernel",
        std::string(to_string(option.compute_kernel)), "ranks", std::move(ranks), "cache_params",
        cache_params_json(option.cache_params), "enforce_hbm", optional_json(option.enforce_hbm), "stochastic_rounding",
        optional_json(option.stochastic_rounding), "bounds_check_mode", name_json(option.bounds_check_mode),
        "output_dtype", name_json(option.output_dtype), "total_storage", storage_json(option.total_storage()),
        "total_perf", option.total_perf(), "shards", std::move(shards));
    // Table names are unique in a model (the loader checks), so a table is
    // appended to its module without plan[path][name]'s search over the module's
    // tables, which made a 1000-table plan quadratic.
    auto& tables = plan[option.path];
    if (tables.is_null()) tables = nlohmann::ordered_json::object();
    tables.get_ref<nlohmann::ordered_json::object_t&>().emplace_back(option.name, std::move(table));
  }
  j["plan"] = std::move(plan);

  // An empty plan (nothing shardable) is torchrec's ShardingPlan({}): no per-rank figures.
  const std::vector<RankLoad> totals =
      in.plan->empty() ? std::vector<RankLoad>{} : rank_loads(*in.plan, topo.world_size);
  nlohmann::ordered_json per_rank = nlohmann::ordered_json::array();
  Storage used;
  double max_perf = 0;
  std::int64_t max_hbm = 0;
  for (const auto& r : totals) {
    per_rank.push_back(
        json_object("hbm", r.storage.hbm, "ddr", r.storage.ddr, "perf", perf_json(r.perf), "num_shards", r.num_shards));
    used += r.storage;
    max_perf = std::max(max_perf, r.perf.total());
    max_hbm = std::max(max_hbm, r.storage.hbm);
  }
  j["per_rank"] = std::move(per_rank);

  nlohmann::ordered_json reserved = nlohmann::ordered_json::array();
  for (const auto& d : in.reservation->reserved.devices) reserved.push_back(storage_json(d.storage));
  j["reserved"] = std::move(reserved);

  // Per rank, memory used against the usable capacity (planner/memory_basis.h): the
  // one basis every output reports.
  nlohmann::ordered_json memory_ranks = nlohmann::ordered_json::array();
  for (const RankMemory& m : rank_memory(topo, *in.reservation, totals))
    memory_ranks.push_back(json_object("hbm_used", m.hbm.used, "hbm_usable", m.hbm.capacity, "ddr_used", m.ddr.used,
                                       "ddr_usable", m.ddr.capacity));
  j["memory"] = json_object("basis", std::string(kMemoryBasisText), "per_rank", std::move(memory_ranks));

  nlohmann::ordered_json summary;
  summary["perf_rating"] = in.perf_rating;
  summary["max_rank_perf"] = max_perf;
  summary["max_rank_hbm"] = max_hbm;
  summary["total_hbm"] = used.hbm;
  summary["total_ddr"] = used.ddr;
  summary["num_proposals"] = in.num_proposals;
  summary["num_plans"] = in.num_plans;
  // torchrec's class name, as the plan file has always said.
  summary["storage_reservation"] =
      in.reservation->policy ? torchrec_name_of(kReservationPolicyNames, *in.reservation->policy) : "";
  if (in.bound) summary["lower_bound"] = bound_json(*in.bound, in.perf_rating);
  j["summary"] = std::move(summary);
  return j;
}

nlohmann::ordered_json plan_file_json(const PlanRun& run, const std::string& model_name,
                                      const std::string& inputs_sha256, const std::string& inputs_text) {
  PlanFileInput file;
  file.inputs_sha256 = inputs_sha256;
  file.inputs_text = inputs_text;
  file.model_name = model_name;
  file.topology = &run.topology;
  file.reservation = &*run.result.reservation;
  file.plan = &run.result.plan;
  file.num_proposals = run.result.num_proposals;
  file.num_plans = run.result.num_plans;
  file.perf_rating = run.result.perf_rating;
  file.bound = run.bound ? &*run.bound : nullptr;
  return plan_to_json(file);
}

std::string plan_file_text(const PlanRun& run, const std::string& model_name, const std::string& inputs_sha256,
                           const std::string& inputs_text) {
  return plan_file_json(run, model_name, inputs_sha256, inputs_text).dump(2) + "\n";
}

}  // namespace shardplan
