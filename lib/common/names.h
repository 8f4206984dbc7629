// One name table per enum: parsing, printing, --help and "did you mean" all read
// these tables, so a name can never be spelt two ways in two places.
#pragma once

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardplan {

// torchrec's ShardingType values, in torchrec's declaration order.
enum class ShardingType {
  kDataParallel,
  kTableWise,
  kColumnWise,
  kRowWise,
  kTableRowWise,
  kTableColumnWise,
  kGridShard,
};

// torchrec's EmbeddingComputeKernel values that the config format accepts.
enum class ComputeKernel {
  kDense,
  kFused,
  kFusedUvm,
  kFusedUvmCaching,
  kKeyValue,
  kQuant,
  kQuantUvm,
  kQuantUvmCaching,
};

enum class DataType { kFp32, kFp16, kBf16, kInt8, kInt4, kInt2 };
enum class ModuleKind { kEmbeddingBag, kEmbedding };
enum class ComputeDevice { kCuda, kCpu, kMtia };
enum class CacheAlgorithm { kLru, kLfu };
enum class BoundsCheckMode { kNone, kWarning, kFatal, kIgnore };
// torchrec's PartitionByType.
enum class PartitionBy { kUniform, kHost, kDevice, kMultiHost };

// One row of a name table: the value, its name in inputs and outputs, what it
// means (for --help), and the torchrec class it stands for where there is one.
template <typename Enum>
struct NameEntry {
  Enum value;
  std::string_view name;
  std::string_view description;
  std::string_view torchrec_name = {};
};

template <typename Enum, std::size_t N>
using NameTable = std::array<NameEntry<Enum>, N>;

inline constexpr NameTable<ShardingType, 7> kShardingTypeNames{{
    {ShardingType::kDataParallel, "data_parallel", "every rank holds the whole table"},
    {ShardingType::kTableWise, "table_wise", "the whole table on one rank"},
    {ShardingType::kColumnWise, "column_wise", "columns split into shards, each on one rank"},
    {ShardingType::kRowWise, "row_wise", "rows split evenly over all ranks"},
    {ShardingType::kTableRowWise, "table_row_wise", "rows split over the ranks of one host"},
    {ShardingType::kTableColumnWise, "table_column_wise", "column shards placed within one host"},
    {ShardingType::kGridShard, "grid_shard", "column shards each split row-wise over one host"},
}};

inline constexpr NameTable<ComputeKernel, 8> kComputeKernelNames{{
    {ComputeKernel::kDense, "dense", "plain dense lookup (data_parallel only)"},
    {ComputeKernel::kFused, "fused", "FBGEMM fused TBE, weights in HBM"},
    {ComputeKernel::kFusedUvm, "fused_uvm", "fused TBE, weights in UVM (host DDR)"},
    {ComputeKernel::kFusedUvmCaching, "fused_uvm_caching", "fused TBE, UVM weights with an HBM cache"},
    {ComputeKernel::kKeyValue, "key_value", "SSD/parameter-server backed key-value TBE"},
    {ComputeKernel::kQuant, "quant", "quantized inference TBE in HBM"},
    {ComputeKernel::kQuantUvm, "quant_uvm", "quantized inference TBE in UVM"},
    {ComputeKernel::kQuantUvmCaching, "quant_uvm_caching", "quantized inference TBE, UVM with HBM cache"},
}};

inline constexpr NameTable<DataType, 6> kDataTypeNames{{
    {DataType::kFp32, "fp32", "4 bytes"},
    {DataType::kFp16, "fp16", "2 bytes"},
    {DataType::kBf16, "bf16", "2 bytes"},
    {DataType::kInt8, "int8", "1 byte"},
    {DataType::kInt4, "int4", "half a byte"},
    {DataType::kInt2, "int2", "a quarter byte"},
}};

inline constexpr NameTable<ModuleKind, 2> kModuleKindNames{{
    {ModuleKind::kEmbeddingBag, "embedding_bag", "pooled EmbeddingBagCollection"},
    {ModuleKind::kEmbedding, "embedding", "sequence (unpooled) EmbeddingCollection"},
}};

inline constexpr NameTable<ComputeDevice, 3> kComputeDeviceNames{{
    {ComputeDevice::kCuda, "cuda", "GPUs"},
    {ComputeDevice::kCpu, "cpu", "CPU hosts (DDR only)"},
    {ComputeDevice::kMtia, "mtia", "MTIA accelerators"},
}};

inline constexpr NameTable<CacheAlgorithm, 2> kCacheAlgorithmNames{{
    {CacheAlgorithm::kLru, "lru", "least recently used"},
    {CacheAlgorithm::kLfu, "lfu", "least frequently used"},
}};

inline constexpr NameTable<BoundsCheckMode, 4> kBoundsCheckModeNames{{
    {BoundsCheckMode::kNone, "none", ""},
    {BoundsCheckMode::kWarning, "warning", ""},
    {BoundsCheckMode::kFatal, "fatal", ""},
    {BoundsCheckMode::kIgnore, "ignore", ""},
}};

inline constexpr NameTable<PartitionBy, 4> kPartitionByNames{{
    {PartitionBy::kUniform, "uniform", "one shard on every rank"},
    {PartitionBy::kHost, "host", "shards placed within one host"},
    {PartitionBy::kDevice, "device", "each shard placed on any device"},
    {PartitionBy::kMultiHost, "multi_host", "grid shards spread over whole hosts"},
}};

template <typename Enum, std::size_t N>
constexpr std::string_view name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.name;
  return "?";
}

template <typename Enum, std::size_t N>
std::optional<Enum> parse_name(const NameTable<Enum, N>& table, std::string_view name) {
  for (const auto& entry : table)
    if (entry.name == name) return entry.value;
  return std::nullopt;
}

// The torchrec class name of `value` ("" when the table has none).
template <typename Enum, std::size_t N>
constexpr std::string_view torchrec_name_of(const NameTable<Enum, N>& table, Enum value) {
  for (const auto& entry : table)
    if (entry.value == value) return entry.torchrec_name;
  return "";
}

// The value whose torchrec class name is `torchrec_name`.
template <typename Enum, std::size_t N>
std::optional<Enum> parse_torchrec_name(const NameTable<Enum, N>& table, std::string_view torchrec_name) {
  for (const auto& entry : table)
    if (!entry.torchrec_name.empty() && entry.torchrec_name == torchrec_name) return entry.value;
  return std::nullopt;
}

template <typename Enum, std::size_t N>
std::vector<std::string> names_of(const NameTable<Enum, N>& table) {
  std::vector<std::string> out;
  for (const auto& entry : table) out.emplace_back(entry.name);
  return out;
}

inline std::string_view to_string(ShardingType v) { return name_of(kShardingTypeNames, v); }
inline std::string_view to_string(ComputeKernel v) { return name_of(kComputeKernelNames, v); }
inline std::string_view to_string(DataType v) { return name_of(kDataTypeNames, v); }
inline std::string_view to_string(ModuleKind v) { return name_of(kModuleKindNames, v); }
inline std::string_view to_string(ComputeDevice v) { return name_of(kComputeDeviceNames, v); }
inline std::string_view to_string(CacheAlgorithm v) { return name_of(kCacheAlgorithmNames, v); }
inline std::string_view to_string(BoundsCheckMode v) { return name_of(kBoundsCheckModeNames, v); }
inline std::string_view to_string(PartitionBy v) { return name_of(kPartitionByNames, v); }

// The names of `table` joined by `separator`, in table order ("a | b" for --help).
template <typename Enum, std::size_t N>
std::string joined_names(const NameTable<Enum, N>& table, std::string_view separator) {
  std::string out;
  for (const auto& entry : table) {
    if (!out.empty()) out += separator;
    out += entry.name;
  }
  return out;
}

// The names of `table` as a sentence, in table order: "text, json or none".
template <typename Enum, std::size_t N>
std::string alternatives_text(const NameTable<Enum, N>& table) {
  std::string out;
  for (std::size_t i = 0; i < N; ++i) {
    if (i > 0) out += i + 1 == N ? " or " : ", ";
    out += table[i].name;
  }
  return out;
}

// The closest name in `candidates` to `name` by edit distance, or "" when none is
// close enough to be a plausible typo.
std::string closest_name(std::string_view name, const std::vector<std::string>& candidates);

// The one wording of an unknown name: "unknown <what> 'text', did you mean 'z'?",
// or "unknown <what> 'text' (<list_label>: a, b, c)" when no known name is close.
std::string unknown_name_message(std::string_view what, std::string_view text, const std::vector<std::string>& known,
                                 std::string_view list_label = "expected one of");

}  // namespace shardplan
