#include "output/bound_report.h"

#include <cmath>

#include <fmt/format.h>

#include "output/json_object.h"

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
  return json_object("value", number_or_null(value), "gap", number_or_null(bound_gap(plan_rating, value)),
                     "binding", std::string(to_string(bound.binding)), "bounds", std::move(bounds));
}

std::string bound_line(const LowerBound& bound, double plan_rating) {
  if (!bound.feasible) return "lower bound: none (some table fits nowhere)";
  const double gap = bound_gap(plan_rating, bound.value);
  return fmt::format("lower bound {:.3f} ms ({}), plan {:.3f} ms, gap {}", bound.value, to_string(bound.binding),
                     plan_rating, std::isfinite(gap) ? fmt::format("{:.1f}%", 100.0 * gap) : std::string("n/a"));
}

std::string bottleneck_line(const Bottleneck& b) {
  if (b.rank < 0) return "bottleneck: none (no shard placed)";
  std::string line = fmt::format("bottleneck: rank {} at {:.3f} ms (mean {:.3f} ms, {} tables)", b.rank, b.perf,
                                 b.mean_perf, b.num_tables);
  for (std::size_t i = 0; i < b.tables.size(); ++i) {
    const BottleneckTable& t = b.tables[i];
    line += fmt::format("{} {} {:.3f} ms ({}, {})", i == 0 ? "; top tables:" : ",", t.fqn, t.perf,
                        to_string(t.sharding_type), to_string(t.compute_kernel));
  }
  return line;
}

}  // namespace shardplan
