// A picture of a plan (`shardplan plan --report plan.html`): one self-contained HTML
// page, inline SVG and CSS, no network; one small inline script sorts the per-table
// table, and everything else needs none. A header with the inputs and
// the headline figures (max-rank perf, the lower bound and the gap, HBM and DDR use
// against what the storage reservation leaves), one row of bars per rank grouped by
// host (perf by part; HBM and DDR by sharding type, with the numbers), or past
// kReportBarRanksMax ranks two heat maps (perf, HBM) with the worst ranks listed; and
// a table per embedding table. Deterministic text.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "config/config.h"
#include "config/plan_file.h"
#include "planner/run.h"

namespace shardplan {

// Up to this many ranks the report draws a row of bars per rank; past it, heat maps.
inline constexpr std::size_t kReportBarRanksMax = 64;

// One shard as the picture shows it.
struct ReportShard {
  std::string table;  // "module.path.table"
  std::string sharding_type;
  std::string compute_kernel;
  std::int64_t hbm = 0, ddr = 0;  // bytes
  double perf_ms = 0;
};

// One rank's row.
struct ReportRank {
  int rank = 0;
  std::int64_t hbm_capacity = 0, ddr_capacity = 0;  // the device's
  std::int64_t hbm_usable = 0, ddr_usable = 0;      // usable capacity (planner/memory_basis.h)
  // What the storage reservation set aside for the dense part and the KJT inputs: counted
  // as used, so every "% used" here is the plan file's "memory" block's figure.
  std::int64_t hbm_reserved = 0, ddr_reserved = 0;
  std::vector<ReportShard> shards;                         // in plan order
  std::vector<std::pair<std::string, double>> perf_parts;  // fwd_compute .. prefetch_compute, ms
  double perf_total_ms = 0;                                // the plan file's per_rank perf total

  std::int64_t hbm_used() const;
  std::int64_t ddr_used() const;
};

// One embedding table of the plan.
struct ReportTable {
  std::string table;  // "module.path.table"
  std::string sharding_type;
  std::string compute_kernel;
  std::vector<int> ranks;  // as the plan lists them
  std::int64_t hbm = 0, ddr = 0;
  double perf_ms = 0;  // the table's total perf (sum over its shards)
};

struct PlanPicture {
  std::string model;
  int local_world_size = 0;  // ranks per host
  std::string compute_device;
  std::vector<ReportRank> ranks;
  std::vector<ReportTable> tables;  // in plan order
  double max_rank_perf_ms = 0;      // the plan's summary
  std::optional<double> lower_bound_ms;
  std::optional<double> gap;  // (max-rank perf - bound) / bound
  std::string bound_binding;  // which bound binds
  std::string storage_reservation;
  // Inputs the plan file does not record (partitioner, proposers, files), as
  // label and value; the command that planned fills them in.
  std::vector<std::pair<std::string, std::string>> inputs;
};

// The picture of a run that found a plan (run.ok()), from the computed values
// themselves (`shardplan plan --report`): the same figures the plan file states.
PlanPicture plan_picture(const PlanRun& run, const std::string& model_name);

// The picture of a plan file read as input (`shardplan diff OLD NEW --report`).
// For the file `plan` wrote from `run`, equal to plan_picture(run, model).
PlanPicture plan_picture(const PlanFile& file);

// The planner's choices the plan file does not record, as PlanPicture::inputs rows:
// partitioner (with its greedy order) and proposers.
std::vector<std::pair<std::string, std::string>> planner_input_rows(const PlannerOptions& planner);

// The headline storage figure of one kind: the rank using the largest share of what
// the storage reservation leaves it ("usable"), and that share.
struct StorageHeadline {
  int rank = 0;
  std::int64_t used = 0;
  std::int64_t usable = 0;         // after the storage reservation: the basis of `fraction`
  std::int64_t capacity = 0;       // the device's
  std::optional<double> fraction;  // used / usable; unset when usable is 0
};
StorageHeadline storage_headline(const PlanPicture& picture, bool hbm);

// "0-7", "0, 3, 5-9": ranks as sorted, merged ranges.
std::string rank_ranges_text(std::vector<int> ranks);

// The header (inputs and headline figures) as an HTML fragment; the plan report and
// the diff report share it.
std::string render_plan_header_html(const PlanPicture& picture, const std::string& id_prefix);
// The per-rank view (bars or heat maps) as an HTML fragment; its axes (or colour
// bins) cover `picture` and the pictures in `same_scale` (a diff's other plan).
std::string render_rank_view_html(const PlanPicture& picture, const std::string& id_prefix,
                                  const std::vector<const PlanPicture*>& same_scale = {});
// The per-table table as an HTML fragment (class "sortable": report_sort_script sorts it).
std::string render_table_view_html(const PlanPicture& picture);
// The page's one script: a click on a heading of a "sortable" table sorts its rows
// (numbers by their data-value, largest first; text A to Z; again to reverse). The
// page reads the same without it: the table is then in plan order.
std::string report_sort_script();
// The page's <head> and style (shared with the diff report), up to and with "<body>\n".
std::string report_page_start(const std::string& title);

// The HTML page of `picture`; deterministic.
std::string render_plan_report_html(const PlanPicture& picture);

}  // namespace shardplan
