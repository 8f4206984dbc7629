// torchrec's EmbeddingStorageEstimator: HBM and DDR bytes of every shard of an
// option (weights, cache, optimizer state, input and output buffers).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// Everything torchrec's calculate_shard_storages reads for one option, resolved.
struct ShardStorageRequest {
  ShardingType sharding_type = ShardingType::kTableWise;
  ComputeKernel compute_kernel = ComputeKernel::kFused;
  ComputeDevice compute_device = ComputeDevice::kCuda;
  std::vector<std::int64_t> tensor_shape;  // [rows, cols] of the whole table
  int tensor_element_size = 4;             // bytes per element
  std::vector<ShardDims> shard_sizes;
  std::vector<std::int64_t> batch_sizes;  // per input feature
  int world_size = 1;
  int local_world_size = 1;
  std::vector<double> input_lengths;  // per input feature
  std::vector<double> num_poolings;   // per input feature
  double caching_ratio = 0.2;         // HBM share of a cached table
  bool is_pooled = true;
  double input_data_type_size = 8;
  double output_data_type_size = 4;
  bool is_inference = false;
  double kv_cache_load_factor = 0.2;
};

// Storage of each shard, in shard order (torchrec's calculate_shard_storages with
// no pipeline and no optimizer state: plain planning never sets _optimizer_classes).
std::vector<Storage> calculate_shard_storages(const ShardStorageRequest& request);

// The request torchrec's EmbeddingStorageEstimator builds for `option`: per-feature
// num_poolings/batch_sizes from the constraints (default 1.0 / batch_size), the
// load factor (falsy: 0.2), output dtype size, is_inference from the planner.
ShardStorageRequest storage_request(const ShardingOption& option, const EstimatorContext& context);

// Python's a / b for integers: the double nearest to the exact quotient (ties to
// even), however large the operands; torchrec divides big products this way.
double python_int_true_divide(__int128 numerator, __int128 denominator);

// torchrec's EmbeddingStorageEstimator: fills shard.storage of every shard.
class EmbeddingStorageEstimator : public ShardEstimator {
 public:
  void estimate(ShardingOption& option, const EstimatorContext& context) const override;
};

}  // namespace shardplan
