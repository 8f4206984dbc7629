// A sweep for people: the rows as figures (rather than text), read from the points
// just planned or from a sweep's jsonl/csv output; rendered as an aligned text table
// or a Markdown table (`sweep --format table|markdown`), summarised on stderr (the
// best point by each objective and the Pareto front of perf against HBM), and drawn
// by the plot (sweep/sweep_plot.h).
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

// The formats for reading, besides the row formats (sweep_rows.h) that resume and
// merge read back.
enum class SweepDisplayFormat { kTable, kMarkdown };

inline constexpr NameTable<SweepDisplayFormat, 2> kSweepDisplayFormatNames{{
    {SweepDisplayFormat::kTable, "table", "an aligned text table, written when the sweep ends"},
    {SweepDisplayFormat::kMarkdown, "markdown", "a Markdown table, written when the sweep ends"},
}};

// One point as the table, the summary and the plot show it.
struct SweepTableRow {
  std::size_t index = 0;
  std::vector<std::string> values;                   // the swept values' text, in field order
  std::vector<std::optional<double>> value_numbers;  // the values as numbers (sizes in bytes); unset for names
  bool feasible = false;
  std::string failure;
  std::optional<double> max_rank_perf_ms;
  std::optional<double> max_hbm_bytes;
  std::optional<double> max_hbm_fraction;  // of the device's HBM
  std::optional<double> imbalance;
  std::optional<double> throughput;    // samples/s: batch_size x world_size / max-rank perf
  std::optional<double> wall_seconds;  // the point's planning time; never in jsonl/csv
};

struct SweepTable {
  std::vector<std::string> fields;  // the swept fields' names, in grid order
  std::vector<SweepTableRow> rows;  // in grid order
};

// The fields of `grid`, by name.
std::vector<std::string> sweep_table_fields(const SweepGrid& grid);

// The row of a point just planned.
SweepTableRow sweep_table_row(const SweepGrid& grid, const SweepPointResult& point);

// The rows of a sweep's output (jsonl or csv, as `sweep` and `sweep merge` write
// them): lines that are not rows are skipped. Wall times are not in those files.
SweepTable read_sweep_table(std::string_view text);

// The table (all rows) in `format`; numbers rounded for reading (4 significant
// digits), the wall-time column last.
std::string render_sweep_table(const SweepTable& table, SweepDisplayFormat format);

// The summary printed on stderr when a sweep ends: points, feasible, elapsed; the
// best point by each objective (least max-rank perf, least max HBM, most
// throughput); the Pareto front of max-rank perf against max HBM (the feasible
// points no other point beats in both), by increasing HBM.
std::string render_sweep_summary(const SweepTable& table, double elapsed_seconds);

// The indices (into table.rows) of the Pareto front of perf against HBM, by increasing HBM.
std::vector<std::size_t> sweep_pareto_front(const SweepTable& table);

// "000017-world_size=8-hbm_cap=16GiB.json": point `index`'s plan file name in
// --plans-dir: the index (unique, sorts in grid order), then the values, with
// anything but letters, digits, '.', '+', '=' and '_' dropped or made '_'.
std::string sweep_plan_file_name_of(const SweepGrid& grid, std::size_t index);

}  // namespace shardplan
