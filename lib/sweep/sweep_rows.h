// A sweep's output: one JSON line (jsonl) or one CSV row (after a header line) per
// point, each carrying the sweep's id, the point's index and the number of points,
// so that resume and merge can check a row belongs to this sweep without the inputs.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/names.h"
#include "sweep/sweep_grid.h"
#include "sweep/sweep_point.h"

namespace shardplan {

enum class SweepFormat { kJsonl, kCsv };

inline constexpr NameTable<SweepFormat, 2> kSweepFormatNames{{
    {SweepFormat::kJsonl, "jsonl", "one JSON object per line"},
    {SweepFormat::kCsv, "csv", "a header line, then one CSV row per point"},
}};

// What every row of one sweep shares.
struct SweepRowContext {
  std::string sweep_id;
  const SweepGrid* grid = nullptr;
};

// "point-000012.json": the plan file of point `index` in --plans-dir.
std::string sweep_plan_file_name(std::size_t index);

// The CSV header line (with '\n'); "" for jsonl, which has none.
std::string sweep_header(SweepFormat format, const SweepGrid& grid);

// The row of `point` (with '\n'); `plan_file` is "" when no plan file was written.
std::string render_sweep_row(SweepFormat format, const SweepRowContext& context, const SweepPointResult& point,
                             const std::string& plan_file);

// What resume, merge and the plot read back from a row.
struct SweepRowRecord {
  std::string sweep_id;
  std::size_t index = 0;
  std::size_t points = 0;
  bool feasible = false;
  std::optional<double> max_rank_perf_ms;
  std::optional<double> max_hbm_bytes;
};

// Reads back a row this format writes (without its '\n'); nullopt when it is not
// one. `csv_columns`: the header's column count, which a CSV row must have.
std::optional<SweepRowRecord> parse_sweep_row(SweepFormat format, std::string_view line, std::size_t csv_columns);

// The number of columns of a CSV line (quoted cells as written by render_sweep_row).
std::size_t csv_column_count(std::string_view line);
// The cells of one CSV row as sweep writes it ("" quotes a cell, "" inside doubles).
std::vector<std::string> sweep_csv_cells(std::string_view line);

}  // namespace shardplan
