#include "planner/enumerator.h"

#include <algorithm>
#include <exception>
#include <map>
#include <string_view>

#include "common/python_set_order.h"
#include "planner/shards/shard_layout.h"

namespace shardplan {

namespace {

// torchrec's EmbeddingComputeKernel values in declaration order, including the
// ones our config cannot name: they take part in torchrec's set operations and so
// in its option order.
const std::vector<std::string>& torchrec_kernel_names() {
  static const std::vector<std::string> names{"dense",
                                              "fused",
                                              "fused_uvm",
                                              "fused_uvm_caching",
                                              "quant",
                                              "quant_uvm",
                                              "quant_uvm_caching",
                                              "key_value",
                                              "customized_kernel",
                                              "ssd_virtual_table",
                                              "dram_virtual_table"};
  return names;
}

// Kernels only enumerated when a constraint asks for them (GUARDED_COMPUTE_KERNELS).
bool is_guarded_kernel(std::string_view name) {
  return name == "key_value" || name == "ssd_virtual_table" || name == "dram_virtual_table";
}

// BaseEmbeddingSharder.compute_kernels, shared by both default sharders.
const std::vector<std::string>& sharder_compute_kernels(ShardingType sharding_type, ComputeDevice device) {
  static const std::vector<std::string> data_parallel{"dense"};
  static const std::vector<std::string> on_cpu{"fused"};
  static const std::vector<std::string> on_gpu{"fused",     "fused_uvm",         "fused_uvm_caching",
                                               "key_value", "ssd_virtual_table", "dram_virtual_table"};
  if (sharding_type == ShardingType::kDataParallel) return data_parallel;
  return device == ComputeDevice::kCuda ? on_gpu : on_cpu;
}

std::string module_class_name(ModuleKind kind) {
  return kind == ModuleKind::kEmbeddingBag ? "torchrec.modules.embedding_modules.EmbeddingBagCollection"
                                           : "torchrec.modules.embedding_modules.EmbeddingCollection";
}
std::string sharder_class_name(ModuleKind kind) {
  return kind == ModuleKind::kEmbeddingBag ? "EmbeddingBagCollectionSharder" : "EmbeddingCollectionSharder";
}

template <typename Enum, std::size_t N>
std::vector<std::string> to_names(const NameTable<Enum, N>&, const std::vector<Enum>& values) {
  std::vector<std::string> out;
  for (Enum v : values) out.emplace_back(to_string(v));
  return out;
}

std::string bracketed_names(const std::vector<std::string>& names) {
  std::string out = "[";
  for (std::size_t i = 0; i < names.size(); ++i) out += (i ? ", " : "") + names[i];
  return out + "]";
}

// Why a table lost its options, for the error message (torchrec logs it).
struct FilterNotes {
  std::vector<std::string> lines;
};

// torchrec's _filter_sharding_types: without constrained types, the sharder's
// types in order minus grid_shard; with them, the set intersection.
std::vector<std::string> filter_sharding_types(const ParameterConstraintsConfig* c,
                                               const std::vector<std::string>& allowed, FilterNotes& notes,
                                               SetIntersectionMemo& memo) {
  if (!c || !c->sharding_types || c->sharding_types->empty()) {
    std::vector<std::string> out;
    for (const auto& t : allowed)
      if (t != "grid_shard") out.push_back(t);
    return out;
  }
  const auto constrained = to_names(kShardingTypeNames, *c->sharding_types);
  auto out = memo.intersection(constrained, allowed);
  if (out.empty())
    notes.lines.push_back("constrained sharding types " + bracketed_names(constrained) + ", allowed sharding types " +
                          bracketed_names(allowed));
  return out;
}

// torchrec's _filter_compute_kernels: constrained (or every unguarded kernel)
// intersected with the sharder's; dense is dropped when fused is also left.
std::vector<std::string> filter_compute_kernels(const ParameterConstraintsConfig* c,
                                                const std::vector<std::string>& allowed,
                                                const std::string& sharding_type, FilterNotes& notes,
                                                SetIntersectionMemo& memo) {
  std::vector<std::string> constrained;
  if (c && c->compute_kernels && !c->compute_kernels->empty()) {
    constrained = to_names(kComputeKernelNames, *c->compute_kernels);
  } else {
    for (const auto& k : torchrec_kernel_names())
      if (!is_guarded_kernel(k)) constrained.push_back(k);
  }
  auto out = memo.intersection(constrained, allowed);
  const bool has_dense = std::find(out.begin(), out.end(), "dense") != out.end();
  const bool has_fused = std::find(out.begin(), out.end(), "fused") != out.end();
  if (has_dense && has_fused) out.erase(std::find(out.begin(), out.end(), "dense"));
  if (out.empty())
    notes.lines.push_back("for " + sharding_type + ": constrained compute kernels " + bracketed_names(constrained) +
                          ", allowed compute kernels " + bracketed_names(allowed));
  return out;
}

// Modules in the order torchrec's enumerator visits them: it walks named
// children with a stack (pop from the back), so the last child comes first. The
// module tree is the one the dotted paths describe, children in first-seen order.
std::vector<int> torchrec_module_order(const ModelConfig& model) {
  struct Node {
    std::vector<std::pair<std::string, int>> children;  // (name, node index)
    int module_index = -1;
  };
  std::vector<Node> nodes(1);
  for (std::size_t m = 0; m < model.modules.size(); ++m) {
    int at = 0;
    const std::string& path = model.modules[m].path;
    std::size_t start = 0;
    while (true) {
      const std::size_t dot = path.find('.', start);
      const std::string part = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
      auto& kids = nodes[static_cast<std::size_t>(at)].children;
      auto it = std::find_if(kids.begin(), kids.end(), [&](const auto& kid) { return kid.first == part; });
      int next;
      if (it == kids.end()) {
        next = static_cast<int>(nodes.size());
        kids.emplace_back(part, next);
        nodes.emplace_back();
      } else {
        next = it->second;
      }
      at = next;
      if (dot == std::string::npos) break;
      start = dot + 1;
    }
    nodes[static_cast<std::size_t>(at)].module_index = static_cast<int>(m);
  }
  std::vector<int> order;
  std::vector<int> stack;
  for (const auto& kid : nodes[0].children) stack.push_back(kid.second);
  while (!stack.empty()) {
    const int at = stack.back();
    stack.pop_back();
    const Node& node = nodes[static_cast<std::size_t>(at)];
    if (node.module_index >= 0) {
      order.push_back(node.module_index);  // a sharded module is not descended into
      continue;
    }
    for (const auto& kid : node.children) stack.push_back(kid.second);
  }
  return order;
}

// Per-rank memory for torchrec's uneven row-wise split: custom capacities of the
// compute device's memory kind, else none.
std::vector<std::int64_t> device_memory_sizes(const Topology& topology) {
  std::vector<std::int64_t> out;
  const bool hbm_device =
      topology.compute_device == ComputeDevice::kCuda || topology.compute_device == ComputeDevice::kMtia;
  if (hbm_device ? !topology.has_custom_hbm_cap : !topology.has_custom_ddr_cap) return out;
  for (const auto& d : topology.devices) out.push_back(hbm_device ? d.storage.hbm : d.storage.ddr);
  return out;
}

std::optional<CacheParams> resolve_cache_params(const ParameterConstraintsConfig* c) {
  if (!c || !c->cache_params) return std::nullopt;
  return *c->cache_params;
}

// Options of one table, unestimated; independent of every other table.
std::vector<ShardingOption> enumerate_table(const PlanningInput& input, const Topology& topology, int module_index,
                                            int table_index, bool module_weighted,
                                            const std::vector<std::int64_t>& memory_sizes, SetIntersectionMemo& memo) {
  const ModelConfig& model = input.model;
  const ModuleConfig& module = model.modules[static_cast<std::size_t>(module_index)];
  const TableConfig& table = module.tables[static_cast<std::size_t>(table_index)];
  auto found = model.constraints.find(table.name);
  const ParameterConstraintsConfig* c = found == model.constraints.end() ? nullptr : &found->second;

  std::vector<ShardingOption> options;
  if (c && c->device_group && *c->device_group != topology.compute_device) return options;

  ShardingOption base;
  base.name = table.name;
  base.path = module.path;
  base.module_index = module_index;
  base.table_index = table_index;
  base.module_kind = module.kind;
  base.tensor_shape = {table.num_embeddings, table.embedding_dim};
  // Training EBC/EC allocate fp32 tables as fp32 and every other type as fp16.
  base.tensor_element_size = table.data_type == DataType::kFp32 ? 4 : 2;
  base.input_lengths = c ? c->pooling_factors : std::vector<double>{1.0};
  base.batch_size = model.batch_size;
  base.cache_params = resolve_cache_params(c);
  if (c) {
    base.enforce_hbm = c->enforce_hbm;
    base.stochastic_rounding = c->stochastic_rounding;
    base.bounds_check_mode = c->bounds_check_mode;
    base.output_dtype = c->output_dtype;
  }
  base.is_pooled = module.kind == ModuleKind::kEmbeddingBag;
  // Pooled modules are weighted as a whole; sequence modules read the constraint.
  base.is_weighted = module.kind == ModuleKind::kEmbeddingBag ? module_weighted : (c && c->is_weighted);
  base.feature_names = table.feature_names;

  ShardLayoutRequest layout;
  layout.rows = table.num_embeddings;
  layout.cols = table.embedding_dim;
  layout.world_size = topology.world_size;
  layout.local_world_size = topology.local_world_size;
  if (c) layout.min_partition = c->min_partition;
  layout.device_memory_sizes = memory_sizes;

  FilterNotes notes;
  const auto allowed_types = to_names(kShardingTypeNames, sharder_sharding_types(module.kind, topology.compute_device));
  for (const auto& type_name : filter_sharding_types(c, allowed_types, notes, memo)) {
    const ShardingType sharding_type = *parse_name(kShardingTypeNames, type_name);
    const auto kernels = filter_compute_kernels(c, sharder_compute_kernels(sharding_type, topology.compute_device),
                                                type_name, notes, memo);
    if (kernels.empty()) continue;
    // The layout depends on the sharding type only: computed once, shared by kernels
    // (a ShardList of a few runs, cheap to copy).
    ShardList shards;
    try {
      for (auto& extent : shard_layout(sharding_type, layout)) {
        Shard shard;
        shard.size = std::move(extent.size);
        shard.offset = std::move(extent.offset);
        shards.push_back(shard);
      }
    } catch (const ShardLayoutError& e) {
      // torchrec re-raises its ZeroDivisionError with the table's context; for us a
      // table that cannot be laid out has no sharding option (exit 1), like a table
      // whose constraints leave none.
      throw EnumerationError(table.name, "Failed to calculate sharding plan: " + std::string(e.what()) +
                                             " Context: table_name='" + table.name + "', module_path='" + module.path +
                                             "', sharding_type='" + type_name + "'");
    }
    for (const auto& kernel_name : kernels) {
      const auto kernel = parse_name(kComputeKernelNames, kernel_name);
      if (!kernel) continue;  // only kernels we can name survive a constraint anyway
      ShardingOption& option = options.emplace_back(base);
      option.sharding_type = sharding_type;
      option.compute_kernel = *kernel;
      option.partition_by = partition_by_of(sharding_type);
      option.shards = shards;
    }
  }
  if (options.empty()) {
    std::string message =
        "No available sharding type and compute kernel combination after applying user "
        "provided constraints for " +
        table.name + ". Module: " + module_class_name(module.kind) + ", sharder: " + sharder_class_name(module.kind) +
        ", compute device: " + std::string(to_string(topology.compute_device)) + ".";
    for (const auto& line : notes.lines) message += " " + line + ".";
    throw EnumerationError(table.name, message);
  }
  return options;
}

}  // namespace

std::vector<ShardingType> sharder_sharding_types(ModuleKind kind, ComputeDevice device) {
  using ST = ShardingType;
  if (kind == ModuleKind::kEmbedding) return {ST::kDataParallel, ST::kTableWise, ST::kColumnWise, ST::kRowWise};
  if (device == ComputeDevice::kMtia)
    return {ST::kTableWise, ST::kColumnWise, ST::kTableColumnWise, ST::kRowWise, ST::kTableRowWise, ST::kGridShard};
  std::vector<ST> out{ST::kDataParallel, ST::kTableWise, ST::kColumnWise, ST::kTableColumnWise};
  if (device == ComputeDevice::kCuda) out.insert(out.end(), {ST::kRowWise, ST::kTableRowWise, ST::kGridShard});
  return out;
}

std::vector<ShardingOption> enumerate_options(const PlanningInput& input, const Topology& topology,
                                              const std::vector<const ShardEstimator*>& estimators,
                                              const Parallelism& parallelism) {
  const ModelConfig& model = input.model;
  const std::vector<std::int64_t> memory_sizes = device_memory_sizes(topology);
  std::vector<char> weighted_by_module(model.modules.size(), 0);
  std::vector<std::pair<int, int>> tables;  // (module, table) in torchrec's order
  for (int m : torchrec_module_order(model)) {
    const ModuleConfig& module = model.modules[static_cast<std::size_t>(m)];
    // EmbeddingBagCollection(is_weighted=True) when any of its tables asks for it.
    bool module_weighted = false;
    for (const auto& table : module.tables) {
      auto it = model.constraints.find(table.name);
      if (it != model.constraints.end() && it->second.is_weighted) module_weighted = true;
    }
    weighted_by_module[static_cast<std::size_t>(m)] = module_weighted ? 1 : 0;
    for (int t = 0; t < static_cast<int>(module.tables.size()); ++t) tables.emplace_back(m, t);
  }
  // Tables are independent (and estimators read one option at a time), so they
  // are enumerated and estimated on all threads when there is enough work; the
  // options are joined in table order and the first error in table order is
  // raised, whatever the thread count.
  const EstimatorContext context{topology, input.model, input.planner, &weighted_by_module};
  std::vector<std::vector<ShardingOption>> per_table(tables.size());
  std::vector<std::exception_ptr> errors(tables.size());
  // Work in shards, roughly (a row-wise option has world-size shards); small
  // models stay on one thread, where starting the pool costs more than it saves.
  const std::size_t work = tables.size() * static_cast<std::size_t>(std::max(topology.world_size, 1));
  const int threads = work >= parallelism.min_shards || tables.size() >= kParallelMinTables ? parallelism.threads() : 1;
  // One lane per thread, each with its own memo, taking every lanes-th table.
  const std::size_t lanes = std::max<std::size_t>(1, std::min(tables.size(), static_cast<std::size_t>(threads)));
  std::vector<SetIntersectionMemo> memos(lanes);
  parallelism.parallel_for(lanes, threads, [&](std::size_t lane) {
    for (std::size_t i = lane; i < tables.size(); i += lanes) {
      try {
        const auto [m, t] = tables[i];
        per_table[i] = enumerate_table(input, topology, m, t, weighted_by_module[static_cast<std::size_t>(m)] != 0,
                                       memory_sizes, memos[lane]);
        for (const ShardEstimator* estimator : estimators)
          for (auto& option : per_table[i]) estimator->estimate(option, context);
      } catch (...) {
        errors[i] = std::current_exception();
      }
    }
  });
  for (const auto& error : errors)
    if (error) std::rethrow_exception(error);
  std::size_t count = 0;
  for (const auto& options : per_table) count += options.size();
  std::vector<ShardingOption> options;
  options.reserve(count);
  for (auto& table_options : per_table)
    for (auto& option : table_options) options.push_back(std::move(option));
  return options;
}

PartitionBy partition_by_of(ShardingType t) {
  switch (t) {
    case ShardingType::kTableWise:
    case ShardingType::kColumnWise:
      return PartitionBy::kDevice;
    case ShardingType::kTableRowWise:
    case ShardingType::kTableColumnWise:
      return PartitionBy::kHost;
    case ShardingType::kRowWise:
    case ShardingType::kDataParallel:
      return PartitionBy::kUniform;
    case ShardingType::kGridShard:
      return PartitionBy::kMultiHost;
  }
  return PartitionBy::kDevice;
}

std::unique_ptr<Enumerator> make_enumerator(EnumeratorKind kind) {
  switch (kind) {
    case EnumeratorKind::kEmbedding:
      return std::make_unique<EmbeddingEnumerator>();
  }
  return nullptr;  // unreachable: the switch covers every kind (-Wswitch)
}

}  // namespace shardplan
