// The empirical constants of torchrec's perf model (planner/constants.py) that only
// the perf estimator reads. Values are torchrec's, unit beside each.
#pragma once

#include <cstdint>

namespace shardplan::perf_constants {

// Row-wise / table-row-wise backward copies the output gradient this many times.
inline constexpr double kBatchedCopyPerfFactor = 2.455;
// FBGEMM's TBE kernel is fully occupied from this embedding dim (32 threads x 4).
inline constexpr std::int64_t kFullBlockEmbDim = 128;
// Table-wise lookups of dim in [64, 128) run at reduced efficiency.
inline constexpr double kHalfBlockPenalty = 1.15;
// Table-wise lookups of dim below 64.
inline constexpr double kQuarterBlockPenalty = 1.75;
// Table-wise lookups read at least this many columns per row.
inline constexpr std::int64_t kMinLookupEmbDim = 32;
// Extra backward kernel for per-sample weights, as a factor of fwd_compute.
inline constexpr double kWeightedKernelMultiplier = 1.1;
// Data-parallel optimizer (SGD + fill + unary) passes over the table, in table sizes.
inline constexpr double kDpElementwiseKernelsPerfFactor = 9.22;

}  // namespace shardplan::perf_constants
