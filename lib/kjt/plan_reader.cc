#include "kjt/plan_reader.h"

#include <map>
#include <set>

#include "config/document.h"
#include "config/loader.h"
#include "config/node_reader.h"

namespace shardplan::kjt {

namespace {

struct PlannedTable {
  ShardingType sharding_type = ShardingType::kTableWise;
  std::vector<PlacedShard> shards;
  YAML::Node node;
  std::string path;
};

// Only the parts of the plan this mode uses are read; the rest of the file is the
// planner's own output (checked by its schema), so other keys are not reported.
std::map<std::string, std::map<std::string, PlannedTable>> read_plan(NodeReader& r, const YAML::Node& root,
                                                                     std::int64_t& world_size,
                                                                     std::int64_t& local_world_size) {
  std::map<std::string, std::map<std::string, PlannedTable>> out;
  if (!r.expect_map(root, "")) return out;
  YAML::Node topology = r.field(root, "", "topology", true);
  if (topology.IsDefined() && r.expect_map(topology, "topology")) {
    if (auto w = r.integer(r.field(topology, "topology", "world_size", true), "topology.world_size", Range::kPositive))
      world_size = *w;
    if (auto l = r.integer(r.field(topology, "topology", "local_world_size", true), "topology.local_world_size",
                           Range::kPositive))
      local_world_size = *l;
  }
  YAML::Node plan = r.field(root, "", "plan", true);
  if (!plan.IsDefined() || !r.expect_map(plan, "plan")) return out;
  for (auto module = plan.begin(); module != plan.end(); ++module) {
    const std::string module_path = module->first.Scalar();
    const std::string mpath = join_key("plan", module_path);
    if (!r.expect_map(module->second, mpath)) continue;
    for (auto table = module->second.begin(); table != module->second.end(); ++table) {
      const std::string name = table->first.Scalar();
      const std::string tpath = join_key(mpath, name);
      if (!r.expect_map(table->second, tpath)) continue;
      PlannedTable planned;
      planned.node = table->second;
      planned.path = tpath;
      if (auto type = r.name(r.field(table->second, tpath, "sharding_type", true), join_key(tpath, "sharding_type"),
                             "sharding type", kShardingTypeNames))
        planned.sharding_type = *type;
      const std::string spath = join_key(tpath, "shards");
      YAML::Node shards = r.field(table->second, tpath, "shards", true);
      if (shards.IsDefined() && shards.IsSequence()) {
        for (std::size_t i = 0; i < shards.size(); ++i) {
          const std::string path = join_index(spath, i);
          if (!r.expect_map(shards[i], path)) continue;
          auto rank = r.integer(r.field(shards[i], path, "rank", true), join_key(path, "rank"), Range::kNonNegative);
          YAML::Node sizes = r.field(shards[i], path, "sizes", true);
          std::optional<std::int64_t> rows;
          if (sizes.IsDefined() && sizes.IsSequence() && sizes.size() == 2)
            rows = r.integer(sizes[0], join_index(join_key(path, "sizes"), 0), Range::kNonNegative);
          else if (sizes.IsDefined())
            r.report(sizes, join_key(path, "sizes"), "expected [rows, columns], found " + NodeReader::describe(sizes));
          if (rank && *rank >= world_size)
            r.report(shards[i]["rank"], join_key(path, "rank"),
                     "rank " + std::to_string(*rank) + " is outside the world size " + std::to_string(world_size));
          else if (rank && rows)
            planned.shards.push_back(PlacedShard{*rank, *rows});
        }
      } else if (shards.IsDefined()) {
        r.report(shards, spath, "expected a list, found " + NodeReader::describe(shards));
      }
      out[module_path].emplace(name, std::move(planned));
    }
  }
  return out;
}

}  // namespace

PlanTrafficInput read_plan_traffic_input(const std::string& plan_path, const std::string& model_path,
                                         Protocol protocol) {
  return read_plan_traffic_input(plan_path, load_model(model_path), model_path, protocol);
}

PlanTrafficInput read_plan_traffic_input(const std::string& plan_path, const ModelConfig& model,
                                         const std::string& model_path, Protocol protocol) {
  Document doc = read_document(plan_path);
  const YAML::Node& root = doc.root;  // const: operator[] must not add keys
  NodeReader r(doc.file);
  PlanTrafficInput input;
  input.protocol = protocol;
  input.batch_size = model.batch_size;
  auto plan = read_plan(r, root, input.world_size, input.local_world_size);
  r.throw_if_any();
  // local_world_size need not divide world_size (torchrec's Topology takes any; the
  // last host is then smaller): host(r) = r / local_world_size either way.

  std::set<std::pair<std::string, std::string>> used;
  for (const ModuleConfig& module : model.modules)
    for (const TableConfig& table : module.tables) {
      auto module_it = plan.find(module.path);
      if (module_it == plan.end() || !module_it->second.count(table.name)) {
        r.report(root["plan"], "plan",
                 "no sharding for table '" + table.name + "' of module '" + module.path + "' (model " + model_path + ")");
        continue;
      }
      used.insert({module.path, table.name});
      const PlannedTable& planned = module_it->second.at(table.name);
      TableTraffic t;
      t.module_path = module.path;
      t.table = table.name;
      t.sharding_type = planned.sharding_type;
      t.features = table.feature_names;
      t.num_embeddings = table.num_embeddings;
      t.shards = planned.shards;
      if (t.shards.empty() && t.sharding_type != ShardingType::kDataParallel)
        r.report(planned.node, planned.path, "table '" + table.name + "' has no shards in the plan");
      ParameterConstraintsConfig constraints;
      if (auto c = model.constraints.find(table.name); c != model.constraints.end()) constraints = c->second;
      t.weighted = constraints.is_weighted;
      // One length per feature and sample; values as torchrec's shard estimators
      // count a table's inputs: sum over its pooling factors x batch size (the
      // per-feature batch_sizes constraint when given, else the model's).
      t.lengths_per_source = static_cast<std::int64_t>(table.feature_names.size()) * model.batch_size;
      for (std::size_t i = 0; i < constraints.pooling_factors.size(); ++i) {
        std::int64_t batch = model.batch_size;
        if (constraints.batch_sizes && i < constraints.batch_sizes->size()) batch = (*constraints.batch_sizes)[i];
        t.values_per_source += constraints.pooling_factors[i] * static_cast<double>(batch);
      }
      input.tables.push_back(std::move(t));
    }
  for (const auto& [module_path, tables] : plan)
    for (const auto& [name, planned] : tables)
      if (!used.count({module_path, name}))
        r.report(planned.node, planned.path,
                 "table '" + name + "' of module '" + module_path + "' is not in the model " + model_path);
  r.throw_if_any();
  return input;
}

}  // namespace shardplan::kjt
