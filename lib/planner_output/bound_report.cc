#include "planner_output/bound_report.h"

#include <cmath>

#include <fmt/format.h>

#include "common/json_object.h"

namespace shardplan {

namespace {

nlohmann::ordered_json number_or_null(double x) {
  return std::isfinite(x) ? nlohmann::ordered_json(x) : nlohmann::ordered_json(nullptr);
}

}  // namespace

nlohmann::ordered_json bound_json(const LowerBound& bound, double plan_rating) {
  nlohmann::ordered_json bounds = nlohmann::ordered_json::object();
  for (const BoundValue& b : bound.bounds) bounds[std::string(to_string(b.kind))] = number_or_null(b.value);
  const double value = bound.feasible ? bound.value : std::nan("");
  nlohmann::ordered_json out =
      json_object("value", number_or_null(value), "gap", number_or_null(bound_gap(plan_rating, value)), "binding",
                  std::string(to_string(bound.binding)), "bounds", std::move(bounds));
  // --partitioner optimizing only (greedy's plan files stay as they were).
  if (bound.exact) out["optimal"] = bound.feasible && plan_rating == bound.value;
  return out;
}

std::string bound_line(const LowerBound& bound, double plan_rating) {
  if (!bound.feasible) return "lower bound: none (some table fits nowhere)";
  const double gap = bound_gap(plan_rating, bound.value);
  return fmt::format("lower bound {:.3f} ms ({}), plan {:.3f} ms, gap {}", bound.value, to_string(bound.binding),
                     plan_rating, std::isfinite(gap) ? fmt::format("{:.1f}%", 100.0 * gap) : std::string("n/a"));
}

std::string bottleneck_text(const Bottleneck& b) {
  if (b.rank < 0) return "bottleneck: none (no shard placed)\n";
  std::string text = fmt::format("bottleneck: rank {} at {:.3f} ms (mean {:.3f} ms, {} tables); heaviest tables:\n",
                                 b.rank, b.perf, b.mean_perf, b.num_tables);
  for (const BottleneckTable& t : b.tables)
    text += fmt::format("  {} {:.3f} ms ({}, {})\n", t.fqn, t.perf, to_string(t.sharding_type),
                        to_string(t.compute_kernel));
  return text;
}

nlohmann::ordered_json bottleneck_json(const Bottleneck& b) {
  nlohmann::ordered_json tables = nlohmann::ordered_json::array();
  for (const BottleneckTable& t : b.tables)
    tables.push_back(json_object("fqn", t.fqn, "perf", t.perf, "sharding_type", std::string(to_string(t.sharding_type)),
                                 "compute_kernel", std::string(to_string(t.compute_kernel)), "shards", t.num_shards));
  return json_object("rank", b.rank < 0 ? nlohmann::ordered_json(nullptr) : nlohmann::ordered_json(b.rank), "perf",
                     b.perf, "mean_perf", b.mean_perf, "num_tables", b.num_tables, "tables", std::move(tables));
}

}  // namespace shardplan
