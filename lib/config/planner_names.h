// Name tables for the planner stages chosen by name in planner options. The
// loader validates against them; planner code maps the names to implementations.
#pragma once

#include "common/names.h"

namespace shardplan {

enum class ProposerKind { kGridSearch, kGreedy, kGreedySum, kUniform, kOffloadScaleup };
enum class PartitionerKind { kGreedy, kMemoryBalanced };
enum class ReservationPolicy { kHeuristical, kFixedPercentage, kInference };
// GreedyPerfPartitioner's SortBy (named apart from the partitioner's own SortBy
// in planner/partitioners, which may map from this one).
enum class GreedySortBy { kStorage, kPerf };

inline constexpr NameTable<ProposerKind, 5> kProposerNames{{
    {ProposerKind::kGridSearch, "grid_search", "GridSearchProposer: every combination of options"},
    {ProposerKind::kGreedy, "greedy", "GreedyProposer(use_depth=True)"},
    {ProposerKind::kGreedySum, "greedy_sum", "GreedyProposer(use_depth=False)"},
    {ProposerKind::kUniform, "uniform", "UniformProposer: one sharding type for all tables"},
    {ProposerKind::kOffloadScaleup, "offload_scaleup", "EmbeddingOffloadScaleupProposer: cache sizes"},
}};

inline constexpr NameTable<PartitionerKind, 2> kPartitionerNames{{
    {PartitionerKind::kGreedy, "greedy", "GreedyPerfPartitioner"},
    {PartitionerKind::kMemoryBalanced, "memory_balanced", "MemoryBalancedPartitioner"},
}};

inline constexpr NameTable<ReservationPolicy, 3> kReservationPolicyNames{{
    {ReservationPolicy::kHeuristical, "heuristical", "HeuristicalStorageReservation"},
    {ReservationPolicy::kFixedPercentage, "fixed_percentage", "FixedPercentageStorageReservation"},
    {ReservationPolicy::kInference, "inference", "InferenceStorageReservation"},
}};

inline constexpr NameTable<GreedySortBy, 2> kGreedySortByNames{{
    {GreedySortBy::kStorage, "storage", "place the largest shards first"},
    {GreedySortBy::kPerf, "perf", "place the slowest shards first"},
}};

inline std::string_view to_string(ProposerKind v) { return name_of(kProposerNames, v); }
inline std::string_view to_string(PartitionerKind v) { return name_of(kPartitionerNames, v); }
inline std::string_view to_string(ReservationPolicy v) { return name_of(kReservationPolicyNames, v); }
inline std::string_view to_string(GreedySortBy v) { return name_of(kGreedySortByNames, v); }

}  // namespace shardplan
