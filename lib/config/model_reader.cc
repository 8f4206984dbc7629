// The model section: modules, tables, dense part and per-table constraints, with
// the cross-checks that need the whole model (unique names, constraint targets,
// per-feature list lengths).
#include <map>
#include <set>

#include "config/known_keys.h"
#include "config/limits.h"
#include "config/section_readers.h"

namespace shardplan {

namespace {

template <class Node>
std::optional<std::string> read_string(BasicNodeReader<Node>& r, const Node& n, const std::string& p) {
  return r.string(n, p);
}

template <class Node>
TableConfig read_table(BasicNodeReader<Node>& r, const Node& node, const std::string& path) {
  TableConfig table;
  table.pos = r.pos(node);
  if (!r.expect_map(node, path)) return table;
  r.check_keys(node, path, known_keys("table"));
  if (Node n = r.field(node, path, "name", true); n.IsDefined())
    assign(table.name, r.string(n, join_key(path, "name")));
  if (Node n = r.field(node, path, "num_embeddings", true); n.IsDefined())
    assign(table.num_embeddings,
           at_most(r, n, join_key(path, "num_embeddings"),
                   r.integer(n, join_key(path, "num_embeddings"), Range::kPositive), kMaxNumEmbeddings));
  if (Node n = r.field(node, path, "embedding_dim", true); n.IsDefined())
    assign(table.embedding_dim,
           at_most(r, n, join_key(path, "embedding_dim"),
                   r.integer(n, join_key(path, "embedding_dim"), Range::kPositive), kMaxEmbeddingDim));
  with_field(r, node, path, "data_type", [&](const Node& n, const std::string& p) {
    assign(table.data_type, r.name(n, p, "data type", kDataTypeNames));
  });
  with_field(r, node, path, "feature_names", [&](const Node& n, const std::string& p) {
    if (!check_list_length(r, n, p, kMaxFeaturesPerTable)) return;
    // An empty list is "not given" (torchrec): the default [<name>] below.
    assign(table.feature_names, r.template list<std::string>(n, p, false, [&](const Node& e, const std::string& ep) {
      return read_string(r, e, ep);
    }));
  });
  if (table.feature_names.empty() && !table.name.empty()) table.feature_names = {table.name};
  check_table_elements(r, node, path, table);
  return table;
}

template <class Node>
ModuleConfig read_module(BasicNodeReader<Node>& r, const Node& node, const std::string& path) {
  ModuleConfig module;
  module.pos = r.pos(node);
  if (!r.expect_map(node, path)) return module;
  r.check_keys(node, path, known_keys("module"));
  if (Node n = r.field(node, path, "path", true); n.IsDefined())
    assign(module.path, r.string(n, join_key(path, "path")));
  with_field(r, node, path, "kind", [&](const Node& n, const std::string& p) {
    assign(module.kind, r.name(n, p, "module kind", kModuleKindNames));
  });
  if (Node n = r.field(node, path, "tables", true); n.IsDefined()) {
    std::string tables_path = join_key(path, "tables");
    if (!n.IsSequence()) {
      r.report(n, tables_path, "expected a list of tables, found " + BasicNodeReader<Node>::describe(n));
    } else if (n.size() == 0) {
      r.report(n, tables_path, "expected at least one table");
    } else if (check_list_length(r, n, tables_path, kMaxTables)) {
      for (std::size_t i = 0; i < n.size(); ++i)
        module.tables.push_back(read_table(r, n[i], join_index(tables_path, i)));
    }
  }
  // torchrec's EmbeddingCollection requires one embedding_dim for all its tables.
  if (module.kind == ModuleKind::kEmbedding && !module.tables.empty()) {
    const TableConfig& first = module.tables.front();
    for (std::size_t i = 1; i < module.tables.size(); ++i) {
      const TableConfig& t = module.tables[i];
      if (t.embedding_dim > 0 && first.embedding_dim > 0 && t.embedding_dim != first.embedding_dim)
        r.report(t.pos, join_key(join_index(join_key(path, "tables"), i), "embedding_dim"),
                 "an embedding (EmbeddingCollection) module needs one embedding_dim for all its tables: '" + t.name +
                     "' has " + std::to_string(t.embedding_dim) + ", '" + first.name + "' has " +
                     std::to_string(first.embedding_dim));
    }
  }
  return module;
}

template <class Node>
CacheParams read_cache_params(BasicNodeReader<Node>& r, const Node& node, const std::string& path) {
  CacheParams cache;
  if (!r.expect_map(node, path)) return cache;
  r.check_keys(node, path, known_keys("cache_params"));
  with_field(r, node, path, "load_factor", [&](const Node& n, const std::string& p) {
    auto value = r.number(n, p);
    if (value && (*value <= 0 || *value > 1)) {
      r.report(n, p, "expected a load factor in (0, 1], found " + n.Scalar());
      value.reset();
    }
    cache.load_factor = value;
  });
  with_field(r, node, path, "algorithm", [&](const Node& n, const std::string& p) {
    cache.algorithm = r.name(n, p, "cache algorithm", kCacheAlgorithmNames);
  });
  with_field(r, node, path, "reserved_memory",
             [&](const Node& n, const std::string& p) { cache.reserved_memory = r.number(n, p, Range::kNonNegative); });
  with_field(r, node, path, "precision",
             [&](const Node& n, const std::string& p) { cache.precision = r.name(n, p, "data type", kDataTypeNames); });
  with_field(r, node, path, "prefetch_pipeline",
             [&](const Node& n, const std::string& p) { cache.prefetch_pipeline = r.boolean(n, p); });
  return cache;
}

// Where a well-formed pooling_factors list was written (it has a default, so
// "parsed" cannot be told from the config alone). A default-constructed
// YAML::Node counts as defined, so presence is kept as a flag.
template <class Node>
struct PerFeatureLists {
  Node pooling_factors;
  bool has_pooling_factors = false;
};

template <class Node>
ParameterConstraintsConfig read_constraint(BasicNodeReader<Node>& r, const Node& node, const std::string& path,
                                           PerFeatureLists<Node>& lists) {
  ParameterConstraintsConfig c;
  if (!r.expect_map(node, path)) return c;
  r.check_keys(node, path, known_keys("constraints"));
  with_field(r, node, path, "sharding_types", [&](const Node& n, const std::string& p) {
    // Empty lists are "not given" in torchrec's _filter_sharding_types and
    // _filter_compute_kernels (enumerators.py); the enumerator tests for that.
    c.sharding_types = r.template list<ShardingType>(n, p, false, [&](const Node& e, const std::string& ep) {
      return r.name(e, ep, "sharding type", kShardingTypeNames);
    });
  });
  with_field(r, node, path, "compute_kernels", [&](const Node& n, const std::string& p) {
    c.compute_kernels = r.template list<ComputeKernel>(n, p, false, [&](const Node& e, const std::string& ep) {
      return r.name(e, ep, "compute kernel", kComputeKernelNames);
    });
  });
  with_field(r, node, path, "min_partition", [&](const Node& n, const std::string& p) {
    // 0 is torchrec's "not given" (sharding_plan.py _get_block_size_for_cw_shard
    // tests it for truthiness): the default MIN_CW_DIM, as the shard layout does.
    c.min_partition = r.integer(n, p, Range::kNonNegative);
  });
  with_field(r, node, path, "pooling_factors", [&](const Node& n, const std::string& p) {
    // [] reaches the per-feature check, which says what torchrec would do with it.
    auto values = r.template list<double>(n, p, false, [&](const Node& e, const std::string& ep) {
      return at_most(r, e, ep, r.number(e, ep, Range::kNonNegative), kMaxPoolingFactor);
    });
    if (values) {  // only a well-formed list gets its length checked
      lists.pooling_factors = n;
      lists.has_pooling_factors = true;
    }
    assign(c.pooling_factors, values);
  });
  with_field(r, node, path, "num_poolings", [&](const Node& n, const std::string& p) {
    // torchrec takes 0.0 as it is (no input of that feature is pooled), and []
    // as "not given" (shard_estimators.py tests the list for truthiness).
    c.num_poolings = r.template list<double>(n, p, false, [&](const Node& e, const std::string& ep) {
      return at_most(r, e, ep, r.number(e, ep, Range::kNonNegative), kMaxPoolingFactor);
    });
  });
  with_field(r, node, path, "batch_sizes", [&](const Node& n, const std::string& p) {
    c.batch_sizes = r.template list<std::int64_t>(n, p, false, [&](const Node& e, const std::string& ep) {
      return at_most(r, e, ep, r.integer(e, ep, Range::kPositive), kMaxBatchSize);
    });
  });
  with_field(r, node, path, "is_weighted",
             [&](const Node& n, const std::string& p) { assign(c.is_weighted, r.boolean(n, p)); });
  with_field(r, node, path, "cache_params",
             [&](const Node& n, const std::string& p) { c.cache_params = read_cache_params(r, n, p); });
  with_field(r, node, path, "enforce_hbm",
             [&](const Node& n, const std::string& p) { c.enforce_hbm = r.boolean(n, p); });
  with_field(r, node, path, "stochastic_rounding",
             [&](const Node& n, const std::string& p) { c.stochastic_rounding = r.boolean(n, p); });
  with_field(r, node, path, "bounds_check_mode", [&](const Node& n, const std::string& p) {
    c.bounds_check_mode = r.name(n, p, "bounds check mode", kBoundsCheckModeNames);
  });
  with_field(r, node, path, "output_dtype",
             [&](const Node& n, const std::string& p) { c.output_dtype = r.name(n, p, "data type", kDataTypeNames); });
  with_field(r, node, path, "device_group", [&](const Node& n, const std::string& p) {
    c.device_group = r.name(n, p, "device", kComputeDeviceNames);
  });
  return c;
}

std::string feature_list(const TableConfig& table) {
  std::string out;
  for (const auto& f : table.feature_names) out += (out.empty() ? "" : ", ") + f;
  return out;
}

// pooling_factors / num_poolings / batch_sizes: one entry per feature of the table.
template <class Node>
void check_per_feature(BasicNodeReader<Node>& r, const Node& list, const std::string& path, std::size_t length,
                       const TableConfig& table) {
  if (!list.IsDefined() || length == table.feature_names.size()) return;
  std::size_t want = table.feature_names.size();
  r.report(list, path,
           "expected " + std::to_string(want) + (want == 1 ? " entry" : " entries") + " (one per feature of table '" +
               table.name + "': " + feature_list(table) + "), found " + std::to_string(length) +
               (length == 0 ? "; torchrec would plan the table with no input at all (nothing looked up, no "
                              "input or output traffic)"
                            : ""));
}

// Without pooling_factors the table has torchrec's one default input ([1.0],
// enumerators.py _extract_constraints_for_param), whatever its features; torchrec's
// EmbeddingPerfEstimator.estimate then asserts that num_poolings and batch_sizes
// have that one entry too. An empty list is "not given" there (truthiness).
template <class Node>
void check_against_default_pooling(BasicNodeReader<Node>& r, const Node& constraint, const std::string& cpath,
                                   const ParameterConstraintsConfig& c, const TableConfig& table) {
  auto check = [&](std::string_view key, std::size_t length) {
    if (length == 0 || length == 1) return;
    if (table.feature_names.size() == 1) {  // one input and one feature: the usual message
      check_per_feature(r, r.field(constraint, cpath, key), join_key(cpath, key), length, table);
      return;
    }
    r.report(r.field(constraint, cpath, key), join_key(cpath, key),
             "expected 1 entry, found " + std::to_string(length) + ": without pooling_factors table '" + table.name +
                 "' has torchrec's one default input ([1.0]) and torchrec would fail its assert that " +
                 "pooling_factors, num_poolings and batch_sizes match; give pooling_factors with " +
                 std::to_string(table.feature_names.size()) +
                 (table.feature_names.size() == 1 ? " entry" : " entries") + " (one per feature) or one entry here");
  };
  if (c.num_poolings) check("num_poolings", c.num_poolings->size());
  if (c.batch_sizes) check("batch_sizes", c.batch_sizes->size());
}

template <class Node>
void read_constraints(BasicNodeReader<Node>& r, const Node& node, const std::string& path, ModelConfig& model) {
  if (!r.expect_map(node, path)) return;
  std::map<std::string, const TableConfig*> tables;
  std::vector<std::string> table_names;
  for (const auto& m : model.modules)
    for (const auto& t : m.tables)
      if (!t.name.empty() && tables.emplace(t.name, &t).second) table_names.push_back(t.name);
  std::set<std::string> seen;
  for (auto it = node.begin(); it != node.end(); ++it) {
    const Node key = it->first;
    if (!key.IsScalar()) {
      r.report(key, path, "expected a table name, found " + BasicNodeReader<Node>::describe(key));
      continue;
    }
    std::string name = key.Scalar();
    std::string cpath = join_key(path, name);
    if (!seen.insert(name).second) {
      r.report(key, cpath, "duplicate constraints for table '" + name + "'");
      continue;
    }
    PerFeatureLists<Node> lists;
    ParameterConstraintsConfig c = read_constraint(r, it->second, cpath, lists);
    c.pos = r.pos(key);
    auto table = tables.find(name);
    if (table == tables.end()) {
      std::string suggestion = closest_name(name, table_names);
      r.report(key, cpath,
               "no table named '" + name + "' in the model" +
                   (suggestion.empty() ? std::string() : ", did you mean '" + suggestion + "'?"));
    } else {
      const TableConfig& t = *table->second;
      if (lists.has_pooling_factors) {
        check_per_feature(r, lists.pooling_factors, join_key(cpath, "pooling_factors"), c.pooling_factors.size(), t);
        // An empty num_poolings / batch_sizes is "not given" (torchrec's truthiness tests).
        if (c.num_poolings && !c.num_poolings->empty())
          check_per_feature(r, r.field(it->second, cpath, "num_poolings"), join_key(cpath, "num_poolings"),
                            c.num_poolings->size(), t);
        if (c.batch_sizes && !c.batch_sizes->empty())
          check_per_feature(r, r.field(it->second, cpath, "batch_sizes"), join_key(cpath, "batch_sizes"),
                            c.batch_sizes->size(), t);
      } else {
        check_against_default_pooling(r, it->second, cpath, c, t);
      }
    }
    model.constraints[name] = std::move(c);
  }
}

// Table names must be unique across the whole model (constraints are keyed by
// them), module paths unique, and so the fqns "<path>.<name>".
template <class Node>
void check_unique_names(BasicNodeReader<Node>& r, const ModelConfig& model, const std::string& path) {
  std::map<std::string, SourcePos> module_paths, table_names, fqns;
  auto where = [](const SourcePos& p) { return "line " + std::to_string(p.line); };
  for (std::size_t m = 0; m < model.modules.size(); ++m) {
    const ModuleConfig& module = model.modules[m];
    std::string mpath = join_index(join_key(path, "modules"), m);
    if (!module.path.empty()) {
      auto [it, fresh] = module_paths.emplace(module.path, module.pos);
      if (!fresh)
        r.report(module.pos, join_key(mpath, "path"),
                 "duplicate module path '" + module.path + "' (first at " + where(it->second) + ")");
    }
    for (std::size_t t = 0; t < module.tables.size(); ++t) {
      const TableConfig& table = module.tables[t];
      if (table.name.empty()) continue;
      std::string tpath = join_key(join_index(join_key(mpath, "tables"), t), "name");
      auto [it, fresh] = table_names.emplace(table.name, table.pos);
      if (!fresh) {
        r.report(table.pos, tpath, "duplicate table name '" + table.name + "' (first at " + where(it->second) + ")");
        continue;
      }
      if (module.path.empty()) continue;
      std::string fqn = module.path + "." + table.name;
      auto [fit, ffresh] = fqns.emplace(fqn, table.pos);
      if (!ffresh) r.report(table.pos, tpath, "duplicate fqn '" + fqn + "' (first at " + where(fit->second) + ")");
    }
  }
}

}  // namespace

template <class Node>
ModelConfig read_model(BasicNodeReader<Node>& r, const std::type_identity_t<Node>& node, const std::string& path) {
  ModelConfig model;
  if (!r.expect_map(node, path)) return model;
  r.check_keys(node, path, known_keys("model"));
  with_field(r, node, path, "name",
             [&](const Node& n, const std::string& p) { assign(model.name, r.string(n, p, false)); });
  with_field(r, node, path, "batch_size", [&](const Node& n, const std::string& p) {
    // 0 is "not given" in torchrec (planners.py: `batch_size if batch_size else
    // BATCH_SIZE`), so the default stays.
    auto value = r.integer(n, p, Range::kNonNegative);
    if (value && *value > 0) value = read_integer(r, n, p, kBatchSizeRule);
    if (value && *value > 0) model.batch_size = *value;
  });
  if (Node n = r.field(node, path, "modules", true); n.IsDefined()) {
    std::string mpath = join_key(path, "modules");
    if (!n.IsSequence()) {
      r.report(n, mpath, "expected a list of modules, found " + BasicNodeReader<Node>::describe(n));
    } else if (n.size() == 0) {
      r.report(n, mpath, "expected at least one module");
    } else if (check_list_length(r, n, mpath, kMaxTables)) {
      for (std::size_t i = 0; i < n.size(); ++i) model.modules.push_back(read_module(r, n[i], join_index(mpath, i)));
    }
  }
  check_model_size(r, model, path);
  check_unique_names(r, model, path);
  with_field(r, node, path, "dense", [&](const Node& n, const std::string& p) {
    if (!r.expect_map(n, p)) return;
    r.check_keys(n, p, known_keys("dense"));
    with_field(r, n, p, "parameters", [&](const Node& v, const std::string& vp) {
      assign(model.dense.parameters, at_most(r, v, vp, r.integer(v, vp, Range::kNonNegative), kMaxDenseParameters));
    });
    with_field(r, n, p, "data_type", [&](const Node& v, const std::string& vp) {
      assign(model.dense.data_type, r.name(v, vp, "data type", kDataTypeNames));
    });
  });
  with_field(r, node, path, "constraints",
             [&](const Node& n, const std::string& p) { read_constraints(r, n, p, model); });
  with_field(r, node, path, "planner",
             [&](const Node& n, const std::string& p) { model.planner = read_planner(r, n, p); });
  return model;
}

template ModelConfig read_model(NodeReader&, const YAML::Node&, const std::string&);
template ModelConfig read_model(JsonNodeReader&, const JsonNode&, const std::string&);

}  // namespace shardplan
