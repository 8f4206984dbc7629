// Bytes each shard of a table receives (ids) and sends (embeddings) per iteration:
// torchrec's _calculate_shard_io_sizes, used by EmbeddingStats' Input/Output columns.
#pragma once

#include <cstdint>
#include <vector>

#include "common/names.h"
#include "planner/shards/shard_layout.h"

namespace shardplan {

struct ShardIoSizes {
  std::vector<std::int64_t> input_bytes;   // one per shard
  std::vector<std::int64_t> output_bytes;  // one per shard
};

// What one table's sharding needs to know to size its shards' IO.
struct ShardIoRequest {
  ShardingType sharding_type = ShardingType::kTableWise;
  std::vector<std::int64_t> batch_sizes;  // one per input feature
  int world_size = 1;
  int local_world_size = 1;
  std::vector<double> input_lengths;  // pooling factor per input feature
  std::int64_t emb_dim = 0;
  std::vector<ShardDims> shard_sizes;  // [rows, cols] per shard
  double input_data_type_size = 8;     // torchrec's BIGINT_DTYPE for ids
  double output_data_type_size = 4;
  std::vector<double> num_poolings;  // one per input feature
  bool is_pooled = true;
};

// Per-shard input and output bytes, with torchrec's per-sharding-type formulas
// (grid_shard is sized like table_row_wise, as torchrec does).
ShardIoSizes calculate_shard_io_sizes(const ShardIoRequest& request);

}  // namespace shardplan
