// A picture of a plan (`shardplan plan --report plan.html`): one self-contained HTML
// page with inline SVG, no script and no network. Per rank, three stacked bars: HBM
// and DDR use by shard against the rank's capacity (the dashed line is what the
// storage reservation leaves for the tables), and perf by part; hovering a shard
// shows its table, sharding type, kernel, storage and perf.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace shardplan {

// One shard as the picture shows it.
struct ReportShard {
  std::string table;  // "module.path.table"
  std::string sharding_type;
  std::string compute_kernel;
  std::int64_t hbm = 0, ddr = 0;  // bytes
  double perf_ms = 0;
};

// One rank's column.
struct ReportRank {
  int rank = 0;
  std::int64_t hbm_capacity = 0, ddr_capacity = 0;  // the device's
  std::int64_t hbm_usable = 0, ddr_usable = 0;      // left after the storage reservation
  std::vector<ReportShard> shards;                  // in plan order
  std::vector<std::pair<std::string, double>> perf_parts;  // fwd_compute .. prefetch_compute, ms
};

struct PlanPicture {
  std::string model;
  std::vector<ReportRank> ranks;
};

// The picture's data, read from a plan file document (schemas/plan.schema.json).
PlanPicture plan_picture(const nlohmann::json& plan_file);

// The HTML page of `picture`; deterministic.
std::string render_plan_report_html(const PlanPicture& picture);

}  // namespace shardplan
