#include "planner/shards/shard_layout.h"

#include <cmath>
#include <numeric>
#include <string>

#include "planner/constants.h"

namespace shardplan {

namespace {

std::vector<ShardExtent> rows_to_shards(const std::vector<std::int64_t>& rows, std::int64_t cols) {
  std::vector<ShardExtent> shards;
  shards.reserve(rows.size());
  std::int64_t offset = 0;
  for (std::int64_t r : rows) {
    shards.push_back({{r, cols}, {offset, 0}});
    offset += r;
  }
  return shards;
}

}  // namespace

std::int64_t column_block_size(std::int64_t cols, std::optional<std::int64_t> min_partition) {
  // A falsy min_partition means the default, as in torchrec.
  const std::int64_t lower = min_partition.value_or(0) != 0 ? *min_partition : kMinCwDimColumns;
  std::int64_t base = cols;
  for (std::int64_t i = std::max<std::int64_t>(lower, 1); i < cols; ++i) {
    if (cols % i == 0 && i % 4 == 0) {
      base = i;
      break;
    }
  }
  // torchrec takes min(base, cols) and falls back to cols when it does not divide;
  // base always divides cols here, so only the min can matter.
  return std::min(base, cols);
}

std::vector<std::int64_t> even_row_split(std::int64_t rows, int num_devices) {
  if (rows <= 0 || num_devices <= 0)
    throw ShardLayoutError("cannot split " + std::to_string(rows) + " rows over " + std::to_string(num_devices) +
                           " devices (torchrec: division by zero)");
  // torchrec computes math.ceil(rows / n) in floating point.
  const auto block = static_cast<std::int64_t>(std::ceil(static_cast<double>(rows) / static_cast<double>(num_devices)));
  const std::int64_t last_rank = rows / block;
  const std::int64_t last_block = rows - block * last_rank;
  std::vector<std::int64_t> out;
  out.reserve(static_cast<std::size_t>(num_devices));
  for (std::int64_t rank = 0; rank < num_devices; ++rank) {
    if (rank < last_rank)
      out.push_back(block);
    else if (rank == last_rank)
      out.push_back(last_block);
    else
      out.push_back(0);
  }
  return out;
}

std::vector<std::int64_t> memory_proportional_row_split(std::int64_t rows, const std::vector<std::int64_t>& memory) {
  const std::int64_t total = std::accumulate(memory.begin(), memory.end(), std::int64_t{0});
  if (total <= 0)
    throw ShardLayoutError(
        "cannot split rows in proportion to the ranks' memory: the topology's custom "
        "capacities (custom.hbm_cap or custom.ddr_cap) sum to " +
        std::to_string(total) + " (torchrec: division by zero)");
  std::vector<std::int64_t> out;
  out.reserve(memory.size());
  std::int64_t assigned = 0;
  for (std::size_t rank = 0; rank < memory.size(); ++rank) {
    if (rank + 1 < memory.size()) {
      // int(rows * (memory / total)), evaluated in doubles as torchrec does.
      const double share = static_cast<double>(memory[rank]) / static_cast<double>(total);
      const auto r = static_cast<std::int64_t>(static_cast<double>(rows) * share);
      out.push_back(r);
      assigned += r;
    } else {
      out.push_back(rows - assigned);
    }
  }
  return out;
}

std::vector<ShardExtent> shard_layout(ShardingType sharding_type, const ShardLayoutRequest& req) {
  const std::int64_t rows = req.rows;
  const std::int64_t cols = req.cols;
  switch (sharding_type) {
    case ShardingType::kDataParallel:
      return std::vector<ShardExtent>(static_cast<std::size_t>(req.world_size), ShardExtent{{rows, cols}, {0, 0}});
    case ShardingType::kTableWise:
      return {ShardExtent{{rows, cols}, {0, 0}}};
    case ShardingType::kRowWise:
      // Uneven split only with custom capacities (torchrec's device_memory_sizes).
      if (!req.device_memory_sizes.empty())
        return rows_to_shards(memory_proportional_row_split(rows, req.device_memory_sizes), cols);
      return rows_to_shards(even_row_split(rows, req.world_size), cols);
    case ShardingType::kTableRowWise:
      return rows_to_shards(even_row_split(rows, req.local_world_size), cols);
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise: {
      const std::int64_t block = column_block_size(cols, req.min_partition);
      std::vector<ShardExtent> shards;
      for (std::int64_t i = 0; i < cols / block; ++i) shards.push_back({{rows, block}, {0, block * i}});
      return shards;
    }
    case ShardingType::kGridShard: {
      // Column blocks, each split row-wise over one host; column-major order.
      const auto row_split = even_row_split(rows, req.local_world_size);
      const std::int64_t block = column_block_size(cols, req.min_partition);
      std::vector<ShardExtent> shards;
      for (std::int64_t i = 0; i < cols / block; ++i) {
        std::int64_t offset = 0;
        for (std::int64_t r : row_split) {
          shards.push_back({{r, block}, {offset, block * i}});
          offset += r;
        }
      }
      return shards;
    }
  }
  throw ShardLayoutError("unknown sharding type");
}

}  // namespace shardplan
