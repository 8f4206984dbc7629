// Bounds on what a planner input may ask for, so that a small file can make
// shardplan neither work nor allocate without bound, and so that every size
// computed from the input fits in 64 bits. Each bound is far above what real models
// use (the reference cases reach 2e9 rows, dim 512, 512 ranks, batch 2048). The
// bounds of any input document (its size, nesting, nodes) are document/limits.h's.
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include <yaml-cpp/yaml.h>

#include "config/config.h"
#include "document/limits.h"
#include "document/node_reader.h"

namespace shardplan {

// Tables in one model, and feature names of one table.
inline constexpr std::int64_t kMaxTables = 100'000;
inline constexpr std::int64_t kMaxFeaturesPerTable = 10'000;
// Rows and columns of one table, and rows x columns of one table and of the whole model.
inline constexpr std::int64_t kMaxNumEmbeddings = std::int64_t{1} << 40;
inline constexpr std::int64_t kMaxEmbeddingDim = std::int64_t{1} << 16;
inline constexpr std::int64_t kMaxTableElements = std::int64_t{1} << 48;
inline constexpr std::int64_t kMaxModelElements = std::int64_t{1} << 50;
// Ranks (world_size, local_world_size) and the batch size of one rank.
inline constexpr std::int64_t kMaxWorldSize = std::int64_t{1} << 16;
inline constexpr std::int64_t kMaxBatchSize = std::int64_t{1} << 20;
// pooling_factors and num_poolings entries.
inline constexpr double kMaxPoolingFactor = 1'048'576.0;
// Bytes of one device (hbm_cap, ddr_cap) and of the dense part (1 PiB).
inline constexpr std::int64_t kMaxBytes = std::int64_t{1} << 50;
// Dense parameters.
inline constexpr std::int64_t kMaxDenseParameters = std::int64_t{1} << 48;
// memory_balanced's max_search_count: each search step runs the partitioner again.
inline constexpr std::int64_t kMaxSearchCount = 1'000;
// The heuristical reservation's parameter_multiplier (torchrec's default is 6).
inline constexpr double kMaxParameterMultiplier = 1'000.0;

// Reports a table whose num_embeddings x embedding_dim passes kMaxTableElements.
// (For both trees: `Node` is YAML::Node or JsonNode.)
template <class Node>
void check_table_elements(BasicNodeReader<Node>& reader, const std::type_identity_t<Node>& table_node,
                          const std::string& path, const TableConfig& table);
// Reports a model of more than kMaxTables tables, or whose tables together pass
// kMaxModelElements (at the table where the running total passes it).
template <class Node>
void check_model_size(BasicNodeReader<Node>& reader, const ModelConfig& model, const std::string& path);

// The range rules (document/limits.h's IntegerRule) of values that both an input
// file and a planner override (planner_overrides.h) set: one rule each, read by the
// file readers and by apply_planner_overrides, so both accept exactly the same values.
inline constexpr IntegerRule kWorldSizeRule{Range::kPositive, kMaxWorldSize};
// torchrec's Topology takes any local world size >= 0 (0 means world_size).
inline constexpr IntegerRule kLocalWorldSizeRule{Range::kNonNegative, kMaxWorldSize};
// A batch size (a file's batch_size of 0 is torchrec's "not given", before this rule).
inline constexpr IntegerRule kBatchSizeRule{Range::kPositive, kMaxBatchSize};
inline constexpr IntegerRule kGreedyThresholdRule{Range::kNonNegative, std::int64_t{1} << 30};
// hbm_cap / ddr_cap of one device, in bytes.
inline constexpr IntegerRule kDeviceBytesRule{Range::kNonNegative, kMaxBytes};

// torchrec's reservations assert 0 <= percentage <= 1 (storage_reservations.py); NaN breaks it too.
bool is_reservation_fraction(double value);

}  // namespace shardplan
