// Shard sizes and offsets of one table for each sharding type: torchrec's
// calculate_shard_sizes_and_offsets (distributed/sharding_plan.py).
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <vector>

#include "common/names.h"

namespace shardplan {

// [rows, cols] of a shard, or its [row, col] offset in the table. A fixed pair,
// not a vector: a 5 000-table plan on 1 024 ranks enumerates millions of shards.
using ShardDims = std::array<std::int64_t, 2>;

// One shard's [rows, cols] size and [row, col] offset within its table.
struct ShardExtent {
  ShardDims size;
  ShardDims offset;
  friend bool operator==(const ShardExtent&, const ShardExtent&) = default;
};

// What the layout of one table depends on.
struct ShardLayoutRequest {
  std::int64_t rows = 0;
  std::int64_t cols = 0;
  int world_size = 1;
  int local_world_size = 1;
  // Constraint min_partition: the smallest column-shard width to look for
  // (unset or 0: kMinCwDimColumns).
  std::optional<std::int64_t> min_partition;
  // Per-rank memory when the topology has custom capacities of the compute
  // device's memory kind; row_wise then splits rows in proportion to it.
  std::vector<std::int64_t> device_memory_sizes;
};

// Raised where torchrec's layout code fails (a zero-row table divides by zero).
class ShardLayoutError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// The shards of the table for `sharding_type`, in torchrec's order.
std::vector<ShardExtent> shard_layout(ShardingType sharding_type, const ShardLayoutRequest& request);

// Width of each column-wise shard: the first multiple of 4 at or above
// `min_partition` (default 128) that divides `cols`, else `cols` (torchrec's
// _get_block_size_for_cw_shard with _find_base_dim).
std::int64_t column_block_size(std::int64_t cols, std::optional<std::int64_t> min_partition);

// Rows of each row-wise shard over `num_devices`: ceil(rows / n) on the leading
// ranks, the remainder on the next one, zero after it (torchrec's
// _calculate_rw_shard_sizes_and_offsets without buckets).
std::vector<std::int64_t> even_row_split(std::int64_t rows, int num_devices);

// Rows per rank in proportion to `memory` (torchrec's
// _calculate_uneven_rw_shard_sizes_and_offsets without buckets): truncated shares,
// the last rank takes what is left.
std::vector<std::int64_t> memory_proportional_row_split(std::int64_t rows, const std::vector<std::int64_t>& memory);

}  // namespace shardplan
