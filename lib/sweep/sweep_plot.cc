#include "sweep/sweep_plot.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>

#include "common/units.h"

namespace shardplan {

namespace {

constexpr double kWidth = 760, kPanelHeight = 260, kSweepTop = 40;
constexpr double kSweepLeft = 80, kPlotWidth = 460, kSweepPlotHeight = 180;
constexpr double kLegendX = kSweepLeft + kPlotWidth + 30;
constexpr std::size_t kMaxLegendEntries = 12;
constexpr const char* kColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                    "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};

std::string escaped(std::string_view text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

// Where the first field's values sit on the x axis, in [0, 1]: by value when all
// are numbers (sizes in bytes), else evenly in the order given.
std::vector<double> x_fractions(const SweepAxis& axis) {
  const std::size_t n = axis.values.size();
  std::vector<double> out(n, 0.5);
  const bool numeric =
      std::all_of(axis.values.begin(), axis.values.end(), [](const auto& v) { return v.number.has_value(); });
  if (numeric) {
    double low = *axis.values[0].number, high = low;
    for (const auto& v : axis.values) low = std::min(low, *v.number), high = std::max(high, *v.number);
    for (std::size_t i = 0; i < n; ++i) out[i] = high > low ? (*axis.values[i].number - low) / (high - low) : 0.5;
  } else if (n > 1) {
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<double>(i) / static_cast<double>(n - 1);
  }
  return out;
}

struct Panel {
  const char* css_class;
  std::string title;
  double top;
};

// The label of series `series` (the values of every field but the first).
std::string series_label(const SweepGrid& grid, std::size_t series) {
  if (grid.axes.size() < 2) return "";
  const std::size_t rest = grid.size() / grid.axes[0].values.size();
  const auto at = grid.coordinates(series % rest);
  std::string out;
  for (std::size_t a = 1; a < grid.axes.size(); ++a)
    out += fmt::format("{}{}={}", a > 1 ? ", " : "", name_of(kSweepFieldNames, grid.axes[a].field),
                       grid.axes[a].values[at[a]].text);
  return out;
}

}  // namespace

std::string render_sweep_svg(const SweepGrid& grid, const std::vector<SweepRowRecord>& rows) {
  const SweepAxis& axis = grid.axes.front();
  const std::string field(name_of(kSweepFieldNames, axis.field));
  const std::vector<double> fractions = x_fractions(axis);
  const std::size_t rest = grid.size() / axis.values.size();  // points per value of the first field

  // Feasible points by series (the other fields' combination), in x order.
  struct Point {
    double x;
    double perf;
    double hbm_gib;
  };
  std::map<std::size_t, std::vector<Point>> series;
  std::vector<double> infeasible_x;
  double max_perf = 0, max_hbm = 0;
  for (const auto& row : rows) {
    const double x = kSweepLeft + kPlotWidth * fractions[grid.coordinates(row.index)[0]];
    if (!row.feasible || !row.max_rank_perf_ms || !row.max_hbm_bytes) {
      infeasible_x.push_back(x);
      continue;
    }
    const Point p{x, *row.max_rank_perf_ms, *row.max_hbm_bytes / static_cast<double>(kGiB)};
    series[row.index % rest].push_back(p);
    max_perf = std::max(max_perf, p.perf);
    max_hbm = std::max(max_hbm, p.hbm_gib);
  }
  for (auto& [id, points] : series)
    std::stable_sort(points.begin(), points.end(), [](const Point& a, const Point& b) { return a.x < b.x; });

  const double height = kSweepTop + 2 * kPanelHeight + 20;
  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1}\" viewBox=\"0 0 {0} {1}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text class=\"title\" x=\"{2}\" y=\"22\" font-size=\"15\">shardplan sweep: {3} points, {4} feasible, by "
      "{5}</text>\n",
      kWidth, height, kSweepLeft, rows.size(), rows.size() - infeasible_x.size(), escaped(field));

  const Panel panels[] = {{"perf", "max-rank perf (ms)", kSweepTop}, {"hbm", "max HBM per rank (GiB)", kSweepTop + kPanelHeight}};
  for (const Panel& panel : panels) {
    const bool perf = std::string_view(panel.css_class) == "perf";
    const double y_max = (perf ? max_perf : max_hbm) > 0 ? (perf ? max_perf : max_hbm) * 1.05 : 1;
    const double bottom = panel.top + kSweepPlotHeight;
    auto y_of = [&](double value) { return bottom - kSweepPlotHeight * value / y_max; };
    svg += fmt::format("<g class=\"panel {}\">\n", panel.css_class);
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n", kSweepLeft,
                       panel.top, kPlotWidth, kSweepPlotHeight);
    for (int t = 0; t <= 4; ++t) {
      const double value = y_max * t / 4;
      svg += fmt::format("<text class=\"y-tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"end\">{:.4g}</text>\n",
                         kSweepLeft - 6, y_of(value) + 4, value);
    }
    for (std::size_t v = 0; v < axis.values.size(); ++v) {
      const double x = kSweepLeft + kPlotWidth * fractions[v];
      svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#888\"/>\n", x,
                         bottom, bottom + 4);
      svg += fmt::format("<text class=\"x-tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x,
                         bottom + 16, escaped(axis.values[v].text));
    }
    svg += fmt::format("<text class=\"x-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       kSweepLeft + kPlotWidth / 2, bottom + 34, escaped(field));
    svg += fmt::format(
        "<text class=\"y-label\" x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 {0:.1f} {1:.1f})\">{2}</text>\n",
        kSweepLeft - 58, panel.top + kSweepPlotHeight / 2, escaped(panel.title));
    std::size_t colour = 0;
    for (const auto& [id, points] : series) {
      const char* stroke = kColours[colour++ % std::size(kColours)];
      std::string vertices;
      for (const Point& p : points)
        vertices += fmt::format("{}{:.1f},{:.1f}", vertices.empty() ? "" : " ", p.x, y_of(perf ? p.perf : p.hbm_gib));
      svg += fmt::format("<polyline class=\"series {}\" fill=\"none\" stroke=\"{}\" points=\"{}\"/>\n", panel.css_class,
                         stroke, vertices);
      for (const Point& p : points)
        svg += fmt::format("<circle class=\"point {}\" cx=\"{:.1f}\" cy=\"{:.1f}\" r=\"3\" fill=\"{}\"/>\n",
                           panel.css_class, p.x, y_of(perf ? p.perf : p.hbm_gib), stroke);
    }
    if (perf)
      for (double x : infeasible_x)
        svg += fmt::format("<path class=\"infeasible\" d=\"M{0:.1f},{1:.1f} l6,6 m0,-6 l-6,6\" stroke=\"#d62728\"/>\n",
                           x - 3, bottom - 9);
    svg += "</g>\n";
  }
  // The legend: one entry per series (the other fields' values), when there are few.
  if (grid.axes.size() > 1) {
    std::size_t colour = 0, entry = 0;
    for (const auto& [id, points] : series) {
      const char* fill = kColours[colour++ % std::size(kColours)];
      if (entry == kMaxLegendEntries) {
        svg += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{}\">... {} more</text>\n", kLegendX,
                           kSweepTop + 16 * entry + 10, series.size() - entry);
        break;
      }
      svg += fmt::format(
          "<rect x=\"{0}\" y=\"{1}\" width=\"10\" height=\"10\" fill=\"{2}\"/>"
          "<text class=\"legend\" x=\"{3}\" y=\"{4}\">{5}</text>\n",
          kLegendX, kSweepTop + 16 * entry, fill, kLegendX + 14, kSweepTop + 16 * entry + 9, escaped(series_label(grid, id)));
      ++entry;
    }
  }
  return svg + "</svg>\n";
}

}  // namespace shardplan
