#include "kjt/plan_reader.h"

#include <map>
#include <set>
#include <type_traits>

#include "config/limits.h"
#include "config/loader.h"
#include "document/document.h"
#include "document/input_text.h"
#include "document/node_reader.h"

namespace shardplan::kjt {

namespace {

// One shard as the plan gives it, kept for the check against the model.
template <class Node>
struct PlannedShard {
  std::int64_t row_offset = 0, column_offset = 0, rows = 0, columns = 0;
  Node node;
  std::string path;
};

template <class Node>
struct PlannedTable {
  ShardingType sharding_type = ShardingType::kTableWise;
  std::vector<PlacedShard> shards;
  std::vector<PlannedShard<Node>> extents;  // one per shard that was read whole
  Node node;
  std::string path;
};

// Reports every key given twice in `map` (the plan's other keys are not checked:
// they are the planner's own output).
template <class Node>
void report_duplicate_keys(BasicNodeReader<Node>& r, const Node& map, const std::string& path) {
  // The JSON reader refuses a duplicate key before any tree exists (json_tree.h):
  // nothing to find, and a module of thousands of tables is not scanned for it.
  if constexpr (std::is_same_v<Node, JsonNode>) return;
  std::vector<std::string> keys;
  for (auto it = map.begin(); it != map.end(); ++it)
    if (it->first.IsScalar()) keys.push_back(it->first.Scalar());
  r.check_keys(map, path, keys);
}

// The plan-versus-model rules for one table: every shard inside the table, the
// shards covering it exactly once (each rank a whole copy for data_parallel), and
// table_wise in one shard. Reported at the table or the shard.
template <class Node>
void check_against_model(BasicNodeReader<Node>& r, const PlannedTable<Node>& planned, const TableConfig& table) {
  const std::string& name = table.name;
  if (planned.sharding_type == ShardingType::kTableWise && planned.extents.size() > 1)
    r.report(planned.node, join_key(planned.path, "shards"),
             "a table_wise table has exactly 1 shard, found " + std::to_string(planned.extents.size()));
  const std::int64_t rows = table.num_embeddings, columns = table.embedding_dim;
  bool inside = true;
  __int128 area = 0;
  for (const PlannedShard<Node>& s : planned.extents) {
    if (s.row_offset > rows - s.rows || s.column_offset > columns - s.columns) {
      r.report(s.node, join_key(s.path, "sizes"),
               "the shard [" + std::to_string(s.row_offset) + ".." + std::to_string(s.row_offset) + "+" +
                   std::to_string(s.rows) + ") x [" + std::to_string(s.column_offset) + ".." +
                   std::to_string(s.column_offset) + "+" + std::to_string(s.columns) + ") is outside table '" + name +
                   "' (" + std::to_string(rows) + " rows, " + std::to_string(columns) + " columns)");
      inside = false;
      continue;
    }
    if (planned.sharding_type == ShardingType::kDataParallel && (s.rows != rows || s.columns != columns)) {
      r.report(s.node, join_key(s.path, "sizes"),
               "a data_parallel shard holds the whole table: expected [" + std::to_string(rows) + ", " +
                   std::to_string(columns) + "], found [" + std::to_string(s.rows) + ", " + std::to_string(s.columns) +
                   "]");
      inside = false;
      continue;
    }
    area += static_cast<__int128>(s.rows) * s.columns;
  }
  if (!inside || planned.sharding_type == ShardingType::kDataParallel || planned.extents.empty()) return;
  if (area != static_cast<__int128>(rows) * columns)
    r.report(planned.node, join_key(planned.path, "shards"),
             "the shards of table '" + name + "' do not cover its " + std::to_string(rows) + " x " +
                 std::to_string(columns) + " entries exactly once");
}

// Only the parts of the plan this mode uses are read; the rest of the file is the
// planner's own output (checked by its schema), so other keys are not reported.
template <class Node>
std::map<std::string, std::map<std::string, PlannedTable<Node>>> read_plan(BasicNodeReader<Node>& r, const Node& root,
                                                                           std::int64_t& world_size,
                                                                           std::int64_t& local_world_size) {
  std::map<std::string, std::map<std::string, PlannedTable<Node>>> out;
  if (!r.expect_map(root, "")) return out;
  report_duplicate_keys(r, root, "");
  Node topology = r.field(root, "", "topology", true);
  if (topology.IsDefined() && r.expect_map(topology, "topology")) {
    report_duplicate_keys(r, topology, "topology");
    // Bounded before anything is sized by the world size: every collective is a
    // world_size x world_size matrix (kMaxA2aPlanWorldSize, plan_traffic.h).
    const IntegerRule ranks{Range::kPositive, kMaxWorldSize};
    if (auto w = read_integer(r, r.field(topology, "topology", "world_size", true), "topology.world_size",
                              IntegerRule{Range::kPositive, kMaxA2aPlanWorldSize}))
      world_size = *w;
    if (auto l = read_integer(r, r.field(topology, "topology", "local_world_size", true), "topology.local_world_size",
                              ranks))
      local_world_size = *l;
  }
  if (!r.diagnostics().empty()) return out;  // rank checks below need the world size
  Node plan = r.field(root, "", "plan", true);
  if (!plan.IsDefined() || !r.expect_map(plan, "plan")) return out;
  report_duplicate_keys(r, plan, "plan");
  for (auto module = plan.begin(); module != plan.end(); ++module) {
    const std::string module_path = module->first.Scalar();
    const std::string mpath = join_key("plan", module_path);
    if (!r.expect_map(module->second, mpath)) continue;
    report_duplicate_keys(r, module->second, mpath);
    for (auto table = module->second.begin(); table != module->second.end(); ++table) {
      const std::string name = table->first.Scalar();
      const std::string tpath = join_key(mpath, name);
      if (!r.expect_map(table->second, tpath)) continue;
      report_duplicate_keys(r, table->second, tpath);
      if (out[module_path].count(name)) continue;  // a duplicate key, reported above
      PlannedTable<Node> planned;
      planned.node = table->second;
      planned.path = tpath;
      if (auto type = r.name(r.field(table->second, tpath, "sharding_type", true), join_key(tpath, "sharding_type"),
                             "sharding type", kShardingTypeNames))
        planned.sharding_type = *type;
      const std::string spath = join_key(tpath, "shards");
      Node shards = r.field(table->second, tpath, "shards", true);
      if (shards.IsDefined() && shards.IsSequence()) {
        for (std::size_t i = 0; i < shards.size(); ++i) {
          const std::string path = join_index(spath, i);
          if (!r.expect_map(shards[i], path)) continue;
          report_duplicate_keys(r, shards[i], path);
          auto rank = r.integer(r.field(shards[i], path, "rank", true), join_key(path, "rank"), Range::kNonNegative);
          // [rows, columns] and [row, column]: non-negative integers (offsets optional here).
          auto pair_of = [&](const char* key, bool required) -> std::optional<std::pair<std::int64_t, std::int64_t>> {
            Node node = r.field(shards[i], path, key, required);
            if (!node.IsDefined())
              return required ? std::nullopt : std::optional(std::pair<std::int64_t, std::int64_t>{0, 0});
            if (!node.IsSequence() || node.size() != 2) {
              r.report(node, join_key(path, key),
                       std::string("expected [") + (key[0] == 's' ? "rows, columns" : "row, column") + "], found " +
                           BasicNodeReader<Node>::describe(node));
              return std::nullopt;
            }
            auto a = r.integer(node[0], join_index(join_key(path, key), 0), Range::kNonNegative);
            auto b = r.integer(node[1], join_index(join_key(path, key), 1), Range::kNonNegative);
            if (!a || !b) return std::nullopt;
            return std::pair{*a, *b};
          };
          auto sizes = pair_of("sizes", true);
          auto offsets = pair_of("offsets", false);
          if (rank && *rank >= world_size)
            r.report(shards[i]["rank"], join_key(path, "rank"),
                     "rank " + std::to_string(*rank) + " is outside the world size " + std::to_string(world_size));
          else if (rank && sizes && offsets) {
            planned.shards.push_back(PlacedShard{*rank, sizes->first});
            planned.extents.push_back(
                PlannedShard<Node>{offsets->first, offsets->second, sizes->first, sizes->second, shards[i], path});
          }
        }
      } else if (shards.IsDefined()) {
        r.report(shards, spath, "expected a list, found " + BasicNodeReader<Node>::describe(shards));
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

namespace {
// The plan's traffic input from its tree (`root`, read by `r`).
template <class Node>
PlanTrafficInput plan_traffic_input_of(BasicNodeReader<Node>& r, const Node& root, const ModelConfig& model,
                                       const std::string& model_path, Protocol protocol,
                                       const TopologyConfig* topology) {
  PlanTrafficInput input;
  input.protocol = protocol;
  input.batch_size = model.batch_size;
  auto plan = read_plan(r, root, input.world_size, input.local_world_size);
  r.throw_if_any();
  if (topology) {
    // The traffic is computed from the plan's topology: a plan made for another
    // world than the config's is the wrong plan, not a smaller question.
    auto mismatch = [&](const char* key, std::int64_t planned, std::int64_t configured) {
      if (planned != configured)
        r.report(root["topology"][key], std::string("topology.") + key,
                 "the plan is for " + std::string(key) + " " + std::to_string(planned) + ", the topology of " +
                     model_path + " has " + std::to_string(configured));
    };
    mismatch("world_size", input.world_size, topology->world_size);
    if (topology->local_world_size) mismatch("local_world_size", input.local_world_size, *topology->local_world_size);
    r.throw_if_any();
  }
  // local_world_size need not divide world_size (torchrec's Topology takes any; the
  // last host is then smaller): host(r) = r / local_world_size either way.

  std::set<std::pair<std::string, std::string>> used;
  for (const ModuleConfig& module : model.modules)
    for (const TableConfig& table : module.tables) {
      auto module_it = plan.find(module.path);
      if (module_it == plan.end() || !module_it->second.count(table.name)) {
        r.report(
            root["plan"], "plan",
            "no sharding for table '" + table.name + "' of module '" + module.path + "' (model " + model_path + ")");
        continue;
      }
      used.insert({module.path, table.name});
      const PlannedTable<Node>& planned = module_it->second.at(table.name);
      check_against_model(r, planned, table);
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
}  // namespace

PlanTrafficInput read_plan_traffic_input(const std::string& plan_path, const ModelConfig& model,
                                         const std::string& model_path, Protocol protocol,
                                         const TopologyConfig* topology) {
  // As read_document reads it ("-" is stdin); a JSON plan into the compact tree
  // (a plan of thousands of tables on a thousand ranks is tens of MB).
  const std::string file = input_name(plan_path);
  const std::string text = read_input_text(plan_path);
  if (is_json_input(file, text)) {
    const JsonDocument doc = parse_json_document(file, text);
    JsonNodeReader r(doc.file);
    return plan_traffic_input_of(r, doc.root(), model, model_path, protocol, topology);
  }
  const Document doc = parse_document(file, text);
  const YAML::Node& root = doc.root;  // const: operator[] must not add keys
  NodeReader r(doc.file);
  return plan_traffic_input_of(r, root, model, model_path, protocol, topology);
}

}  // namespace shardplan::kjt
