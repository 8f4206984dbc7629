#include "output/plan_report.h"

#include <algorithm>

#include <fmt/format.h>

#include "common/units.h"

namespace shardplan {

namespace {

constexpr const char* kPerfParts[] = {"fwd_compute", "fwd_comms", "bwd_compute", "bwd_comms", "prefetch_compute"};
constexpr const char* kPerfColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"};
constexpr const char* kShardColours[] = {"#8cd17d", "#a0cbe8", "#ffbe7d", "#f1ce63", "#86bcb6", "#d4a6c8", "#fabfd2"};

// Geometry (SVG user units).
constexpr int kBarWidth = 22;
constexpr int kBarGap = 4;
constexpr int kRankWidth = 3 * kBarWidth + 2 * kBarGap + 18;
constexpr int kPlotHeight = 240;
constexpr int kTop = 30;
constexpr int kLeft = 10;

std::string escape(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

double height_of(double value, double scale) { return scale > 0 ? value / scale * kPlotHeight : 0.0; }

// One stacked bar of shards' bytes (HBM or DDR) against a capacity.
std::string storage_bar(const ReportRank& rank, bool hbm, int x) {
  const double capacity = static_cast<double>(hbm ? rank.hbm_capacity : rank.ddr_capacity);
  const double usable = static_cast<double>(hbm ? rank.hbm_usable : rank.ddr_usable);
  std::int64_t used = 0;
  for (const auto& s : rank.shards) used += hbm ? s.hbm : s.ddr;
  // A bar over capacity is drawn to its own height (scale grows) so the excess shows.
  const double scale = std::max(capacity, static_cast<double>(used));
  std::string out = fmt::format(
      "<rect class=\"capacity\" x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\"><title>rank {} {} capacity {}</title></rect>\n",
      x, kTop, kBarWidth, kPlotHeight, rank.rank, hbm ? "HBM" : "DDR", format_bytes(capacity));
  double y = kTop + kPlotHeight;
  std::size_t colour = 0;
  for (const auto& s : rank.shards) {
    const std::int64_t bytes = hbm ? s.hbm : s.ddr;
    if (bytes == 0) continue;
    const double h = height_of(static_cast<double>(bytes), scale);
    y -= h;
    out += fmt::format(
        "<rect class=\"shard\" data-kind=\"{}\" data-bytes=\"{}\" x=\"{}\" y=\"{:.3f}\" width=\"{}\" height=\"{:.3f}\" "
        "fill=\"{}\"><title>{} ({}, {}) on rank {}: HBM {}, DDR {}, perf {:.6f} ms</title></rect>\n",
        hbm ? "hbm" : "ddr", bytes, x, y, kBarWidth, h, kShardColours[colour++ % std::size(kShardColours)],
        escape(s.table), s.sharding_type, s.compute_kernel, rank.rank, format_bytes(static_cast<double>(s.hbm)),
        format_bytes(static_cast<double>(s.ddr)), s.perf_ms);
  }
  const double usable_y = kTop + kPlotHeight - height_of(usable, scale);
  out += fmt::format(
      "<line class=\"usable\" x1=\"{}\" x2=\"{}\" y1=\"{:.3f}\" y2=\"{:.3f}\"><title>left for the tables after the "
      "storage reservation: {}</title></line>\n",
      x - 2, x + kBarWidth + 2, usable_y, usable_y, format_bytes(usable));
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\">{}</text>\n", x + kBarWidth / 2,
                     kTop + kPlotHeight + 12, hbm ? "HBM" : "DDR");
  return out;
}

std::string perf_bar(const ReportRank& rank, double max_perf, int x) {
  std::string out;
  double y = kTop + kPlotHeight;
  for (std::size_t i = 0; i < rank.perf_parts.size(); ++i) {
    const auto& [part, ms] = rank.perf_parts[i];
    if (ms <= 0) continue;
    const double h = height_of(ms, max_perf);
    y -= h;
    out += fmt::format(
        "<rect class=\"perf\" data-part=\"{}\" x=\"{}\" y=\"{:.3f}\" width=\"{}\" height=\"{:.3f}\" fill=\"{}\">"
        "<title>rank {} {}: {:.6f} ms</title></rect>\n",
        part, x, y, kBarWidth, h, kPerfColours[i % std::size(kPerfColours)], rank.rank, part, ms);
  }
  out += fmt::format("<text x=\"{}\" y=\"{}\" class=\"label\">perf</text>\n", x + kBarWidth / 2,
                     kTop + kPlotHeight + 12);
  return out;
}

double total_perf(const ReportRank& rank) {
  double total = 0;
  for (const auto& part : rank.perf_parts) total += part.second;
  return total;
}

}  // namespace

PlanPicture plan_picture(const nlohmann::json& plan_file) {
  PlanPicture picture;
  picture.model = plan_file.at("model").get<std::string>();
  const auto& devices = plan_file.at("topology").at("devices");
  const auto& reserved = plan_file.at("reserved");
  const auto& per_rank = plan_file.at("per_rank");
  for (std::size_t r = 0; r < devices.size(); ++r) {
    ReportRank rank;
    rank.rank = static_cast<int>(r);
    rank.hbm_capacity = devices.at(r).at("hbm").get<std::int64_t>();
    rank.ddr_capacity = devices.at(r).at("ddr").get<std::int64_t>();
    rank.hbm_usable = reserved.at(r).at("hbm").get<std::int64_t>();
    rank.ddr_usable = reserved.at(r).at("ddr").get<std::int64_t>();
    for (const char* part : kPerfParts) rank.perf_parts.emplace_back(part, per_rank.at(r).at("perf").at(part).get<double>());
    picture.ranks.push_back(std::move(rank));
  }
  for (const auto& [path, tables] : plan_file.at("plan").items())
    for (const auto& [name, table] : tables.items())
      for (const auto& shard : table.at("shards")) {
        ReportShard s{path + "." + name, table.at("sharding_type").get<std::string>(),
                      table.at("compute_kernel").get<std::string>(), shard.at("storage").at("hbm").get<std::int64_t>(),
                      shard.at("storage").at("ddr").get<std::int64_t>(), shard.at("perf").at("total").get<double>()};
        picture.ranks.at(shard.at("rank").get<std::size_t>()).shards.push_back(std::move(s));
      }
  return picture;
}

std::string render_plan_report_html(const PlanPicture& picture) {
  double max_perf = 0;
  for (const auto& rank : picture.ranks) max_perf = std::max(max_perf, total_perf(rank));
  const int width = kLeft * 2 + static_cast<int>(picture.ranks.size()) * kRankWidth;
  const int height = kTop + kPlotHeight + 40;
  std::string body;
  for (const auto& rank : picture.ranks) {
    const int x = kLeft + rank.rank * kRankWidth;
    body += fmt::format("<g class=\"rank\" data-rank=\"{}\">\n", rank.rank);
    body += storage_bar(rank, true, x);
    body += storage_bar(rank, false, x + kBarWidth + kBarGap);
    body += perf_bar(rank, max_perf, x + 2 * (kBarWidth + kBarGap));
    body += fmt::format("<text x=\"{}\" y=\"{}\" class=\"rank-label\">rank {} ({:.4f} ms)</text>\n",
                        x + (3 * kBarWidth + 2 * kBarGap) / 2, kTop + kPlotHeight + 28, rank.rank, total_perf(rank));
    body += "</g>\n";
  }
  std::string legend;
  for (std::size_t i = 0; i < std::size(kPerfParts); ++i)
    legend += fmt::format("<span><i style=\"background:{}\"></i>{}</span>\n", kPerfColours[i], kPerfParts[i]);
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>shardplan: {}</title>\n"
      "<style>\nbody {{ font: 13px sans-serif; margin: 16px; }}\n"
      ".capacity {{ fill: #f4f4f4; stroke: #999; }}\n.usable {{ stroke: #333; stroke-dasharray: 3 2; }}\n"
      ".shard {{ stroke: #fff; stroke-width: 0.5; }}\n.shard:hover, .perf:hover {{ opacity: 0.7; }}\n"
      "text {{ font-size: 9px; text-anchor: middle; }}\n.rank-label {{ font-size: 10px; }}\n"
      ".legend span {{ margin-right: 12px; }} .legend i {{ display: inline-block; width: 10px; height: 10px; "
      "margin-right: 4px; }}\n</style>\n</head>\n<body>\n"
      "<h1>{}: {} ranks</h1>\n"
      "<p>Per rank: HBM and DDR use by shard against the device's capacity (dashed: left for the tables after the "
      "storage reservation), and perf by part, scaled to the slowest rank. Hover a shard for its details.</p>\n"
      "<p class=\"legend\">\n{}</p>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" viewBox=\"0 0 {} {}\">\n{}</svg>\n"
      "</body>\n</html>\n",
      escape(picture.model), escape(picture.model), picture.ranks.size(), legend, width, height, width, height, body);
}

}  // namespace shardplan
