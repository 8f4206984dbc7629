#include "planner/shards/shard_io_sizes.h"

#include <cmath>

#include "common/checked_math.h"

namespace shardplan {

namespace {

// Python's sum(x * y * z for ...) over the features, in order (floating point).
double sum_batch_inputs(const ShardIoRequest& r) {
  double total = 0;
  for (std::size_t i = 0; i < r.input_lengths.size() && i < r.num_poolings.size() && i < r.batch_sizes.size(); ++i)
    total += r.input_lengths[i] * r.num_poolings[i] * static_cast<double>(r.batch_sizes[i]);
  return total;
}

double sum_batch_outputs(const ShardIoRequest& r) {
  double total = 0;
  for (std::size_t i = 0; i < r.num_poolings.size() && i < r.batch_sizes.size(); ++i)
    total += r.num_poolings[i] * static_cast<double>(r.batch_sizes[i]);
  return total;
}

// Held, not wrapped, past any device (pooling factors x batch sizes x ranks can pass 2^63).
std::int64_t ceil_bytes(double bytes) { return ceil_bytes_held(bytes); }

bool is_empty(const ShardDims& size) {
  std::int64_t p = 1;
  for (auto s : size) p *= s;
  return p == 0;
}

}  // namespace

ShardIoSizes calculate_shard_io_sizes(const ShardIoRequest& r) {
  ShardIoSizes out;
  const double world = r.world_size;
  const std::size_t num_shards = r.shard_sizes.size();
  double batch_inputs = sum_batch_inputs(r);
  switch (r.sharding_type) {
    case ShardingType::kDataParallel: {
      double batch_outputs = r.is_pooled ? sum_batch_outputs(r) : batch_inputs;
      out.input_bytes.assign(num_shards, ceil_bytes(batch_inputs * r.input_data_type_size));
      out.output_bytes.assign(num_shards,
                              ceil_bytes(batch_outputs * static_cast<double>(r.emb_dim) * r.output_data_type_size));
      break;
    }
    case ShardingType::kTableWise: {
      // torchrec returns exactly one entry for table-wise (its single shard).
      double batch_outputs = r.is_pooled ? sum_batch_outputs(r) : batch_inputs;
      out.input_bytes.push_back(ceil_bytes(batch_inputs * world * r.input_data_type_size));
      out.output_bytes.push_back(
          ceil_bytes(batch_outputs * world * static_cast<double>(r.emb_dim) * r.output_data_type_size));
      break;
    }
    case ShardingType::kColumnWise:
    case ShardingType::kTableColumnWise: {
      double batch_outputs = r.is_pooled ? sum_batch_outputs(r) : batch_inputs;
      for (const auto& size : r.shard_sizes) {
        out.input_bytes.push_back(ceil_bytes(batch_inputs * world * r.input_data_type_size));
        out.output_bytes.push_back(
            ceil_bytes(batch_outputs * world * static_cast<double>(size[1]) * r.output_data_type_size));
      }
      break;
    }
    case ShardingType::kRowWise:
    case ShardingType::kTableRowWise:
    case ShardingType::kGridShard: {
      // Row-wise spreads ids over the world, table-row-wise over one host; empty
      // shards receive and send nothing.
      double spread = r.sharding_type == ShardingType::kRowWise ? world : r.local_world_size;
      batch_inputs = batch_inputs / spread;
      double batch_outputs = r.is_pooled ? sum_batch_outputs(r) : batch_inputs;
      for (const auto& size : r.shard_sizes) {
        bool empty = is_empty(size);
        out.input_bytes.push_back(empty ? 0 : ceil_bytes(batch_inputs * world * r.input_data_type_size));
        out.output_bytes.push_back(
            empty ? 0 : ceil_bytes(batch_outputs * world * static_cast<double>(size[1]) * r.output_data_type_size));
      }
      break;
    }
  }
  return out;
}

}  // namespace shardplan
