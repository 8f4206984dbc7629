#include "config/plan_file.h"
#include "config/plan_file_tree.h"

#include <map>

#include "config/limits.h"
#include "document/document.h"
#include "document/input_text.h"
#include "document/node_reader.h"

namespace shardplan {

namespace {

constexpr const char* kPlanSchemaId = "shardplan.plan/v1";

// The keys schemas/plan.schema.json allows where it says additionalProperties: false.
const std::vector<std::string> kRootKeys{"schema",   "shardplan", "model",  "topology", "plan",
                                         "per_rank", "reserved",  "memory", "summary"};
const std::vector<std::string> kToolKeys{"version", "inputs_sha256", "inputs"};
const std::vector<std::string> kMemoryKeys{"basis", "per_rank"};
const std::vector<std::string> kMemoryRankKeys{"hbm_used", "hbm_usable", "ddr_used", "ddr_usable"};

// The text of a scalar as JSON writes it: quoted strings quoted again.
template <class Node>
std::string plan_input_scalar_text(const Node& node) {
  if (node.IsNull()) return "null";
  if (node.Tag() == "!") return "\"" + node.Scalar() + "\"";
  return node.Scalar();
}

// Flattens "shardplan".inputs (planned-from model, topology, planner options).
template <class Node>
void flatten_plan_inputs(const Node& node, const std::string& path, std::vector<PlanFileInputField>& out) {
  if (node.IsMap()) {
    for (auto it = node.begin(); it != node.end(); ++it) {
      const std::string key = it->first.Scalar();
      flatten_plan_inputs(it->second, path.empty() ? key : path + "." + key, out);
    }
    return;
  }
  if (node.IsSequence()) {
    bool scalars = true;
    for (std::size_t i = 0; i < node.size(); ++i) scalars = scalars && !node[i].IsMap() && !node[i].IsSequence();
    if (scalars) {  // a list of names or numbers reads best whole: [row_wise, table_wise]
      std::string text = "[";
      for (std::size_t i = 0; i < node.size(); ++i) text += (i ? ", " : "") + node[i].Scalar();
      out.push_back({path, text + "]"});
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const Node& item = node[i];
      std::string label = std::to_string(i);
      if (item.IsMap() && item["name"] && item["name"].IsScalar())
        label = item["name"].Scalar();
      else if (item.IsMap() && item["path"] && item["path"].IsScalar())
        label = item["path"].Scalar();
      flatten_plan_inputs(item, path + "[" + label + "]", out);
    }
    return;
  }
  out.push_back({path, plan_input_scalar_text(node)});
}
const std::vector<std::string> kTopologyKeys{"world_size", "local_world_size", "compute_device", "devices"};
const std::vector<std::string> kTableKeys{
    "sharding_type",     "compute_kernel", "ranks",         "cache_params", "enforce_hbm", "stochastic_rounding",
    "bounds_check_mode", "output_dtype",   "total_storage", "total_perf",   "shards"};
const std::vector<std::string> kShardKeys{"rank", "placement", "offsets", "sizes", "perf", "storage"};
const std::vector<std::string> kRankKeys{"hbm", "ddr", "perf", "num_shards"};
const std::vector<std::string> kStorageKeys{"hbm", "ddr"};
const std::vector<std::string> kPerfKeys{"fwd_compute", "fwd_comms",        "bwd_compute",
                                         "bwd_comms",   "prefetch_compute", "total"};

// Reads either tree: yaml-cpp's (a YAML plan file) or the compact JSON one.
template <class Node>
class PlanReader {
 public:
  explicit PlanReader(BasicNodeReader<Node>& r) : r_(r) {}

  void read(const Node& root, PlanFile& out) {
    if (!r_.expect_map(root, "")) return;
    // Not a plan at all (a model, a topology, another tool's JSON): one message
    // rather than every key the schema requires.
    Node schema = r_.field(root, "", "schema");
    if (!schema.IsDefined() || !schema.IsScalar() || schema.Scalar() != kPlanSchemaId) {
      r_.report(schema.IsDefined() ? schema : root, "schema",
                std::string("not a plan file: schemas/plan.schema.json requires \"schema\": \"") + kPlanSchemaId +
                    "\", found " +
                    (schema.IsDefined() ? BasicNodeReader<Node>::describe(schema) : "no \"schema\" key"));
      return;
    }
    r_.check_keys(root, "", kRootKeys);
    if (auto model = r_.string(r_.field(root, "", "model", true), "model", false)) out.model = *model;
    Node tool = r_.field(root, "", "shardplan");
    if (tool.IsDefined() && r_.expect_map(tool, "shardplan")) {
      r_.check_keys(tool, "shardplan", kToolKeys);
      out.tool_version = r_.string(r_.field(tool, "shardplan", "version", true), "shardplan.version");
      out.inputs_sha256 = r_.string(r_.field(tool, "shardplan", "inputs_sha256", true), "shardplan.inputs_sha256");
      const Node inputs = r_.field(tool, "shardplan", "inputs");
      if (inputs.IsDefined() && r_.expect_map(inputs, "shardplan.inputs")) {
        out.inputs.emplace();
        flatten_plan_inputs(inputs, "", *out.inputs);
      }
    }
    read_topology(r_.field(root, "", "topology", true), out);
    read_plan(r_.field(root, "", "plan", true), out);
    read_ranks(r_.field(root, "", "per_rank", true), out);
    read_storage_list(r_.field(root, "", "reserved", true), "reserved", out.reserved);
    read_summary(r_.field(root, "", "summary", true), out.summary);
    read_memory(r_.field(root, "", "memory"), out);
    if (!r_.diagnostics().empty()) return;
    // What the schema cannot say: one entry per rank in every per-rank list.
    const auto count = static_cast<std::size_t>(out.world_size);
    auto check_count = [&](const char* key, std::size_t n) {
      if (n != count)
        r_.report(root[key], key,
                  "expected " + std::to_string(count) + " entries (topology.world_size), found " + std::to_string(n));
    };
    check_count("reserved", out.reserved.size());
    if (!out.tables.empty()) check_count("per_rank", out.ranks.size());
    check_count("topology", out.devices.size());
    if (root["memory"]) check_count("memory", out.memory.size());
  }

 private:
  BasicNodeReader<Node>& r_;

  int integer_of(const Node& map, const std::string& path, const char* key, Range range) {
    auto v = r_.integer(r_.field(map, path, key, true), join_key(path, key), range);
    return v ? static_cast<int>(*v) : 0;
  }

  PlanFileStorage storage(const Node& node, const std::string& path) {
    PlanFileStorage s;
    if (!node.IsDefined() || !r_.expect_map(node, path)) return s;
    r_.check_keys(node, path, kStorageKeys);
    // Bytes: never negative in a plan shardplan wrote.
    if (auto hbm = r_.integer(r_.field(node, path, "hbm", true), join_key(path, "hbm"), Range::kNonNegative))
      s.hbm = *hbm;
    if (auto ddr = r_.integer(r_.field(node, path, "ddr", true), join_key(path, "ddr"), Range::kNonNegative))
      s.ddr = *ddr;
    return s;
  }

  PlanFilePerf perf(const Node& node, const std::string& path) {
    PlanFilePerf p;
    if (!node.IsDefined() || !r_.expect_map(node, path)) return p;
    r_.check_keys(node, path, kPerfKeys);
    double* fields[] = {&p.fwd_compute, &p.fwd_comms, &p.bwd_compute, &p.bwd_comms, &p.prefetch_compute, &p.total};
    for (std::size_t i = 0; i < kPerfKeys.size(); ++i)
      if (auto v = r_.number(r_.field(node, path, kPerfKeys[i], true), join_key(path, kPerfKeys[i]))) *fields[i] = *v;
    return p;
  }

  void read_storage_list(const Node& node, const std::string& path, std::vector<PlanFileStorage>& out) {
    if (!node.IsDefined()) return;
    if (!node.IsSequence()) {
      r_.report(node, path, "expected a list, found " + BasicNodeReader<Node>::describe(node));
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) out.push_back(storage(node[i], join_index(path, i)));
  }

  void read_topology(const Node& node, PlanFile& out) {
    if (!node.IsDefined() || !r_.expect_map(node, "topology")) return;
    r_.check_keys(node, "topology", kTopologyKeys);
    // Bounded as a topology's are (limits.h) before anything is sized by them.
    if (auto w = read_integer(r_, r_.field(node, "topology", "world_size", true), "topology.world_size",
                              IntegerRule{Range::kPositive, kMaxWorldSize}))
      out.world_size = static_cast<int>(*w);
    if (auto l = read_integer(r_, r_.field(node, "topology", "local_world_size", true), "topology.local_world_size",
                              IntegerRule{Range::kPositive, kMaxWorldSize}))
      out.local_world_size = static_cast<int>(*l);
    if (auto device = r_.name(r_.field(node, "topology", "compute_device", true), "topology.compute_device",
                              "compute device", kComputeDeviceNames))
      out.compute_device = std::string(to_string(*device));
    read_storage_list(r_.field(node, "topology", "devices", true), "topology.devices", out.devices);
  }

  // [row, column] offsets or [rows, columns] sizes: non-negative integers.
  std::vector<std::int64_t> pair(const Node& node, const std::string& path) {
    if (!node.IsDefined()) return {};
    if (!node.IsSequence() || node.size() != 2) {
      r_.report(node, path, "expected a list of 2 integers, found " + BasicNodeReader<Node>::describe(node));
      return {};
    }
    std::vector<std::int64_t> out;
    for (std::size_t i = 0; i < 2; ++i)
      if (auto v = r_.integer(node[i], join_index(path, i), Range::kNonNegative)) out.push_back(*v);
    return out;
  }

  void read_table(const std::string& module, const std::string& name, const Node& node, const std::string& path,
                  PlanFile& out) {
    if (!r_.expect_map(node, path)) return;
    r_.check_keys(node, path, kTableKeys);
    PlanFileTable t;
    t.module = module;
    t.name = name;
    if (!node.Mark().is_null()) {
      t.line = node.Mark().line + 1;
      t.column = node.Mark().column + 1;
    }
    if (auto type = r_.name(r_.field(node, path, "sharding_type", true), join_key(path, "sharding_type"),
                            "sharding type", kShardingTypeNames))
      t.sharding_type = *type;
    if (auto kernel = r_.name(r_.field(node, path, "compute_kernel", true), join_key(path, "compute_kernel"),
                              "compute kernel", kComputeKernelNames))
      t.compute_kernel = *kernel;
    Node ranks = r_.field(node, path, "ranks", true);
    if (ranks.IsDefined()) {
      auto list = r_.template list<std::int64_t>(
          ranks, join_key(path, "ranks"), false,
          [&](const Node& n, const std::string& p) { return r_.integer(n, p, Range::kNonNegative); });
      if (list)
        for (std::int64_t rank : *list) t.ranks.push_back(static_cast<int>(rank));
    }
    r_.field(node, path, "cache_params", true);
    t.total_storage = storage(r_.field(node, path, "total_storage", true), join_key(path, "total_storage"));
    if (auto v = r_.number(r_.field(node, path, "total_perf", true), join_key(path, "total_perf"))) t.total_perf = *v;
    const std::string spath = join_key(path, "shards");
    Node shards = r_.field(node, path, "shards", true);
    if (shards.IsDefined() && !shards.IsSequence())
      r_.report(shards, spath, "expected a list, found " + BasicNodeReader<Node>::describe(shards));
    else if (shards.IsDefined())
      for (std::size_t i = 0; i < shards.size(); ++i) {
        const std::string p = join_index(spath, i);
        if (!r_.expect_map(shards[i], p)) continue;
        r_.check_keys(shards[i], p, kShardKeys);
        PlanFileShard s;
        s.rank = integer_of(shards[i], p, "rank", Range::kNonNegative);
        if (out.world_size > 0 && s.rank >= out.world_size)
          r_.report(shards[i]["rank"], join_key(p, "rank"),
                    "rank " + std::to_string(s.rank) + " is outside the world size " + std::to_string(out.world_size));
        r_.string(r_.field(shards[i], p, "placement", true), join_key(p, "placement"));
        s.offsets = pair(r_.field(shards[i], p, "offsets", true), join_key(p, "offsets"));
        s.sizes = pair(r_.field(shards[i], p, "sizes", true), join_key(p, "sizes"));
        s.perf = perf(r_.field(shards[i], p, "perf", true), join_key(p, "perf"));
        s.storage = storage(r_.field(shards[i], p, "storage", true), join_key(p, "storage"));
        t.shards.push_back(std::move(s));
      }
    out.tables.push_back(std::move(t));
  }

  void read_plan(const Node& node, PlanFile& out) {
    if (!node.IsDefined() || !r_.expect_map(node, "plan")) return;
    std::map<std::string, SourcePos> fqns;
    for (auto module = node.begin(); module != node.end(); ++module) {
      const std::string module_path = module->first.Scalar();
      const std::string mpath = join_key("plan", module_path);
      if (!r_.expect_map(module->second, mpath)) continue;
      for (auto table = module->second.begin(); table != module->second.end(); ++table) {
        // One table, one entry: a second one (a duplicate key, or module "a" table
        // "b.c" beside module "a.b" table "c") is refused, not silently shown twice.
        const std::string fqn = module_path + "." + table->first.Scalar();
        auto [first, inserted] = fqns.emplace(fqn, r_.pos(table->first));
        if (!inserted) {
          r_.report(table->first, join_key(mpath, table->first.Scalar()),
                    "duplicate table '" + fqn + "' (first at line " + std::to_string(first->second.line) + ", column " +
                        std::to_string(first->second.col) + ")");
          continue;
        }
        read_table(module_path, table->first.Scalar(), table->second, join_key(mpath, table->first.Scalar()), out);
      }
    }
  }

  void read_ranks(const Node& node, PlanFile& out) {
    if (!node.IsDefined()) return;
    if (!node.IsSequence()) {
      r_.report(node, "per_rank", "expected a list, found " + BasicNodeReader<Node>::describe(node));
      return;
    }
    for (std::size_t i = 0; i < node.size(); ++i) {
      const std::string p = join_index("per_rank", i);
      if (!r_.expect_map(node[i], p)) continue;
      r_.check_keys(node[i], p, kRankKeys);
      PlanFileRank rank;
      if (auto hbm = r_.integer(r_.field(node[i], p, "hbm", true), join_key(p, "hbm"), Range::kNonNegative))
        rank.storage.hbm = *hbm;
      if (auto ddr = r_.integer(r_.field(node[i], p, "ddr", true), join_key(p, "ddr"), Range::kNonNegative))
        rank.storage.ddr = *ddr;
      rank.perf = perf(r_.field(node[i], p, "perf", true), join_key(p, "perf"));
      rank.num_shards = integer_of(node[i], p, "num_shards", Range::kNonNegative);
      out.ranks.push_back(rank);
    }
  }

  void read_memory(const Node& node, PlanFile& out) {
    if (!node.IsDefined() || !r_.expect_map(node, "memory")) return;
    r_.check_keys(node, "memory", kMemoryKeys);
    r_.string(r_.field(node, "memory", "basis", true), "memory.basis");
    const Node ranks = r_.field(node, "memory", "per_rank", true);
    if (!ranks.IsDefined()) return;
    if (!ranks.IsSequence()) {
      r_.report(ranks, "memory.per_rank", "expected a list, found " + BasicNodeReader<Node>::describe(ranks));
      return;
    }
    for (std::size_t i = 0; i < ranks.size(); ++i) {
      const std::string p = join_index("memory.per_rank", i);
      if (!r_.expect_map(ranks[i], p)) continue;
      r_.check_keys(ranks[i], p, kMemoryRankKeys);
      PlanFileMemory m;
      std::int64_t* fields[] = {&m.used.hbm, &m.usable.hbm, &m.used.ddr, &m.usable.ddr};
      for (std::size_t k = 0; k < kMemoryRankKeys.size(); ++k)
        if (auto v = r_.integer(r_.field(ranks[i], p, kMemoryRankKeys[k], true), join_key(p, kMemoryRankKeys[k]),
                                Range::kNonNegative))
          *fields[k] = *v;
      out.memory.push_back(m);
    }
  }

  void read_summary(const Node& node, PlanFileSummary& s) {
    if (!node.IsDefined() || !r_.expect_map(node, "summary")) return;
    // additionalProperties: true here (later versions add lines to the summary).
    auto number = [&](const char* key, double& to) {
      if (auto v = r_.number(r_.field(node, "summary", key, true), join_key("summary", key))) to = *v;
    };
    auto integer = [&](const char* key, std::int64_t& to) {
      if (auto v = r_.integer(r_.field(node, "summary", key, true), join_key("summary", key))) to = *v;
    };
    number("perf_rating", s.perf_rating);
    number("max_rank_perf", s.max_rank_perf);
    integer("max_rank_hbm", s.max_rank_hbm);
    integer("total_hbm", s.total_hbm);
    integer("total_ddr", s.total_ddr);
    integer("num_proposals", s.num_proposals);
    integer("num_plans", s.num_plans);
    if (auto v =
            r_.string(r_.field(node, "summary", "storage_reservation", true), "summary.storage_reservation", false))
      s.storage_reservation = *v;
    const Node bound = r_.field(node, "summary", "lower_bound");
    if (bound.IsDefined() && !bound.IsNull() && r_.expect_map(bound, "summary.lower_bound")) {
      auto optional_number = [&](const char* key, std::optional<double>& to) {
        const Node value = r_.field(bound, "summary.lower_bound", key);
        if (value.IsDefined() && !value.IsNull()) to = r_.number(value, join_key("summary.lower_bound", key));
      };
      optional_number("value", s.lower_bound);
      optional_number("gap", s.lower_bound_gap);
      const Node binding = r_.field(bound, "summary.lower_bound", "binding");
      if (binding.IsDefined() && !binding.IsNull())
        if (auto v = r_.string(binding, "summary.lower_bound.binding", false)) s.lower_bound_binding = *v;
    }
  }
};

}  // namespace

PlanFile read_plan_file(const std::string& path) { return parse_plan_file(input_name(path), read_input_text(path)); }

namespace {
template <class Node>
PlanFile read_plan_tree(const std::string& file, const Node& root) {
  BasicNodeReader<Node> r(file);
  PlanFile out;
  out.file = file;
  PlanReader<Node>(r).read(root, out);
  r.throw_if_any();
  return out;
}

// Whether `root` has a key a plan file's top level has and no planner input has.
template <class Node>
bool has_plan_file_key(const Node& root) {
  if (!root.IsMap()) return false;
  for (auto it = root.begin(); it != root.end(); ++it)
    if (it->first.IsScalar() && (it->first.Scalar() == "schema" || it->first.Scalar() == "shardplan")) return true;
  return false;
}
}  // namespace

PlanFile read_plan_file_tree(const std::string& file, const YAML::Node& root) { return read_plan_tree(file, root); }
PlanFile read_plan_file_tree(const std::string& file, const JsonNode& root) { return read_plan_tree(file, root); }

PlanFile parse_plan_file(const std::string& file, std::string_view text) {
  // JSON (what `shardplan plan` writes) into the compact tree: a plan of thousands
  // of tables on a thousand ranks is tens of MB, which yaml-cpp's tree would take
  // most of a GB to hold. YAML plans into yaml-cpp's; the same reader reads both.
  if (is_json_input(file, text)) {
    const JsonDocument doc = parse_json_document(file, text);
    return read_plan_tree(doc.file, doc.root());
  }
  const Document doc = parse_document(file, text);
  const YAML::Node& root = doc.root;  // const: operator[] must not add keys
  return read_plan_tree(doc.file, root);
}

std::optional<PlanFile> parse_if_plan_file(const std::string& file, std::string_view text) {
  // Both keys are words of the text: without either, nothing to parse here (a
  // large model is then parsed once, by its own reader).
  if (text.find("schema") == std::string_view::npos && text.find("shardplan") == std::string_view::npos)
    return std::nullopt;
  if (is_json_input(file, text)) {
    const JsonDocument doc = parse_json_document(file, text);
    if (!has_plan_file_key(doc.root())) return std::nullopt;
    return read_plan_tree(doc.file, doc.root());
  }
  const Document doc = parse_document(file, text);
  const YAML::Node& root = doc.root;
  if (!has_plan_file_key(root)) return std::nullopt;
  return read_plan_tree(doc.file, root);
}

}  // namespace shardplan
