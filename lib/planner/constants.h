// torchrec's planner constants (planner/constants.py) that the topology, the
// enumerator and the storage estimator read. Values are torchrec's; the unit is in
// each name. Perf-only constants live in perf_constants.h.
#pragma once

#include <cstdint>

namespace shardplan {

// Per-device HBM when the topology leaves hbm_cap unset or 0 (cuda and mtia only).
inline constexpr std::int64_t kHbmCapBytes = std::int64_t{32} * 1024 * 1024 * 1024;
// Per-device DDR when ddr_cap is unset or 0.
inline constexpr std::int64_t kDdrCapBytes = std::int64_t{128} * 1024 * 1024 * 1024;

// torchrec writes bandwidths as "GB/s" with 1 GB = 1024^3 bytes, divided by 1000
// to get bytes per millisecond; the same expression gives bit-equal doubles.
inline constexpr double kHbmMemBwBytesPerMs = 897.0 * 1024 * 1024 * 1024 / 1000;
inline constexpr double kDdrMemBwBytesPerMs = 51.0 * 1024 * 1024 * 1024 / 1000;
// Can be below DDR bandwidth: the PCIe link may be shared with the NIC.
inline constexpr double kHbmToDdrMemBwBytesPerMs = 32.0 * 1024 * 1024 * 1024 / 1000;
inline constexpr double kIntraNodeBandwidthBytesPerMs = 600.0 * 1024 * 1024 * 1024 / 1000;
inline constexpr double kCrossNodeBandwidthBytesPerMs = 12.5 * 1024 * 1024 * 1024 / 1000;

inline constexpr double kBwdComputeMultiplier = 2.0;
inline constexpr double kWeightedFeatureBwdComputeMultiplier = 1.0;
inline constexpr double kUnevenShardingPerfMultiplier = 1.0;

// Smallest column-wise shard width torchrec looks for when min_partition is unset.
inline constexpr std::int64_t kMinCwDimColumns = 128;
// Pooling factor (ids per sample) of a table without constraints.
inline constexpr double kPoolingFactor = 1.0;
inline constexpr double kNumPoolings = 1.0;
// Ids are costed as int64 whatever their type (TBE widens them).
inline constexpr double kBigintDtypeBytes = 8;
// HBM share of a *_uvm_caching table when no load factor is given.
inline constexpr double kUvmCachingRatio = 0.2;
// HBM share of a key_value table's cache when the sharder gives none.
inline constexpr double kKvCachingRatio = 0.2;
inline constexpr std::int64_t kBatchSize = 512;

}  // namespace shardplan
