#include "planner/reservations/reservation_math.h"

#include <cmath>

#include "common/checked_math.h"

namespace shardplan::reservation {

namespace {
// torchrec's BIGINT_DTYPE: KJT indices and lengths are int64.
constexpr double kKjtElementBytes = 8.0;
}  // namespace

double dense_element_bytes(DataType type) {
  switch (type) {
    case DataType::kFp32:
      return 4;
    case DataType::kFp16:
    case DataType::kBf16:
      return 2;
    case DataType::kInt8:
      return 1;
    case DataType::kInt4:
      return 0.5;
    case DataType::kInt2:
      return 0.25;
  }
  return 4;
}

int table_element_bytes(DataType type) { return type == DataType::kFp32 ? 4 : 2; }

std::int64_t dense_tensor_bytes(const ModelConfig& model, double multiplier,
                                std::optional<std::int64_t> dense_tensor_estimate) {
  // Python's round() is round-half-to-even, as is nearbyint in the default mode.
  double whole_model = 0;
  std::int64_t shardable = 0;
  for (const auto& module : model.modules) {
    double module_bytes = 0;
    for (const auto& table : module.tables) {
      double bytes = multiplier * static_cast<double>(table.num_embeddings * table.embedding_dim *
                                                      table_element_bytes(table.data_type));
      module_bytes += bytes;
      whole_model += bytes;
    }
    shardable += static_cast<std::int64_t>(std::nearbyint(module_bytes));
  }
  whole_model += multiplier * static_cast<double>(model.dense.parameters) * dense_element_bytes(model.dense.data_type);
  std::int64_t size = static_cast<std::int64_t>(std::nearbyint(whole_model)) - shardable;
  // torchrec tests the estimate for truthiness: 0 keeps the heuristic.
  if (dense_tensor_estimate && *dense_tensor_estimate != 0) size = *dense_tensor_estimate;
  return size;
}

std::int64_t kjt_bytes(const ModelConfig& model, std::int64_t multiplier) {
  double batch_inputs = 0;
  for (const auto& module : model.modules) {
    for (const auto& table : module.tables) {
      std::vector<double> pooling{1.0};
      std::vector<std::int64_t> batches;
      auto it = model.constraints.find(table.name);
      if (it != model.constraints.end()) {
        pooling = it->second.pooling_factors;
        if (it->second.batch_sizes && !it->second.batch_sizes->empty()) batches = *it->second.batch_sizes;
      }
      if (batches.empty()) batches.assign(pooling.size(), model.batch_size);
      // zip() in torchrec stops at the shorter list.
      std::size_t n = std::min(pooling.size(), batches.size());
      for (std::size_t i = 0; i < n; ++i) batch_inputs += pooling[i] * static_cast<double>(batches[i]);
    }
  }
  return ceil_bytes_held(batch_inputs * kKjtElementBytes) * multiplier;  // held, never wrapped
}

void reserve_percentage(Topology& topology, double percent) {
  for (auto& device : topology.devices)
    device.storage.hbm = static_cast<std::int64_t>((1 - percent) * static_cast<double>(device.storage.hbm));
}

Storage reserve_per_rank(Topology& topology, std::int64_t bytes) {
  Storage taken;
  if (topology.compute_device == ComputeDevice::kCpu)
    taken.ddr = bytes;
  else
    taken.hbm = bytes;
  for (auto& device : topology.devices) device.storage -= taken;
  return taken;
}

}  // namespace shardplan::reservation
