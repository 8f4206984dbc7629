// The arithmetic torchrec's storage reservations share (storage_reservations.py).
#pragma once

#include <cstdint>
#include <optional>

#include "config/config.h"
#include "planner/types.h"

namespace shardplan::reservation {

// Bytes per element of a dense parameter of this type.
double dense_element_bytes(DataType type);

// Bytes per element torchrec's training EBC/EC allocate for a table of this type
// (fp32 stays 4 bytes, every other type becomes fp16).
int table_element_bytes(DataType type);

// torchrec's _get_dense_tensor_size: round(multiplier x all parameter bytes) minus,
// per shardable module, round(multiplier x its parameter bytes); then the user's
// dense_tensor_estimate replaces it when it is given and non-zero.
std::int64_t dense_tensor_bytes(const ModelConfig& model, double multiplier,
                                std::optional<std::int64_t> dense_tensor_estimate);

// torchrec's _reserve_kjt_storage size: ceil(sum(pooling_factor x batch) x 8) x multiplier,
// over every feature of every table of every shardable module.
std::int64_t kjt_bytes(const ModelConfig& model, std::int64_t multiplier);

// torchrec's _reserve_storage_percentage: HBM becomes int((1 - percent) x HBM); DDR is kept.
void reserve_percentage(Topology& topology, double percent);

// Subtracts `bytes` from every rank: from HBM on cuda/mtia, from DDR on cpu; returns
// the per-rank Storage that was taken.
Storage reserve_per_rank(Topology& topology, std::int64_t bytes);

}  // namespace shardplan::reservation
