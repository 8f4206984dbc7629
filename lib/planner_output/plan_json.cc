#include "planner_output/plan_json.h"

#include <algorithm>
#include <map>
#include <string_view>
#include <type_traits>

#include "common/json_object.h"
#include "common/json_text.h"
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

namespace {

// The fields before "plan": schema, the tool and its inputs, model, topology.
// `with_inputs`: also "shardplan".inputs, parsed from in.inputs_text (plan_to_text
// writes that text itself, without the tree).
nlohmann::ordered_json plan_head_json(const PlanFileInput& in, bool with_inputs = true) {
  const Topology& topo = *in.topology;
  nlohmann::ordered_json j;
  j["schema"] = "shardplan.plan/v1";
  // Which tool wrote the plan and from what: `shardplan diff` tells a change of the
  // inputs from a change of the tool alone.
  if (!in.inputs_sha256.empty()) {
    j["shardplan"] = json_object("version", std::string(SHARDPLAN_VERSION), "inputs_sha256", in.inputs_sha256);
    // The normalised inputs themselves (the text the hash is of), so that `diff`
    // can say which input field changed.
    if (with_inputs && !in.inputs_text.empty())
      j["shardplan"]["inputs"] = nlohmann::ordered_json::parse(in.inputs_text);
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
  return j;
}

// One table of "plan": its option and its placed shards.
nlohmann::ordered_json plan_table_json(const ShardingOption& option, const Topology& topo) {
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
  return json_object("sharding_type", std::string(to_string(option.sharding_type)), "compute_kernel",
                     std::string(to_string(option.compute_kernel)), "ranks", std::move(ranks), "cache_params",
                     cache_params_json(option.cache_params), "enforce_hbm", optional_json(option.enforce_hbm),
                     "stochastic_rounding", optional_json(option.stochastic_rounding), "bounds_check_mode",
                     name_json(option.bounds_check_mode), "output_dtype", name_json(option.output_dtype),
                     "total_storage", storage_json(option.total_storage()), "total_perf", option.total_perf(), "shards",
                     std::move(shards));
}

// `"key": [a, b]` with the key at `field` and the numbers one per line two deeper,
// as dump(2) lays out a shard's sizes and offsets.
void append_pair_field(std::string& out, int field, std::string_view key, std::int64_t a, std::int64_t b) {
  append_json_key(out, field, key);
  out += "[\n";
  append_spaces(out, field + 2);
  append_json_int(out, a);
  out += ",\n";
  append_spaces(out, field + 2);
  append_json_int(out, b);
  out += "\n";
  append_spaces(out, field);
  out += ']';
}

// The tail every shard of `run` shares, from its "sizes" to the shard's closing
// brace, as dump(2) writes it with the shard's brace at `indent`.
std::string shard_run_tail(const ShardRun& run, int indent) {
  std::string out;
  const int field = indent + 2, inner = indent + 4;
  auto number_line = [&](std::string_view key, auto value, bool last) {
    append_json_key(out, inner, key);
    if constexpr (std::is_floating_point_v<decltype(value)>)
      append_json_double(out, value);
    else
      append_json_int(out, value);
    out += last ? "\n" : ",\n";
  };
  out += ",\n";
  append_pair_field(out, field, "sizes", run.size[0], run.size[1]);
  out += ",\n";
  const Perf perf = run.perf.value_or(Perf{});  // perf_json's fields, "total" last
  append_json_key(out, field, "perf");
  out += "{\n";
  number_line("fwd_compute", perf.fwd_compute, false);
  number_line("fwd_comms", perf.fwd_comms, false);
  number_line("bwd_compute", perf.bwd_compute, false);
  number_line("bwd_comms", perf.bwd_comms, false);
  number_line("prefetch_compute", perf.prefetch_compute, false);
  number_line("total", perf.total(), true);
  append_spaces(out, field);
  out += "},\n";
  const Storage storage = run.storage.value_or(Storage{});  // storage_json's fields
  append_json_key(out, field, "storage");
  out += "{\n";
  number_line("hbm", storage.hbm, false);
  number_line("ddr", storage.ddr, true);
  append_spaces(out, field);
  out += "}\n";
  append_spaces(out, indent);
  out += '}';
  return out;
}

// The "shards" list of plan_table_json, its "[" inline and its "]" at `indent`.
// A shard differs from the others of its run only in rank, placement and
// offsets: the rest is written once per run.
void append_shards_text(std::string& out, const ShardingOption& option, const Topology& topo, int indent) {
  if (option.shards.empty()) {
    out += "[]";
    return;
  }
  const int shard_indent = indent + 2, field = indent + 4;
  const std::string device(to_string(topo.compute_device));
  out += "[\n";
  bool first = true;
  for (const ShardRun& run : option.shards.runs()) {
    const std::string tail = shard_run_tail(run, shard_indent);
    for (std::int32_t k = 0; k < run.count; ++k) {
      const Shard shard = run.shard(k);
      const int rank = shard.rank.value_or(-1);
      if (!first) out += ",\n";
      first = false;
      append_spaces(out, shard_indent);
      out += "{\n";
      append_json_key(out, field, "rank");
      append_json_int(out, rank);
      out += ",\n";
      append_json_key(out, field, "placement");
      append_json_string(out, placement_string(topo.compute_device, rank, topo.local_world_size));
      out += ",\n";
      append_pair_field(out, field, "offsets", shard.offset[0], shard.offset[1]);
      out += tail;
    }
  }
  out += "\n";
  append_spaces(out, indent);
  out += ']';
}

// plan_table_json(option, topo).dump(2), as it reads `indent` spaces deep, written
// without the tree: a table on 1 024 ranks has 1 024 shard objects.
void append_plan_table_text(std::string& out, const ShardingOption& option, const Topology& topo, int indent) {
  const int field = indent + 2;
  auto next = [&](std::string_view key) {
    out += ",\n";
    append_json_key(out, field, key);
  };
  auto name_or_null = [&](const auto& value) {
    if (value)
      append_json_string(out, to_string(*value));
    else
      out += "null";
  };
  auto bool_or_null = [&](const std::optional<bool>& value) { out += !value ? "null" : *value ? "true" : "false"; };
  out += "{\n";
  append_json_key(out, field, "sharding_type");
  append_json_string(out, to_string(option.sharding_type));
  next("compute_kernel");
  append_json_string(out, to_string(option.compute_kernel));
  next("ranks");
  if (option.shards.empty()) {
    out += "[]";
  } else {
    out += "[\n";
    bool first = true;
    for (const Shard& shard : option.shards) {
      if (!first) out += ",\n";
      first = false;
      append_spaces(out, field + 2);
      append_json_int(out, shard.rank.value_or(-1));
    }
    out += "\n";
    append_spaces(out, field);
    out += ']';
  }
  next("cache_params");
  append_reindented_json(out, cache_params_json(option.cache_params).dump(), field);
  next("enforce_hbm");
  bool_or_null(option.enforce_hbm);
  next("stochastic_rounding");
  bool_or_null(option.stochastic_rounding);
  next("bounds_check_mode");
  name_or_null(option.bounds_check_mode);
  next("output_dtype");
  name_or_null(option.output_dtype);
  const Storage total = option.total_storage();
  next("total_storage");
  append_json_int_pair(out, field, "hbm", total.hbm, "ddr", total.ddr);
  next("total_perf");
  append_json_double(out, option.total_perf());
  next("shards");
  append_shards_text(out, option, topo, field);
  out += "\n";
  append_spaces(out, indent);
  out += '}';
}

// The fields after "plan", whose per-rank lists are as long as the world: the
// loads, one entry per rank of each list, and the summary.
struct PlanTail {
  std::vector<RankLoad> totals;
  std::vector<RankMemory> memory;
  nlohmann::ordered_json summary;
};

PlanTail plan_tail(const PlanFileInput& in) {
  const Topology& topo = *in.topology;
  PlanTail tail;
  // An empty plan (nothing shardable) is torchrec's ShardingPlan({}): no per-rank figures.
  if (!in.plan->empty()) tail.totals = rank_loads(*in.plan, topo.world_size);
  Storage used;
  double max_perf = 0;
  std::int64_t max_hbm = 0;
  for (const auto& r : tail.totals) {
    used += r.storage;
    max_perf = std::max(max_perf, r.perf.total());
    max_hbm = std::max(max_hbm, r.storage.hbm);
  }
  // Per rank, memory used against the usable capacity (planner/memory_basis.h): the
  // one basis every output reports.
  tail.memory = rank_memory(topo, *in.reservation, tail.totals);
  nlohmann::ordered_json& summary = tail.summary;
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
  return tail;
}

nlohmann::ordered_json rank_load_json(const RankLoad& r) {
  return json_object("hbm", r.storage.hbm, "ddr", r.storage.ddr, "perf", perf_json(r.perf), "num_shards", r.num_shards);
}

nlohmann::ordered_json rank_memory_json(const RankMemory& m) {
  return json_object("hbm_used", m.hbm.used, "hbm_usable", m.hbm.capacity, "ddr_used", m.ddr.used, "ddr_usable",
                     m.ddr.capacity);
}

// Appends value.dump(2) as it reads `indent` spaces deep inside a larger dump(2):
// every line after the first moves right by `indent` (a dumped string never holds a
// raw newline, so each newline starts a line).
void append_nested(std::string& out, const nlohmann::ordered_json& value, int indent) {
  const std::string text = value.dump(2);
  for (char c : text) {
    out += c;
    if (c == '\n') out.append(static_cast<std::size_t>(indent), ' ');
  }
}

void append_key(std::string& out, int indent, const std::string& key) {
  out.append(static_cast<std::size_t>(indent), ' ');
  out += nlohmann::ordered_json(key).dump();
  out += ": ";
}

// `"key": [ ... ]` at `indent`, each element made by make(i) when written, so that
// only one element's tree exists at a time.
template <typename Make>
void append_array(std::string& out, int indent, const std::string& key, std::size_t count, Make make) {
  append_key(out, indent, key);
  if (count == 0) {
    out += "[]";
    return;
  }
  out += "[\n";
  for (std::size_t i = 0; i < count; ++i) {
    out.append(static_cast<std::size_t>(indent + 2), ' ');
    append_nested(out, make(i), indent + 2);
    out += i + 1 < count ? ",\n" : "\n";
  }
  out.append(static_cast<std::size_t>(indent), ' ');
  out += ']';
}

}  // namespace

nlohmann::ordered_json plan_to_json(const PlanFileInput& in) {
  const Topology& topo = *in.topology;
  nlohmann::ordered_json j = plan_head_json(in);
  nlohmann::ordered_json plan = nlohmann::ordered_json::object();
  for (const auto& option : *in.plan) {
    // Table names are unique in a model (the loader checks), so a table is
    // appended to its module without plan[path][name]'s search over the module's
    // tables, which made a 1000-table plan quadratic.
    auto& tables = plan[option.path];
    if (tables.is_null()) tables = nlohmann::ordered_json::object();
    tables.get_ref<nlohmann::ordered_json::object_t&>().emplace_back(option.name, plan_table_json(option, topo));
  }
  j["plan"] = std::move(plan);

  const PlanTail tail = plan_tail(in);
  nlohmann::ordered_json per_rank = nlohmann::ordered_json::array();
  for (const auto& r : tail.totals) per_rank.push_back(rank_load_json(r));
  j["per_rank"] = std::move(per_rank);
  nlohmann::ordered_json reserved = nlohmann::ordered_json::array();
  for (const auto& d : in.reservation->reserved.devices) reserved.push_back(storage_json(d.storage));
  j["reserved"] = std::move(reserved);
  nlohmann::ordered_json memory_ranks = nlohmann::ordered_json::array();
  for (const RankMemory& m : tail.memory) memory_ranks.push_back(rank_memory_json(m));
  j["memory"] = json_object("basis", std::string(kMemoryBasisText), "per_rank", std::move(memory_ranks));
  j["summary"] = tail.summary;
  return j;
}

// The same bytes as plan_to_json(in).dump(2) + "\n", written part by part: a plan
// of many tables on many ranks never exists as one tree. Besides the memory, that
// keeps running out of memory an exit 4: nlohmann's destructor allocates, and a
// large tree freed while a std::bad_alloc unwinds ends in std::terminate.
std::string plan_text_head(const PlanFileInput& in) {
  std::string out;
  out.reserve(static_cast<std::size_t>(in.topology->world_size) * 300 + in.inputs_text.size() * 2);
  out += "{\n";
  {
    const nlohmann::ordered_json head = plan_head_json(in, false);
    for (const auto& [key, value] : head.items()) {
      append_key(out, 2, key);
      append_nested(out, value, 2);
      if (key == "shardplan" && !in.inputs_text.empty()) {
        // The inputs go last in "shardplan": reopen its closing "\n  }" (two
        // fields before it) to add them, re-indented from their compact text.
        out.resize(out.size() - 4);
        out += ",\n";
        append_json_key(out, 4, "inputs");
        append_reindented_json(out, in.inputs_text, 4);
        out += "\n  }";
      }
      out += ",\n";
    }
  }
  append_key(out, 2, "plan");
  out += in.plan->empty() ? "{}" : "{\n";
  return out;
}

std::vector<PlanTextTable> plan_text_tables(const std::vector<ShardingOption>& plan) {
  // Tables grouped by module path, modules in order of first appearance (what
  // plan_to_json's ordered object does).
  std::vector<std::string_view> paths;
  std::map<std::string_view, std::vector<const ShardingOption*>> by_path;
  for (const auto& option : plan) {
    auto& group = by_path[option.path];
    if (group.empty()) paths.push_back(option.path);
    group.push_back(&option);
  }
  std::vector<PlanTextTable> out;
  out.reserve(plan.size());
  for (std::size_t p = 0; p < paths.size(); ++p) {
    const auto& group = by_path[paths[p]];
    for (std::size_t t = 0; t < group.size(); ++t)
      out.push_back(PlanTextTable{group[t], t == 0, t + 1 == group.size(), p + 1 == paths.size()});
  }
  return out;
}

void append_plan_text_tables(std::string& out, std::span<const PlanTextTable> tables, const Topology& topo) {
  for (const PlanTextTable& table : tables) {
    if (table.first_of_module) {
      append_key(out, 4, table.option->path);
      out += "{\n";
    }
    append_key(out, 6, table.option->name);
    append_plan_table_text(out, *table.option, topo, 6);
    if (!table.last_of_module) {
      out += ",\n";
      continue;
    }
    out += "\n    }";
    out += table.last_module ? "\n" : ",\n";
  }
}

std::string plan_text_tail(const PlanFileInput& in) {
  std::string out;
  out.reserve(static_cast<std::size_t>(in.topology->world_size) * 500 + 4096);
  if (!in.plan->empty()) out += "  }";
  out += ",\n";

  const PlanTail tail = plan_tail(in);
  append_array(out, 2, "per_rank", tail.totals.size(), [&](std::size_t i) { return rank_load_json(tail.totals[i]); });
  out += ",\n";
  const auto& reserved = in.reservation->reserved.devices;
  append_array(out, 2, "reserved", reserved.size(), [&](std::size_t i) { return storage_json(reserved[i].storage); });
  out += ",\n";
  append_key(out, 2, "memory");
  out += "{\n";
  append_key(out, 4, "basis");
  out += nlohmann::ordered_json(std::string(kMemoryBasisText)).dump();
  out += ",\n";
  append_array(out, 4, "per_rank", tail.memory.size(), [&](std::size_t i) { return rank_memory_json(tail.memory[i]); });
  out += "\n  },\n";
  append_key(out, 2, "summary");
  append_nested(out, tail.summary, 2);
  out += "\n}\n";
  return out;
}

std::size_t plan_text_size_estimate(const std::vector<ShardingOption>& tables) {
  // A rough size (a shard takes about 500 bytes), so that a plan of tens of
  // megabytes is not copied as it grows.
  std::size_t shards = 0;
  for (const ShardingOption& option : tables) shards += option.shards.size();
  return shards * 520 + tables.size() * 700;
}

std::string plan_to_text(const PlanFileInput& in) {
  std::string out = plan_text_head(in);
  out.reserve(out.size() + plan_text_size_estimate(*in.plan) + static_cast<std::size_t>(in.topology->world_size) * 500);
  append_plan_text_tables(out, plan_text_tables(*in.plan), *in.topology);
  out += plan_text_tail(in);
  return out;
}

PlanFileInput plan_file_input(const PlanRun& run, const std::string& model_name, const std::string& inputs_sha256,
                              const std::string& inputs_text) {
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
  return file;
}

nlohmann::ordered_json plan_file_json(const PlanRun& run, const std::string& model_name,
                                      const std::string& inputs_sha256, const std::string& inputs_text) {
  return plan_to_json(plan_file_input(run, model_name, inputs_sha256, inputs_text));
}

std::string plan_file_text(const PlanRun& run, const std::string& model_name, const std::string& inputs_sha256,
                           const std::string& inputs_text) {
  return plan_to_text(plan_file_input(run, model_name, inputs_sha256, inputs_text));
}

}  // namespace shardplan
