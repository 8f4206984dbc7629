// torchrec's EmbeddingPerfEstimator: wall time (ms) of every shard of an option,
// split into fwd/bwd compute, fwd/bwd comms and cache prefetch.
#pragma once

#include <cstdint>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// Everything torchrec's perf_func_emb_wall_time reads for one option, resolved
// (defaults applied, bandwidths looked up). Sizes in bytes, bandwidths in bytes/ms.
struct WallTimeInputs {
  ShardingType sharding_type = ShardingType::kTableWise;
  double device_bw = 0;                   // kernel_bw_lookup of the option's kernel
  std::vector<double> input_lengths;      // pooling factor per input feature
  std::vector<double> num_poolings;       // per input feature
  std::vector<std::int64_t> batch_sizes;  // per input feature
  int world_size = 1;
  int local_world_size = 1;
  double input_data_type_size = 8;
  double table_data_type_size = 4;
  // Element sizes on the wire; torchrec's default sharders have no qcomm codecs, so
  // all four equal the table's element size.
  double fwd_a2a_comm_data_type_size = 4;
  double bwd_a2a_comm_data_type_size = 4;
  double fwd_sr_comm_data_type_size = 4;
  double bwd_sr_comm_data_type_size = 4;
  double hbm_to_ddr_mem_bw = 0;
  double intra_host_bw = 0;
  double inter_host_bw = 0;
  double bwd_compute_multiplier = 2;
  double weighted_feature_bwd_compute_multiplier = 1;
  bool is_pooled = true;
  bool is_weighted = false;
  bool is_inference = false;
  double expected_cache_fetches = 0;  // torchrec: nonzero only with cache statistics
};

// Perf of one shard of `rows` x `cols` (torchrec's per-shard branch of
// perf_func_emb_wall_time, dispatching on the sharding type).
Perf shard_wall_time(const WallTimeInputs& in, std::int64_t rows, std::int64_t cols);

// Whether torchrec costs the option as weighted: for embedding_bag modules the
// module's weightedness (any of its tables constrained is_weighted), for sequence
// modules the table's own constraint.
bool perf_is_weighted(const ShardingOption& option, const EstimatorContext& context);

// The resolved inputs for `option`; throws std::runtime_error when torchrec has no
// bandwidth for the (device, kernel) pair (torchrec raises a PlannerError).
WallTimeInputs wall_time_inputs(const ShardingOption& option, const EstimatorContext& context);

// torchrec's EmbeddingPerfEstimator. Also sets option.is_weighted, as torchrec does.
class EmbeddingPerfEstimator : public ShardEstimator {
 public:
  void estimate(ShardingOption& option, const EstimatorContext& context) const override;
};

}  // namespace shardplan
