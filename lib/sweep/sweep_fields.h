// The fields a sweep can vary: each is one planner override (config/planner_overrides.h),
// so a sweep point is exactly a PlannerOverrides, as `plan`'s flags would give it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "common/names.h"
#include "config/planner_overrides.h"

namespace shardplan {

enum class SweepField {
  kWorldSize,
  kLocalWorldSize,
  kHbmCap,
  kDdrCap,
  kBatchSize,
  kPartitioner,
  kProposers,
  kStorageReservation,
  kReservationPercentage,
  kSortBy,
  kGreedyThreshold,
};

// Field names are the `plan` flag names with '_' for '-' (--world-size -> world_size).
inline constexpr NameTable<SweepField, 11> kSweepFieldNames{{
    {SweepField::kWorldSize, "world_size", "number of ranks (integer)"},
    {SweepField::kLocalWorldSize, "local_world_size", "ranks per host (integer)"},
    {SweepField::kHbmCap, "hbm_cap", "HBM per rank (size, e.g. '80 GiB')"},
    {SweepField::kDdrCap, "ddr_cap", "DDR per rank (size)"},
    {SweepField::kBatchSize, "batch_size", "per-rank batch size (integer)"},
    {SweepField::kPartitioner, "partitioner", "partitioner name"},
    {SweepField::kProposers, "proposers", "proposer names joined by '+' (one value: grid_search+greedy)"},
    {SweepField::kStorageReservation, "storage_reservation", "storage reservation name"},
    {SweepField::kReservationPercentage, "reservation_percentage", "share of HBM reserved (ratio: 15% or 0.15)"},
    {SweepField::kSortBy, "sort_by", "greedy partitioner order name"},
    {SweepField::kGreedyThreshold, "greedy_threshold", "greedy proposers' stop threshold (integer)"},
}};

// How a field's values are written and read.
enum class SweepValueKind { kInteger, kNumber, kSize, kName, kNameList };

SweepValueKind value_kind_of(SweepField field);

// One value of a swept field.
struct SweepValue {
  std::string text;  // canonical text: "8", "0.2", "40 GiB", "greedy", "grid_search+greedy"
  // The value as a number (bytes for sizes) for integers, numbers and sizes; unset for names.
  std::optional<double> number;
  std::optional<std::int64_t> integer;  // integers only, exactly
};

// Reads `text` as a value of `field`: integers and numbers in full, sizes as the
// topology file reads them, names against their name table (with "did you mean").
// Returns nullopt and sets *error ("expected ..., found ...") when it is not one.
// Ranges (world_size > 0, ...) are checked where the override is applied.
std::optional<SweepValue> parse_sweep_value(SweepField field, std::string_view text, std::string* error);

// Sets `field` to `value` in `overrides` (value as parse_sweep_value read it).
void set_override(PlannerOverrides& overrides, SweepField field, const SweepValue& value);

}  // namespace shardplan
