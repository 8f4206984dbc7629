// Name tables for the planner stages chosen by name in planner options: the name
// in inputs, a description for --help, and torchrec's class name. The loader turns
// names into these enums; the stage factories (lib/planner) switch over the enums.
#pragma once

#include "common/names.h"

namespace shardplan {

enum class ProposerKind { kGridSearch, kGreedy, kGreedySum, kUniform, kOffloadScaleup };
enum class PartitionerKind { kGreedy, kMemoryBalanced, kOptimizing };
enum class ReservationPolicy { kHeuristical, kFixedPercentage, kInference };
// GreedyPerfPartitioner's SortBy.
enum class GreedySortBy { kStorage, kPerf };

inline constexpr NameTable<ProposerKind, 5> kProposerNames{{
    {ProposerKind::kGridSearch, "grid_search", "every combination of options", "GridSearchProposer"},
    {ProposerKind::kGreedy, "greedy", "one table's next option at a time, by perf (use_depth=True)", "GreedyProposer"},
    {ProposerKind::kGreedySum, "greedy_sum", "as greedy, ranking options by perf sum (use_depth=False)",
     "GreedyProposer"},
    {ProposerKind::kUniform, "uniform", "one sharding type for all tables", "UniformProposer"},
    {ProposerKind::kOffloadScaleup, "offload_scaleup", "cache sizes of UVM-cached tables",
     "EmbeddingOffloadScaleupProposer"},
}};

inline constexpr NameTable<PartitionerKind, 3> kPartitionerNames{{
    {PartitionerKind::kGreedy, "greedy", "greedy placement by sort_by (balance_modules)", "GreedyPerfPartitioner"},
    {PartitionerKind::kMemoryBalanced, "memory_balanced",
     "greedy by perf, then the lowest per-device HBM cap within `tolerance` of its perf "
     "(max_search_count, tolerance, balance_modules)",
     "MemoryBalancedPartitioner"},
    {PartitionerKind::kOptimizing, "optimizing",
     "greedy, then moves, swaps, option changes and ruin-and-recreate off the bottleneck rank (--time-budget); "
     "never worse than greedy",
     ""},
}};

inline constexpr NameTable<ReservationPolicy, 3> kReservationPolicyNames{{
    {ReservationPolicy::kHeuristical, "heuristical", "dense part and KJT inputs estimated, plus a percentage",
     "HeuristicalStorageReservation"},
    {ReservationPolicy::kFixedPercentage, "fixed_percentage", "a fixed share of HBM",
     "FixedPercentageStorageReservation"},
    {ReservationPolicy::kInference, "inference", "as heuristical, for inference", "InferenceStorageReservation"},
}};

inline constexpr NameTable<GreedySortBy, 2> kGreedySortByNames{{
    {GreedySortBy::kStorage, "storage", "place the largest shards first", "SortBy.STORAGE"},
    {GreedySortBy::kPerf, "perf", "place the slowest shards first", "SortBy.PERF"},
}};

inline std::string_view to_string(ProposerKind v) { return name_of(kProposerNames, v); }
inline std::string_view to_string(PartitionerKind v) { return name_of(kPartitionerNames, v); }
inline std::string_view to_string(ReservationPolicy v) { return name_of(kReservationPolicyNames, v); }
inline std::string_view to_string(GreedySortBy v) { return name_of(kGreedySortByNames, v); }

}  // namespace shardplan
