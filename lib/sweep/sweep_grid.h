// A sweep's grid: the cartesian product of the values of each swept field, in the
// order the fields were given, the last field varying fastest (like nested loops
// written in that order). Point i is planned with the overrides grid.overrides_at(i).
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.h"
#include "config/config.h"
#include "sweep/sweep_fields.h"

namespace shardplan {

// The most points one sweep may have: far beyond any useful sweep, and small
// enough that a typo (ten fields of ten values) is refused before it runs for days.
inline constexpr std::size_t kMaxSweepPoints = 1'000'000;

// One swept field and its values, with where each was given (for messages).
struct SweepAxis {
  SweepField field = SweepField::kWorldSize;
  std::vector<SweepValue> values;
  std::vector<SourcePos> value_pos;     // one per value
  std::vector<std::string> value_path;  // one per value: "--set world_size[1]", "grid.world_size[1]"
};

struct SweepGrid {
  std::vector<SweepAxis> axes;

  // The number of points (1 for a grid without axes).
  std::size_t size() const;
  // The value index on each axis of point `index`.
  std::vector<std::size_t> coordinates(std::size_t index) const;
  // The planner overrides of point `index`.
  PlannerOverrides overrides_at(std::size_t index) const;
  // "world_size=8,16;hbm_cap=40 GiB,80 GiB": the grid as one canonical text (for the sweep id).
  std::string canonical_text() const;
};

// Reads the grid from a sweep file (may be empty: none) and `--set FIELD=V1,V2`
// arguments (appended after the file's fields). Throws InputError listing every
// problem: unknown fields (with "did you mean"), bad values, empty lists, a field
// given twice, a duplicate value, more than kMaxSweepPoints points.
SweepGrid read_sweep_grid(const std::string& sweep_file, const std::vector<std::string>& set_arguments);

// Expands one `--set` item: "8..64:8" (8, 16, ..., 64), "8..1024:*2" (8, 16, 32, ...,
// 1024: each the one before times 2), "1..4" (step 1); the end is included when the
// steps reach it. Text without ".." is one value, unchanged. Returns nullopt and
// sets *error for a malformed range or one of more than kMaxSweepPoints values.
std::optional<std::vector<std::string>> expand_sweep_range(std::string_view text, std::string* error);

// Checks that every value of every axis applies to `base`: ranges and topology
// conflicts, as `plan`'s flags are checked (a value alone; the fields are
// independent). Throws InputError at each bad value's position.
void check_grid_applies(const SweepGrid& grid, const PlanningInput& base);

}  // namespace shardplan
