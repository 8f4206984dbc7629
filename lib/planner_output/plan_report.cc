#include "planner_output/plan_report.h"

#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include <cmath>

#include "common/chart_scale.h"
#include "common/units.h"
#include "config/planner_names.h"
#include "planner/bounds/lower_bound.h"
#include "planner/memory_basis.h"
#include "planner/rank_load.h"

namespace shardplan {

namespace {

constexpr const char* kReportPerfParts[] = {"fwd_compute", "fwd_comms", "bwd_compute", "bwd_comms", "prefetch_compute"};
constexpr const char* kReportPerfColours[] = {"#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1"};

// Storage is coloured by sharding type; one colour per type, in torchrec's order.
constexpr std::pair<const char*, const char*> kReportShardingColours[] = {
    {"data_parallel", "#bab0ac"}, {"table_wise", "#8cd17d"},     {"column_wise", "#a0cbe8"},
    {"row_wise", "#ffbe7d"},      {"table_row_wise", "#f1ce63"}, {"table_column_wise", "#86bcb6"},
    {"grid_shard", "#d4a6c8"},
};
constexpr const char* kReportOtherColour = "#cccccc";

// A sequential scale (light to dark blue) for the heat maps, one colour per bin.
constexpr const char* kReportHeatColours[] = {"#f7fbff", "#deebf7", "#c6dbef", "#9ecae1",
                                              "#6baed6", "#4292c6", "#2171b5", "#084594"};
constexpr int kReportHeatBins = static_cast<int>(std::size(kReportHeatColours));
constexpr const char* kReportWorstStroke = "#d62728";
constexpr std::size_t kReportWorstListed = 8;

// Bar view geometry (SVG user units; the SVG scales to the page's width).
constexpr double kChartWidth = 1000;
constexpr double kRankLabelWidth = 72;
constexpr double kAxisHeight = 44;
constexpr double kHostHeaderHeight = 18;
constexpr double kRankRowHeight = 16;
constexpr double kBarThickness = 11;

// Heat map geometry.
constexpr int kHeatColumnsMax = 32;
constexpr double kHeatLabelWidth = 92;
constexpr double kHeatCellHeight = 14;
constexpr double kHeatHostGap = 4;

const char* sharding_colour(const std::string& type) {
  for (const auto& [name, colour] : kReportShardingColours)
    if (type == name) return colour;
  return kReportOtherColour;
}

std::string gib_text(double bytes) { return short_number(to_gib(bytes), 3) + " GiB"; }

std::string percent_text(double fraction) { return short_number(100 * fraction, 3) + "%"; }

int hosts_of(const PlanPicture& picture) {
  const int per_host = std::max(picture.local_world_size, 1);
  return (static_cast<int>(picture.ranks.size()) + per_host - 1) / per_host;
}

// The sharding types present, in the colour table's order (then any others by name).
std::vector<std::string> sharding_types_present(const PlanPicture& picture) {
  std::vector<std::string> present;
  for (const auto& t : picture.tables)
    if (std::find(present.begin(), present.end(), t.sharding_type) == present.end()) present.push_back(t.sharding_type);
  std::vector<std::string> out;
  for (const auto& [name, colour] : kReportShardingColours)
    if (std::find(present.begin(), present.end(), name) != present.end()) out.emplace_back(name);
  std::sort(present.begin(), present.end());
  for (const auto& name : present)
    if (std::find(out.begin(), out.end(), name) == out.end()) out.push_back(name);
  return out;
}

std::string legend_swatch(const char* colour, const std::string& label) {
  return fmt::format("<span><i style=\"background:{}\"></i>{}</span>", colour, markup_escape(label));
}

// One column of the bar view: a horizontal bar area and its numbers to the right.
struct BarColumn {
  double x = 0, width = 0;  // the bar area
  double text_x = 0;        // where the numbers start
  AxisTicks axis;           // in the column's display unit (ms or GiB)
  std::string title;
};

std::string axis_svg(const BarColumn& c, double top, double bottom) {
  std::string out =
      fmt::format("<text class=\"axis-title\" x=\"{:.1f}\" y=\"14\">{}</text>\n", c.x, markup_escape(c.title));
  for (const double tick : c.axis.ticks) {
    const double x = c.x + (tick - c.axis.low) / (c.axis.high - c.axis.low) * c.width;
    out += fmt::format(
        "<line class=\"grid\" x1=\"{0:.1f}\" x2=\"{0:.1f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"/>"
        "<text class=\"tick\" x=\"{0:.1f}\" y=\"{3:.1f}\">{4}</text>\n",
        x, top - 4, bottom, top - 8, tick_label(tick, c.axis.step));
  }
  return out;
}

double scaled(const BarColumn& c, double value) {
  return std::max(0.0, value - c.axis.low) / (c.axis.high - c.axis.low) * c.width;
}

// A rank's storage bar (HBM or DDR) by shard, coloured by sharding type.
std::string storage_bar_svg(const ReportRank& rank, bool hbm, const BarColumn& c, double y) {
  std::string out;
  double x = c.x;
  for (const auto& s : rank.shards) {
    const std::int64_t bytes = hbm ? s.hbm : s.ddr;
    if (bytes == 0) continue;
    const double w = scaled(c, to_gib(static_cast<double>(bytes)));
    out += fmt::format(
        "<rect class=\"shard\" data-kind=\"{}\" data-bytes=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" "
        "height=\"{}\" fill=\"{}\"><title>{} ({}, {}) on rank {}: HBM {}, DDR {}, perf {} ms</title></rect>\n",
        hbm ? "hbm" : "ddr", bytes, x, y, w, kBarThickness, sharding_colour(s.sharding_type), markup_escape(s.table),
        s.sharding_type, s.compute_kernel, rank.rank, format_bytes(static_cast<double>(s.hbm)),
        format_bytes(static_cast<double>(s.ddr)), short_number(s.perf_ms, 6));
    x += w;
  }
  const std::int64_t used = hbm ? rank.hbm_used() : rank.ddr_used();
  const std::int64_t usable = hbm ? rank.hbm_usable : rank.ddr_usable;
  const double usable_gib = to_gib(static_cast<double>(usable));
  if (usable_gib <= c.axis.high) {
    const double ux = c.x + scaled(c, usable_gib);
    out += fmt::format(
        "<line class=\"usable\" x1=\"{0:.2f}\" x2=\"{0:.2f}\" y1=\"{1:.1f}\" y2=\"{2:.1f}\"><title>usable after the "
        "storage reservation: {3}</title></line>\n",
        ux, y - 2, y + kBarThickness + 2, format_bytes(static_cast<double>(usable)));
  }
  std::string text = gib_text(static_cast<double>(used));
  if (usable > 0) text += " · " + percent_text(static_cast<double>(used) / static_cast<double>(usable));
  out += fmt::format("<text class=\"value\" x=\"{:.1f}\" y=\"{:.1f}\">{}</text>\n", c.text_x, y + kBarThickness - 1.5,
                     text);
  return out;
}

std::string perf_bar_svg(const ReportRank& rank, const BarColumn& c, double y) {
  std::string out;
  double x = c.x;
  for (std::size_t i = 0; i < rank.perf_parts.size(); ++i) {
    const auto& [part, ms] = rank.perf_parts[i];
    if (ms <= 0) continue;
    const double w = scaled(c, ms);
    out += fmt::format(
        "<rect class=\"perf\" data-part=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\">"
        "<title>rank {} {}: {} ms</title></rect>\n",
        part, x, y, w, kBarThickness, kReportPerfColours[i % std::size(kReportPerfColours)], rank.rank, part,
        short_number(ms, 6));
    x += w;
  }
  out += fmt::format("<text class=\"value\" x=\"{:.1f}\" y=\"{:.1f}\">{} ms</text>\n", c.text_x,
                     y + kBarThickness - 1.5, short_number(rank.perf_total_ms, 4));
  return out;
}

// The axes' ends: over the pictures drawn on one scale (a diff's two plans), so
// that equal bars mean equal figures.
struct RankViewScale {
  double max_perf_ms = 0;
  double hbm_top_gib = 0, ddr_top_gib = 0;  // the storage axes' ends
  double max_hbm_gib = 0;                   // the HBM heat map's top
  bool with_ddr = false;                    // some rank uses DDR
};

RankViewScale rank_view_scale(const std::vector<const PlanPicture*>& pictures) {
  RankViewScale scale;
  for (const PlanPicture* picture : pictures) {
    std::int64_t max_hbm = 0, max_ddr = 0;
    for (const auto& r : picture->ranks) {
      scale.max_perf_ms = std::max(scale.max_perf_ms, r.perf_total_ms);
      max_hbm = std::max(max_hbm, r.hbm_used());
      max_ddr = std::max(max_ddr, r.ddr_used());
    }
    scale.with_ddr = scale.with_ddr || max_ddr > 0;
    scale.max_hbm_gib = std::max(scale.max_hbm_gib, to_gib(static_cast<double>(max_hbm)));
    // A storage axis runs to the largest use (so that small use is visible), or on to
    // what the reservation leaves when the use comes near it.
    auto top = [](std::int64_t max_used, const StorageHeadline& head) {
      double gib = to_gib(static_cast<double>(max_used));
      if (head.fraction && *head.fraction > 0.5) gib = std::max(gib, to_gib(static_cast<double>(head.usable)));
      return gib;
    };
    scale.hbm_top_gib = std::max(scale.hbm_top_gib, top(max_hbm, storage_headline(*picture, true)));
    scale.ddr_top_gib = std::max(scale.ddr_top_gib, top(max_ddr, storage_headline(*picture, false)));
  }
  return scale;
}

std::string bar_view_svg(const PlanPicture& picture, const RankViewScale& scale) {
  const bool with_ddr = scale.with_ddr;
  const StorageHeadline hbm_head = storage_headline(picture, true);
  auto storage_axis = [](double top) { return round_ticks(0, top > 0 ? top : 1, 4); };
  const double max_perf = scale.max_perf_ms;
  BarColumn perf, hbm, ddr;
  perf.x = kRankLabelWidth;
  perf.width = with_ddr ? 300 : 400;
  perf.text_x = perf.x + perf.width + 6;
  perf.axis = round_ticks(0, max_perf > 0 ? max_perf : 1, 5);
  perf.title = "perf per rank (ms), by part";
  hbm.x = perf.text_x + 78;
  hbm.width = with_ddr ? 210 : 290;
  hbm.text_x = hbm.x + hbm.width + 6;
  hbm.axis = storage_axis(scale.hbm_top_gib);
  hbm.title = fmt::format("HBM used (GiB; % of the {} left by the reservation)",
                          gib_text(static_cast<double>(hbm_head.usable)));
  ddr.x = hbm.text_x + 104;
  ddr.width = kChartWidth - ddr.x - 72;
  ddr.text_x = ddr.x + ddr.width + 6;
  ddr.axis = storage_axis(scale.ddr_top_gib);
  ddr.title = "DDR used (GiB)";

  const int per_host = std::max(picture.local_world_size, 1);
  const int hosts = hosts_of(picture);
  const double height = kAxisHeight + hosts * kHostHeaderHeight + picture.ranks.size() * kRankRowHeight + 6;
  std::string body = axis_svg(perf, kAxisHeight, height - 4) + axis_svg(hbm, kAxisHeight, height - 4);
  if (with_ddr) body += axis_svg(ddr, kAxisHeight, height - 4);
  double y = kAxisHeight;
  for (int host = 0; host < hosts; ++host) {
    const int first = host * per_host;
    const int last = std::min(static_cast<int>(picture.ranks.size()), first + per_host) - 1;
    // A band across the chart behind each host's heading: the grid lines stop at it.
    body += fmt::format(
        "<rect class=\"host-band\" x=\"0\" y=\"{:.1f}\" width=\"{}\" height=\"{}\"/>"
        "<text class=\"host\" x=\"2\" y=\"{:.1f}\">host {} (ranks {}-{})</text>\n",
        y + 1, kChartWidth, kHostHeaderHeight - 2, y + 13, host, first, last);
    y += kHostHeaderHeight;
    for (int r = first; r <= last; ++r) {
      const ReportRank& rank = picture.ranks[r];
      const double bar_y = y + (kRankRowHeight - kBarThickness) / 2;
      body += fmt::format("<g class=\"rank\" data-rank=\"{}\">\n", rank.rank);
      body += fmt::format("<text class=\"rank-label\" x=\"{:.1f}\" y=\"{:.1f}\">rank {}</text>\n", kRankLabelWidth - 6,
                          bar_y + kBarThickness - 1.5, rank.rank);
      body += perf_bar_svg(rank, perf, bar_y);
      body += storage_bar_svg(rank, true, hbm, bar_y);
      if (with_ddr) body += storage_bar_svg(rank, false, ddr, bar_y);
      body += "</g>\n";
      y += kRankRowHeight;
    }
  }
  return fmt::format("<svg class=\"chart\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {:.0f}\">\n{}</svg>\n",
                     kChartWidth, height, body);
}

// Where rank `r` sits in a heat map.
struct HeatLayout {
  int per_host = 1;
  int hosts_per_row = 1;  // 0: hosts wider than a row, ranks wrap at kHeatColumnsMax
  int columns = 1;
  double cell_width = 28;
  int rows = 1;

  explicit HeatLayout(const PlanPicture& picture) {
    const int n = static_cast<int>(picture.ranks.size());
    per_host = std::max(picture.local_world_size, 1);
    if (per_host <= kHeatColumnsMax) {
      hosts_per_row = kHeatColumnsMax / per_host;
      columns = hosts_per_row * per_host;
      const int hosts = (n + per_host - 1) / per_host;
      rows = (hosts + hosts_per_row - 1) / hosts_per_row;
    } else {
      hosts_per_row = 0;
      columns = kHeatColumnsMax;
      rows = (n + columns - 1) / columns;
    }
    columns = std::min(columns, std::max(n, 1));
    const double gaps = hosts_per_row > 1 ? (hosts_per_row - 1) * kHeatHostGap : 0;
    cell_width = std::min(28.0, (kChartWidth - kHeatLabelWidth - 8 - gaps) / columns);
  }
  int row_of(int r) const { return hosts_per_row ? (r / per_host) / hosts_per_row : r / columns; }
  double x_of(int r) const {
    if (!hosts_per_row) return kHeatLabelWidth + (r % columns) * cell_width;
    const int slot = (r / per_host) % hosts_per_row;
    return kHeatLabelWidth + (slot * per_host + r % per_host) * cell_width + slot * kHeatHostGap;
  }
};

int heat_bin(double value, double max) {
  if (max <= 0) return 0;
  return std::clamp(static_cast<int>(value / max * kReportHeatBins), 0, kReportHeatBins - 1);
}

// The ranks with the largest `value`, largest first, ties by rank.
template <typename Value>
std::vector<int> worst_ranks(const PlanPicture& picture, Value value) {
  std::vector<int> order(picture.ranks.size());
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(),
                   [&](int a, int b) { return value(picture.ranks[a]) > value(picture.ranks[b]); });
  order.resize(std::min(order.size(), kReportWorstListed));
  return order;
}

std::string heat_legend_html(double max, const std::string& unit) {
  std::string out = "<p class=\"legend\">";
  for (int b = 0; b < kReportHeatBins; ++b)
    out += legend_swatch(kReportHeatColours[b], short_number(max * b / kReportHeatBins, 3) + "–" +
                                                    short_number(max * (b + 1) / kReportHeatBins, 3) + " " + unit);
  out += fmt::format("<span><i style=\"background:#fff;outline:2px solid {}\"></i>the {} worst ranks</span></p>\n",
                     kReportWorstStroke, kReportWorstListed);
  return out;
}

// One heat map: a cell per rank, hosts side by side.
template <typename Value>
std::string heat_map_svg(const PlanPicture& picture, const std::string& cell_class, const std::string& what, double max,
                         Value value, const std::vector<int>& worst, const std::string& unit) {
  const HeatLayout layout(picture);
  const double height = layout.rows * kHeatCellHeight + 8;
  std::string body;
  for (int row = 0; row < layout.rows; ++row) {
    const int first = row * layout.columns;
    const int last = std::min(static_cast<int>(picture.ranks.size()), first + layout.columns) - 1;
    body += fmt::format("<text class=\"rank-label\" x=\"{}\" y=\"{:.1f}\">ranks {}-{}</text>\n", kHeatLabelWidth - 6,
                        row * kHeatCellHeight + kHeatCellHeight - 3, first, last);
  }
  for (const auto& rank : picture.ranks) {
    const double v = value(rank);
    const bool is_worst = std::find(worst.begin(), worst.end(), rank.rank) != worst.end();
    body += fmt::format(
        "<rect class=\"{}\" data-rank=\"{}\" x=\"{:.2f}\" y=\"{:.1f}\" width=\"{:.2f}\" height=\"{}\" fill=\"{}\"{}>"
        "<title>rank {} (host {}): {} {} {}</title></rect>\n",
        cell_class, rank.rank, layout.x_of(rank.rank), layout.row_of(rank.rank) * kHeatCellHeight + 1,
        layout.cell_width - 1, kHeatCellHeight - 1, kReportHeatColours[heat_bin(v, max)],
        is_worst ? fmt::format(" stroke=\"{}\" stroke-width=\"2\"", kReportWorstStroke) : "", rank.rank,
        rank.rank / layout.per_host, what, short_number(v, 4), unit);
  }
  return fmt::format(
      "<svg class=\"chart heat\" xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 {} {:.0f}\">\n{}</svg>\n",
      kChartWidth, height, body);
}

std::string heat_view_html(const PlanPicture& picture, const RankViewScale& scale) {
  auto perf_of = [](const ReportRank& r) { return r.perf_total_ms; };
  auto hbm_of = [](const ReportRank& r) { return to_gib(static_cast<double>(r.hbm_used())); };
  const double max_perf = scale.max_perf_ms, max_hbm = scale.max_hbm_gib;
  const std::vector<int> worst_perf = worst_ranks(picture, perf_of);
  const std::vector<int> worst_hbm = worst_ranks(picture, hbm_of);
  const int per_host = std::max(picture.local_world_size, 1);
  std::string out = fmt::format(
      "<p>{} ranks: one cell per rank, {} ranks per host, hosts side by side; hover a cell for its numbers.</p>\n"
      "<h3>perf per rank (ms)</h3>\n",
      picture.ranks.size(), per_host);
  out += heat_legend_html(max_perf, "ms");
  out += heat_map_svg(picture, "rank cell", "perf", max_perf, perf_of, worst_perf, "ms");
  out += "<h3>HBM used per rank (GiB)</h3>\n";
  out += heat_legend_html(max_hbm, "GiB");
  out += heat_map_svg(picture, "hbm-cell", "HBM", max_hbm, hbm_of, worst_hbm, "GiB");
  out +=
      "<h3>Worst ranks</h3>\n<table class=\"data worst\"><thead><tr><th>by perf: rank</th><th>host</th>"
      "<th class=\"num\">perf (ms)</th><th class=\"num\">HBM</th><th>by HBM: rank</th><th>host</th>"
      "<th class=\"num\">HBM</th><th class=\"num\">of usable</th></tr></thead><tbody>\n";
  for (std::size_t i = 0; i < std::max(worst_perf.size(), worst_hbm.size()); ++i) {
    out += "<tr>";
    if (i < worst_perf.size()) {
      const ReportRank& r = picture.ranks[worst_perf[i]];
      out +=
          fmt::format("<td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>", r.rank,
                      r.rank / per_host, short_number(r.perf_total_ms, 5), gib_text(static_cast<double>(r.hbm_used())));
    } else {
      out += "<td></td><td></td><td></td><td></td>";
    }
    if (i < worst_hbm.size()) {
      const ReportRank& r = picture.ranks[worst_hbm[i]];
      out += fmt::format(
          "<td>{}</td><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td>", r.rank, r.rank / per_host,
          gib_text(static_cast<double>(r.hbm_used())),
          r.hbm_usable > 0 ? percent_text(static_cast<double>(r.hbm_used()) / static_cast<double>(r.hbm_usable)) : "");
    } else {
      out += "<td></td><td></td><td></td><td></td>";
    }
    out += "</tr>\n";
  }
  return out + "</tbody></table>\n";
}

std::string figure_card(const std::string& id, const std::string& label, const std::string& value_attr,
                        const std::string& figure, const std::string& note) {
  return fmt::format(
      "<div class=\"card\"><div class=\"label\">{}</div><div class=\"figure\" id=\"{}\" data-value=\"{}\">{}</div>"
      "<div class=\"note\">{}</div></div>\n",
      label, id, value_attr, figure, note);
}

std::string storage_card(const PlanPicture& picture, bool hbm, const std::string& id_prefix) {
  const StorageHeadline h = storage_headline(picture, hbm);
  const std::string kind = hbm ? "HBM" : "DDR";
  const std::string figure =
      h.fraction ? percent_text(*h.fraction) + " of usable" : gib_text(static_cast<double>(h.used));
  const std::string note = fmt::format(
      "<span id=\"{}{}-used\" data-value=\"{}\">{}</span> on rank {} of the <span id=\"{}{}-usable\" "
      "data-value=\"{}\">{}</span> usable (device: {}; used counts the dense/KJT reservation, usable is the device "
      "less the reservation percentage)",
      id_prefix, hbm ? "hbm" : "ddr", h.used, gib_text(static_cast<double>(h.used)), h.rank, id_prefix,
      hbm ? "hbm" : "ddr", h.usable, gib_text(static_cast<double>(h.usable)),
      gib_text(static_cast<double>(h.capacity)));
  return figure_card(id_prefix + (hbm ? "hbm-fraction" : "ddr-fraction"), "max " + kind + " per rank",
                     h.fraction ? fmt::format("{}", *h.fraction) : "", figure, note);
}

}  // namespace

std::int64_t ReportRank::hbm_used() const {
  std::int64_t total = hbm_reserved;
  for (const auto& s : shards) total += s.hbm;
  return total;
}

std::int64_t ReportRank::ddr_used() const {
  std::int64_t total = ddr_reserved;
  for (const auto& s : shards) total += s.ddr;
  return total;
}

namespace {

// The memory basis's figures (planner/memory_basis.h) on a rank whose shards are
// already in: usable as stated, and the dense/KJT reservation as used less the shards.
void set_report_memory(ReportRank& rank, std::int64_t hbm_used, std::int64_t hbm_usable, std::int64_t ddr_used,
                       std::int64_t ddr_usable) {
  const std::int64_t shard_hbm = rank.hbm_used(), shard_ddr = rank.ddr_used();
  rank.hbm_usable = hbm_usable;
  rank.ddr_usable = ddr_usable;
  rank.hbm_reserved = hbm_used - shard_hbm;
  rank.ddr_reserved = ddr_used - shard_ddr;
}

std::vector<std::pair<std::string, double>> report_perf_parts(const Perf& p) {
  return {{kReportPerfParts[0], p.fwd_compute},
          {kReportPerfParts[1], p.fwd_comms},
          {kReportPerfParts[2], p.bwd_compute},
          {kReportPerfParts[3], p.bwd_comms},
          {kReportPerfParts[4], p.prefetch_compute}};
}

// Adds one shard to its table and its rank.
void add_report_shard(PlanPicture& picture, ReportTable& table, int rank, std::int64_t hbm, std::int64_t ddr,
                      double perf_ms) {
  table.ranks.push_back(rank);
  table.hbm += hbm;
  table.ddr += ddr;
  table.perf_ms += perf_ms;
  if (rank >= 0 && static_cast<std::size_t>(rank) < picture.ranks.size())
    picture.ranks[rank].shards.push_back(
        ReportShard{table.table, table.sharding_type, table.compute_kernel, hbm, ddr, perf_ms});
}

}  // namespace

PlanPicture plan_picture(const PlanRun& run, const std::string& model_name) {
  const Topology& topology = run.topology;
  const ReservationResult& reservation = *run.result.reservation;
  const std::vector<ShardingOption>& plan = run.result.plan;
  // An empty plan (nothing shardable) has no per-rank figures, as in the plan file.
  const std::vector<RankLoad> loads = plan.empty() ? std::vector<RankLoad>{} : rank_loads(plan, topology.world_size);
  PlanPicture picture;
  picture.model = model_name;
  picture.local_world_size = topology.local_world_size;
  picture.compute_device = std::string(to_string(topology.compute_device));
  for (std::size_t r = 0; r < topology.devices.size(); ++r) {
    ReportRank rank;
    rank.rank = static_cast<int>(r);
    rank.hbm_capacity = topology.devices[r].storage.hbm;
    rank.ddr_capacity = topology.devices[r].storage.ddr;
    rank.hbm_usable = reservation.reserved.devices[r].storage.hbm;
    rank.ddr_usable = reservation.reserved.devices[r].storage.ddr;
    if (r < loads.size()) {
      rank.perf_parts = report_perf_parts(loads[r].perf);
      rank.perf_total_ms = loads[r].perf.total();
      picture.max_rank_perf_ms = std::max(picture.max_rank_perf_ms, rank.perf_total_ms);
    }
    picture.ranks.push_back(std::move(rank));
  }
  for (const ShardingOption& option : plan) {
    ReportTable t;
    t.table = option.path + "." + option.name;
    t.sharding_type = std::string(to_string(option.sharding_type));
    t.compute_kernel = std::string(to_string(option.compute_kernel));
    for (const auto& shard : option.shards) {
      const Storage storage = shard.storage.value_or(Storage{});
      add_report_shard(picture, t, shard.rank.value_or(-1), storage.hbm, storage.ddr,
                       shard.perf.value_or(Perf{}).total());
    }
    picture.tables.push_back(std::move(t));
  }
  const std::vector<RankMemory> memory = rank_memory(topology, reservation, loads);
  for (std::size_t r = 0; r < memory.size() && r < picture.ranks.size(); ++r)
    set_report_memory(picture.ranks[r], memory[r].hbm.used, memory[r].hbm.capacity, memory[r].ddr.used,
                      memory[r].ddr.capacity);
  picture.storage_reservation =
      reservation.policy ? std::string(torchrec_name_of(kReservationPolicyNames, *reservation.policy)) : "";
  if (run.bound) {
    if (run.bound->feasible) {
      picture.lower_bound_ms = run.bound->value;
      const double gap = bound_gap(run.result.perf_rating, run.bound->value);
      if (std::isfinite(gap)) picture.gap = gap;
    }
    picture.bound_binding = std::string(to_string(run.bound->binding));
  }
  return picture;
}

PlanPicture plan_picture(const PlanFile& file) {
  PlanPicture picture;
  picture.model = file.model;
  picture.local_world_size = file.local_world_size;
  picture.compute_device = file.compute_device;
  for (std::size_t r = 0; r < file.devices.size(); ++r) {
    ReportRank rank;
    rank.rank = static_cast<int>(r);
    rank.hbm_capacity = file.devices[r].hbm;
    rank.ddr_capacity = file.devices[r].ddr;
    if (r < file.reserved.size()) {
      rank.hbm_usable = file.reserved[r].hbm;
      rank.ddr_usable = file.reserved[r].ddr;
    }
    if (r < file.ranks.size()) {
      const PlanFilePerf& p = file.ranks[r].perf;
      rank.perf_parts =
          report_perf_parts(Perf{p.fwd_compute, p.fwd_comms, p.bwd_compute, p.bwd_comms, p.prefetch_compute});
      rank.perf_total_ms = p.total;
    }
    picture.ranks.push_back(std::move(rank));
  }
  for (const PlanFileTable& table : file.tables) {
    ReportTable t;
    t.table = table.fqn();
    t.sharding_type = std::string(to_string(table.sharding_type));
    t.compute_kernel = std::string(to_string(table.compute_kernel));
    for (const PlanFileShard& shard : table.shards)
      add_report_shard(picture, t, shard.rank, shard.storage.hbm, shard.storage.ddr, shard.perf.total);
    picture.tables.push_back(std::move(t));
  }
  // Plan files older than the "memory" block keep "reserved" as usable and no reservation in use.
  for (std::size_t r = 0; r < file.memory.size() && r < picture.ranks.size(); ++r)
    set_report_memory(picture.ranks[r], file.memory[r].used.hbm, file.memory[r].usable.hbm, file.memory[r].used.ddr,
                      file.memory[r].usable.ddr);
  picture.max_rank_perf_ms = file.summary.max_rank_perf;
  picture.storage_reservation = file.summary.storage_reservation;
  picture.lower_bound_ms = file.summary.lower_bound;
  picture.gap = file.summary.lower_bound_gap;
  picture.bound_binding = file.summary.lower_bound_binding;
  return picture;
}

std::vector<std::pair<std::string, std::string>> planner_input_rows(const PlannerOptions& planner) {
  std::string partitioner(to_string(planner.partitioner.type));
  if (planner.partitioner.type == PartitionerKind::kGreedy)
    partitioner += " (sorted by " + std::string(name_of(kGreedySortByNames, planner.partitioner.sort_by)) + ")";
  std::string proposers;
  for (const ProposerKind kind : planner.proposers)
    proposers += (proposers.empty() ? "" : ", ") + std::string(to_string(kind));
  return {{"partitioner", partitioner}, {"proposers", proposers}};
}

StorageHeadline storage_headline(const PlanPicture& picture, bool hbm) {
  StorageHeadline best;
  bool found = false;
  for (const auto& r : picture.ranks) {
    StorageHeadline h;
    h.rank = r.rank;
    h.used = hbm ? r.hbm_used() : r.ddr_used();
    h.usable = hbm ? r.hbm_usable : r.ddr_usable;
    h.capacity = hbm ? r.hbm_capacity : r.ddr_capacity;
    if (h.usable > 0) h.fraction = static_cast<double>(h.used) / static_cast<double>(h.usable);
    // The largest share of usable; ranks without usable storage only by bytes.
    const auto key = [](const StorageHeadline& s) {
      return std::pair{s.fraction.value_or(s.used > 0 ? 2.0 : 0.0), s.used};
    };
    if (!found || key(h) > key(best)) best = h, found = true;
  }
  return best;
}

std::string rank_ranges_text(std::vector<int> ranks) {
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  std::string out;
  for (std::size_t i = 0; i < ranks.size();) {
    std::size_t j = i;
    while (j + 1 < ranks.size() && ranks[j + 1] == ranks[j] + 1) ++j;
    if (!out.empty()) out += ", ";
    out += j == i ? std::to_string(ranks[i]) : fmt::format("{}-{}", ranks[i], ranks[j]);
    i = j + 1;
  }
  return out;
}

std::string report_page_start(const std::string& title) {
  return fmt::format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\"/>\n<title>{}</title>\n<style>\n"
      "body {{ font: 13px/1.4 sans-serif; margin: 16px; max-width: 1200px; color: #222; }}\n"
      "h1 {{ font-size: 20px; margin: 0 0 8px; }} h2 {{ font-size: 16px; margin: 22px 0 6px; }} "
      "h3 {{ font-size: 14px; margin: 14px 0 4px; }}\n"
      "table.facts th {{ text-align: left; padding-right: 14px; font-weight: 600; vertical-align: top; }}\n"
      ".figures {{ display: flex; flex-wrap: wrap; gap: 8px; margin: 10px 0; }}\n"
      ".card {{ border: 1px solid #ccc; border-radius: 4px; padding: 6px 10px; flex: 1 1 170px; min-width: 0; }}\n"
      ".card .label {{ font-size: 11px; color: #555; }} .card .figure {{ font-size: 18px; font-weight: 600; }}\n"
      ".card .note {{ font-size: 11px; color: #555; overflow-wrap: anywhere; }}\n"
      "svg.chart {{ width: 100%; height: auto; display: block; }}\n"
      "svg text {{ font-size: 10px; }} svg .axis-title {{ font-weight: 600; }}\n"
      "svg .tick {{ text-anchor: middle; fill: #555; }} svg .grid {{ stroke: #e3e3e3; }}\n"
      "svg .rank-label {{ text-anchor: end; }}\n"
      "svg .host {{ font-weight: 600; fill: #444; }} svg .host-band {{ fill: #f3f3f3; }}\n"
      "svg .usable {{ stroke: #222; stroke-width: 1.5; stroke-dasharray: 3 2; }}\n"
      "svg .shard {{ stroke: #fff; stroke-width: 0.4; }}\n"
      ".legend span {{ display: inline-block; margin-right: 14px; }}\n"
      ".legend i {{ display: inline-block; width: 11px; height: 11px; margin-right: 4px; vertical-align: -1px; "
      "border: 1px solid #999; }}\n"
      "table.data {{ border-collapse: collapse; width: 100%; }}\n"
      "table.data th, table.data td {{ border-bottom: 1px solid #ddd; padding: 2px 6px; text-align: left; "
      "overflow-wrap: anywhere; }}\n"
      "table.data .num {{ text-align: right; font-variant-numeric: tabular-nums; }}\n"
      ".pair {{ display: grid; grid-template-columns: 1fr 1fr; gap: 18px; }} .pair > div {{ min-width: 0; }}\n"
      ".moved {{ background: #fff3cd; }}\n"
      "caption {{ caption-side: top; text-align: left; color: #555; font-size: 11px; padding: 2px 0; }}\n"
      "th.sort-key {{ cursor: pointer; text-decoration: underline dotted; }}\n"
      "th[aria-sort=ascending]::after {{ content: \" ▲\"; }} th[aria-sort=descending]::after {{ content: \" ▼\"; }}\n"
      "</style>\n</head>\n<body>\n",
      markup_escape(title));
}

std::string render_plan_header_html(const PlanPicture& picture, const std::string& id_prefix) {
  const std::size_t world = picture.ranks.size();
  const int per_host = std::max(picture.local_world_size, 1);
  std::string topology = fmt::format("<span id=\"{}world-size\">{}</span> ranks: {} host{} × {} ranks", id_prefix,
                                     world, hosts_of(picture), hosts_of(picture) == 1 ? "" : "s", per_host);
  if (!picture.compute_device.empty()) topology += " (" + markup_escape(picture.compute_device) + ")";
  if (!picture.ranks.empty())
    topology +=
        fmt::format(", {} HBM and {} DDR per device", gib_text(static_cast<double>(picture.ranks[0].hbm_capacity)),
                    gib_text(static_cast<double>(picture.ranks[0].ddr_capacity)));
  std::string facts =
      fmt::format("<tr><th>model</th><td id=\"{}model\">{}</td></tr>\n<tr><th>topology</th><td>{}</td></tr>\n",
                  id_prefix, markup_escape(picture.model), topology);
  for (const auto& [label, value] : picture.inputs)
    facts += fmt::format("<tr><th>{}</th><td>{}</td></tr>\n", markup_escape(label), markup_escape(value));
  if (!picture.storage_reservation.empty())
    facts +=
        fmt::format("<tr><th>storage reservation</th><td>{}</td></tr>\n", markup_escape(picture.storage_reservation));
  facts += fmt::format("<tr><th>tables</th><td>{}</td></tr>\n", picture.tables.size());

  std::string cards = figure_card(id_prefix + "max-rank-perf", "max-rank perf (the plan's rating)",
                                  fmt::format("{}", picture.max_rank_perf_ms),
                                  short_number(picture.max_rank_perf_ms, 5) + " ms", "the slowest rank's total");
  if (picture.lower_bound_ms) {
    cards += figure_card(id_prefix + "lower-bound", "lower bound", fmt::format("{}", *picture.lower_bound_ms),
                         short_number(*picture.lower_bound_ms, 5) + " ms",
                         "no plan of these options is faster (binding: " + markup_escape(picture.bound_binding) + ")");
  }
  if (picture.gap)
    cards += figure_card(id_prefix + "gap", "gap to the bound", fmt::format("{}", *picture.gap),
                         percent_text(*picture.gap), "(max-rank perf − bound) / bound");
  cards += storage_card(picture, true, id_prefix);
  cards += storage_card(picture, false, id_prefix);
  return fmt::format("<table class=\"facts\">\n{}</table>\n<div class=\"figures\">\n{}</div>\n", facts, cards);
}

std::string render_rank_view_html(const PlanPicture& picture, const std::string& /*id_prefix*/,
                                  const std::vector<const PlanPicture*>& same_scale) {
  std::vector<const PlanPicture*> scaled_together{&picture};
  scaled_together.insert(scaled_together.end(), same_scale.begin(), same_scale.end());
  const RankViewScale scale = rank_view_scale(scaled_together);
  if (picture.ranks.size() > kReportBarRanksMax) return heat_view_html(picture, scale);
  std::string legend = "<p class=\"legend\">perf: ";
  for (std::size_t i = 0; i < std::size(kReportPerfParts); ++i)
    legend += legend_swatch(kReportPerfColours[i], kReportPerfParts[i]);
  legend += "<br/>storage by sharding type: ";
  for (const auto& type : sharding_types_present(picture)) legend += legend_swatch(sharding_colour(type), type);
  legend +=
      "<span><i style=\"background:#fff;border:none;border-left:2px dashed #222\"></i>what the storage reservation "
      "leaves (where on the scale)</span></p>\n";
  return legend + bar_view_svg(picture, scale);
}

namespace {

// A table's size for reading: "0" rather than "0.00 B" for none (most tables use no DDR).
std::string report_table_bytes(std::int64_t bytes) {
  return bytes == 0 ? std::string("0") : format_bytes(static_cast<double>(bytes));
}

}  // namespace

std::string render_table_view_html(const PlanPicture& picture) {
  // Numeric cells carry their exact value (bytes, ms; the ranks cell its first rank)
  // for the sort script; the text is for reading.
  std::string out =
      "<table class=\"data tables sortable\" id=\"tables\"><thead><tr><th>table</th><th>sharding type</th>"
      "<th>kernel</th><th class=\"num-key\">ranks</th><th class=\"num\">HBM</th><th class=\"num\">DDR</th>"
      "<th class=\"num\">perf (ms)</th></tr></thead><tbody>\n";
  for (const auto& t : picture.tables)
    out += fmt::format(
        "<tr data-table=\"{0}\"><td>{0}</td><td><i class=\"swatch\" style=\"display:inline-block;width:9px;height:9px;"
        "background:{1}\"></i> {2}</td><td>{3}</td><td data-value=\"{4}\">{5}</td><td class=\"num\" "
        "data-value=\"{6}\">{7}</td>"
        "<td class=\"num\" data-value=\"{8}\">{9}</td><td class=\"num\" data-value=\"{10}\">{11}</td></tr>\n",
        markup_escape(t.table), sharding_colour(t.sharding_type), t.sharding_type, t.compute_kernel,
        t.ranks.empty() ? -1 : *std::min_element(t.ranks.begin(), t.ranks.end()), rank_ranges_text(t.ranks), t.hbm,
        report_table_bytes(t.hbm), t.ddr, report_table_bytes(t.ddr), t.perf_ms, short_number(t.perf_ms, 5));
  return out + "</tbody></table>\n";
}

std::string report_sort_script() {
  // Sorting for people with script on; with it off the table stays in plan order and
  // nothing else changes. No network, no library: the rows are moved in place.
  return R"(<script>
(function () {
  var tables = document.querySelectorAll('table.sortable');
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.tHead.rows[0].cells, body = table.tBodies[0];
    var hint = document.createElement('caption');
    hint.textContent = 'Click a column heading to sort (again to reverse).';
    table.insertBefore(hint, table.firstChild);
    Array.prototype.forEach.call(heads, function (th, column) {
      var numeric = th.classList.contains('num') || th.classList.contains('num-key');
      var key = function (row) {
        var cell = row.cells[column];
        return numeric ? Number(cell.getAttribute('data-value')) : cell.textContent.trim();
      };
      var sort = function () {
        // Numbers largest first, names A to Z; a second click reverses.
        var first = numeric ? 'descending' : 'ascending';
        var order = th.getAttribute('aria-sort') === first ? (numeric ? 'ascending' : 'descending') : first;
        Array.prototype.forEach.call(heads, function (h) { h.removeAttribute('aria-sort'); });
        th.setAttribute('aria-sort', order);
        var rows = Array.prototype.slice.call(body.rows);
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          var c = numeric ? x - y : x.localeCompare(y);
          return order === 'ascending' ? c : -c;
        });
        rows.forEach(function (row) { body.appendChild(row); });
      };
      th.tabIndex = 0;
      th.classList.add('sort-key');
      th.addEventListener('click', sort);
      th.addEventListener('keydown', function (e) {
        if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); sort(); }
      });
    });
  });
})();
</script>
)";
}

std::string render_plan_report_html(const PlanPicture& picture) {
  return report_page_start("shardplan: " + picture.model) +
         fmt::format("<h1>{}: {} ranks</h1>\n", markup_escape(picture.model), picture.ranks.size()) +
         render_plan_header_html(picture, "") + "<h2>Per rank</h2>\n" + render_rank_view_html(picture, "") +
         "<h2>Per table</h2>\n" + render_table_view_html(picture) + report_sort_script() + "</body>\n</html>\n";
}

}  // namespace shardplan
