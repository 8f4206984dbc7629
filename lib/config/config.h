// Typed inputs of the planner, as docs/formats/ describes them. The loader
// (loader.h) produces these; nothing past the loader sees strings for enums.
// Optional fields stay unset when the user did not write them: defaults are applied
// where torchrec applies them (Topology, enumerator, estimators), never here, so
// that "not given" and "given the default value" stay distinguishable.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/error.h"
#include "common/names.h"
#include "config/planner_names.h"

namespace shardplan {

struct TableConfig {
  std::string name;
  std::int64_t num_embeddings = 0;
  std::int64_t embedding_dim = 0;
  DataType data_type = DataType::kFp32;
  std::vector<std::string> feature_names;  // the loader fills [name] when omitted
  SourcePos pos;                           // where the table is defined
};

struct ModuleConfig {
  std::string path;  // a table's fqn is "<path>.<table name>"
  ModuleKind kind = ModuleKind::kEmbeddingBag;
  std::vector<TableConfig> tables;
  SourcePos pos;
};

// torchrec's CacheParams (the fields the planner reads): as a table's constraints
// give them, and as a sharding option carries them (planner/types.h).
struct CacheParams {
  std::optional<double> load_factor;
  std::optional<CacheAlgorithm> algorithm;
  std::optional<double> reserved_memory;
  std::optional<DataType> precision;
  std::optional<bool> prefetch_pipeline;
};

// torchrec's ParameterConstraints, keyed by table name in ModelConfig.
struct ParameterConstraintsConfig {
  std::optional<std::vector<ShardingType>> sharding_types;
  std::optional<std::vector<ComputeKernel>> compute_kernels;
  std::optional<std::int64_t> min_partition;
  // torchrec's default is [1.0] (POOLING_FACTOR), one input whatever the features.
  std::vector<double> pooling_factors{1.0};
  std::optional<std::vector<double>> num_poolings;
  std::optional<std::vector<std::int64_t>> batch_sizes;
  bool is_weighted = false;
  std::optional<CacheParams> cache_params;
  std::optional<bool> enforce_hbm;
  std::optional<bool> stochastic_rounding;
  std::optional<BoundsCheckMode> bounds_check_mode;
  std::optional<DataType> output_dtype;
  std::optional<ComputeDevice> device_group;
  SourcePos pos;
};

struct DenseConfig {
  std::int64_t parameters = 0;
  DataType data_type = DataType::kFp32;
};

struct PartitionerOptions {
  PartitionerKind type = PartitionerKind::kGreedy;
  GreedySortBy sort_by = GreedySortBy::kStorage;  // greedy
  bool balance_modules = false;
  std::int64_t max_search_count = 10;  // memory_balanced
  double tolerance = 0.02;             // memory_balanced
  double time_budget_seconds = 2.0;    // optimizing: wall-clock safety cap of its search
};

struct StorageReservationOptions {
  ReservationPolicy policy = ReservationPolicy::kHeuristical;
  double percentage = 0.15;
  double parameter_multiplier = 6.0;                  // heuristical
  std::optional<std::int64_t> dense_tensor_estimate;  // bytes
};

struct PlannerOptions {
  // torchrec's default proposer set, in its order.
  std::vector<ProposerKind> proposers{ProposerKind::kGridSearch, ProposerKind::kGreedy, ProposerKind::kGreedySum,
                                      ProposerKind::kUniform};
  PartitionerOptions partitioner;
  StorageReservationOptions storage_reservation;
  bool is_inference = false;
  // GreedyProposer's threshold: stop after more than this many consecutive
  // proposals no better than the best (torchrec's default: unset, never stop).
  std::optional<int> greedy_threshold;
};

struct ModelConfig {
  std::string name;
  std::int64_t batch_size = 512;  // torchrec's BATCH_SIZE
  std::vector<ModuleConfig> modules;
  DenseConfig dense;
  std::map<std::string, ParameterConstraintsConfig> constraints;  // by table name
  std::optional<PlannerOptions> planner;                          // a `planner:` key inside the model file
};

// Topology as written; bandwidths in bytes/ms, capacities in bytes.
struct TopologyConfig {
  std::int64_t world_size = 0;
  std::optional<std::int64_t> local_world_size;  // default: world_size
  ComputeDevice compute_device = ComputeDevice::kCuda;
  std::optional<std::int64_t> hbm_cap;  // default 32 GiB on cuda/mtia, 0 on cpu
  std::optional<std::int64_t> ddr_cap;  // default 128 GiB
  std::optional<double> hbm_mem_bw;
  std::optional<double> ddr_mem_bw;
  std::optional<double> hbm_to_ddr_mem_bw;
  std::optional<double> intra_host_bw;
  std::optional<double> inter_host_bw;
  std::optional<double> bwd_compute_multiplier;
  std::optional<double> weighted_feature_bwd_compute_multiplier;
  std::optional<double> uneven_sharding_perf_multiplier;
  std::optional<std::vector<std::int64_t>> custom_hbm_cap;  // exactly world_size entries
  std::optional<std::vector<std::int64_t>> custom_ddr_cap;
};

// Everything one planning run needs: the three inputs together.
struct PlanningInput {
  ModelConfig model;
  TopologyConfig topology;
  PlannerOptions planner;  // model.planner, then the planner file, then CLI flags
  std::string source;      // file name(s), for messages
};

}  // namespace shardplan
