#include "sweep/sweep_plot.h"

#include <algorithm>
#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/chart_scale.h"
#include "common/units.h"

namespace shardplan {

namespace {

constexpr double kPlotCanvasWidth = 820;
constexpr double kPlotLeft = 90, kPlotAreaWidth = 660, kPlotAreaHeight = 170;
constexpr double kPlotPanelGap = 62;  // below each panel: x ticks and the x label
constexpr double kPlotTop = 44;
// With infeasible points, a band at the foot of each panel, under its zero line, holds
// their crosses: drawn over the data area they hid the series running near zero.
constexpr double kPlotInfeasibleBand = 18;
constexpr double kPlotLegendRow = 18;
constexpr std::size_t kPlotLegendMax = 40;
constexpr const char* kPlotColours[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#9467bd", "#8c564b",
                                        "#e377c2", "#7f7f7f", "#bcbd22", "#17becf", "#393b79"};
constexpr const char* kPlotDashes[] = {"", "6 3", "2 2", "8 3 2 3"};
constexpr int kPlotMarkerKinds = 5;
constexpr const char* kPlotInfeasibleColour = "#d62728";

// A marker of kind `kind` centred on (x, y), as a path.
std::string marker_path(int kind, double x, double y) {
  const double r = 4;
  switch (kind % kPlotMarkerKinds) {
    case 0:  // circle
      return fmt::format("M{:.1f},{:.1f} a{},{} 0 1,0 {},0 a{},{} 0 1,0 {},0 Z", x - r, y, r, r, 2 * r, r, r, -2 * r);
    case 1:  // square
      return fmt::format("M{:.1f},{:.1f} h{} v{} h{} Z", x - r, y - r, 2 * r, 2 * r, -2 * r);
    case 2:  // triangle
      return fmt::format("M{:.1f},{:.1f} L{:.1f},{:.1f} L{:.1f},{:.1f} Z", x, y - r - 1, x + r + 0.5, y + r,
                         x - r - 0.5, y + r);
    case 3:  // diamond
      return fmt::format("M{:.1f},{:.1f} L{:.1f},{:.1f} L{:.1f},{:.1f} L{:.1f},{:.1f} Z", x, y - r - 1, x + r + 1, y, x,
                         y + r + 1, x - r - 1, y);
    default:  // triangle pointing down
      return fmt::format("M{:.1f},{:.1f} L{:.1f},{:.1f} L{:.1f},{:.1f} Z", x, y + r + 1, x + r + 0.5, y - r,
                         x - r - 0.5, y - r);
  }
}

// Every other series has hollow markers, so that a marker under it still shows.
std::string marker_paint(std::size_t series, const char* colour) {
  if (series % 2 == 1) return fmt::format("fill=\"none\" stroke=\"{}\" stroke-width=\"1.6\"", colour);
  return fmt::format("fill=\"{}\" stroke=\"white\" stroke-width=\"0.8\"", colour);
}

struct PlotPanel {
  const char* css_class;
  std::string title;  // the y axis' label
  double scale;       // display unit per raw unit
  std::optional<double> (*value)(const SweepTableRow&);
};

std::optional<double> plot_perf(const SweepTableRow& r) { return r.max_rank_perf_ms; }
std::optional<double> plot_hbm(const SweepTableRow& r) { return r.max_hbm_bytes; }
std::optional<double> plot_throughput(const SweepTableRow& r) { return r.throughput; }

}  // namespace

std::string render_sweep_svg(const SweepTable& table) {
  const std::string field = table.fields.empty() ? "point" : table.fields.front();
  // The first field's values on x, in the order met; by value (log scale for a
  // positive range spanning 8x or more) when all are numbers.
  std::vector<std::string> x_values;
  std::map<std::string, std::optional<double>> x_number;
  for (const auto& r : table.rows)
    if (!r.values.empty() && !x_number.count(r.values[0])) {
      x_values.push_back(r.values[0]);
      x_number[r.values[0]] = r.value_numbers[0];
    }
  const bool numeric = !x_values.empty() && std::all_of(x_values.begin(), x_values.end(),
                                                        [&](const std::string& v) { return x_number[v].has_value(); });
  double low = 0, high = 0;
  if (numeric) {
    low = high = *x_number[x_values[0]];
    for (const auto& v : x_values) low = std::min(low, *x_number[v]), high = std::max(high, *x_number[v]);
  }
  const bool log_x = numeric && low > 0 && high / low >= 8;
  std::map<std::string, double> x_fraction;
  for (std::size_t i = 0; i < x_values.size(); ++i) {
    double f = x_values.size() > 1 ? static_cast<double>(i) / static_cast<double>(x_values.size() - 1) : 0.5;
    if (numeric && high > low) {
      const double v = *x_number[x_values[i]];
      f = log_x ? std::log(v / low) / std::log(high / low) : (v - low) / (high - low);
    }
    x_fraction[x_values[i]] = 0.04 + 0.92 * f;  // keep markers off the frame
  }

  // Series: the other fields' values, in the order met (grid order).
  std::vector<std::string> series_labels;
  std::vector<std::size_t> series_of(table.rows.size());
  for (std::size_t i = 0; i < table.rows.size(); ++i) {
    std::string label;
    for (std::size_t f = 1; f < table.fields.size() && f < table.rows[i].values.size(); ++f)
      label += (f > 1 ? ", " : "") + table.fields[f] + "=" + table.rows[i].values[f];
    const auto it = std::find(series_labels.begin(), series_labels.end(), label);
    series_of[i] = static_cast<std::size_t>(it - series_labels.begin());
    if (it == series_labels.end()) series_labels.push_back(label);
  }
  const std::size_t series_count = std::max<std::size_t>(series_labels.size(), 1);
  const double nudge_step = std::min(5.0, 30.0 / static_cast<double>(series_count));
  auto x_of = [&](std::size_t row) {
    const double nudge =
        (static_cast<double>(series_of[row]) - (static_cast<double>(series_count) - 1) / 2) * nudge_step;
    return kPlotLeft + kPlotAreaWidth * x_fraction[table.rows[row].values.empty() ? "" : table.rows[row].values[0]] +
           nudge;
  };

  double throughput_max = 0;
  for (const auto& r : table.rows) throughput_max = std::max(throughput_max, r.throughput.value_or(0));
  const double throughput_scale = throughput_max >= 1e6 ? 1e-6 : throughput_max >= 1e3 ? 1e-3 : 1;
  const std::string throughput_unit = throughput_max >= 1e6   ? "M samples/s"
                                      : throughput_max >= 1e3 ? "k samples/s"
                                                              : "samples/s";
  const PlotPanel panels[] = {
      {"perf", "max-rank perf (ms)", 1, plot_perf},
      {"hbm", "max HBM per rank (GiB)", 1.0 / static_cast<double>(kGiB), plot_hbm},
      {"throughput", "throughput (" + throughput_unit + ")", throughput_scale, plot_throughput},
  };
  std::size_t feasible = 0;
  for (const auto& r : table.rows) feasible += r.feasible;

  // A series with no feasible point draws nothing but crosses: its legend entry says so.
  std::vector<bool> series_feasible(series_labels.size(), false);
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    if (table.rows[i].feasible && series_of[i] < series_feasible.size()) series_feasible[series_of[i]] = true;
  std::vector<std::string> legend_labels = series_labels;
  for (std::size_t s = 0; s < legend_labels.size(); ++s)
    if (!series_feasible[s]) legend_labels[s] += " (no feasible point)";

  // The legend's layout: two columns when the labels are short.
  const bool with_legend = table.fields.size() > 1;
  std::size_t longest = 0;
  for (const auto& l : legend_labels) longest = std::max(longest, l.size());
  const int legend_columns = longest * 6.6 < 330 ? 2 : 1;
  const std::size_t legend_entries = with_legend ? std::min(series_labels.size(), kPlotLegendMax) : 0;
  const double legend_top = kPlotTop + 3 * (kPlotAreaHeight + kPlotPanelGap) + 6;
  const std::size_t legend_rows =
      (legend_entries + legend_columns - 1) / legend_columns + 1 + (series_labels.size() > kPlotLegendMax ? 1 : 0);
  const double height = legend_top + legend_rows * kPlotLegendRow + 12;

  std::string svg = fmt::format(
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{0}\" height=\"{1:.0f}\" viewBox=\"0 0 {0} {1:.0f}\" "
      "font-family=\"sans-serif\" font-size=\"12\">\n"
      "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text class=\"title\" x=\"{2}\" y=\"24\" font-size=\"15\">shardplan sweep: {3} points, {4} feasible, by "
      "{5}{6}</text>\n",
      kPlotCanvasWidth, height, kPlotLeft, table.rows.size(), feasible, markup_escape(field),
      log_x ? " (log scale)" : "");

  for (std::size_t p = 0; p < std::size(panels); ++p) {
    const PlotPanel& panel = panels[p];
    const double top = kPlotTop + p * (kPlotAreaHeight + kPlotPanelGap);
    const double bottom = top + kPlotAreaHeight;
    double y_max = 0;
    for (const auto& r : table.rows)
      if (r.feasible && panel.value(r)) y_max = std::max(y_max, *panel.value(r) * panel.scale);
    const AxisTicks axis = round_ticks(0, y_max > 0 ? y_max : 1, 5);
    const double band = feasible < table.rows.size() ? kPlotInfeasibleBand : 0;
    const double zero_y = bottom - band, data_height = kPlotAreaHeight - band;
    auto y_of = [&](double raw) {
      return zero_y - data_height * (raw * panel.scale - axis.low) / (axis.high - axis.low);
    };
    svg += fmt::format("<g class=\"panel {}\">\n", panel.css_class);
    if (band > 0)
      svg += fmt::format(
          "<rect class=\"infeasible-band\" x=\"{0}\" y=\"{1:.1f}\" width=\"{2}\" height=\"{3}\" fill=\"#fbeaea\"/>"
          "<text class=\"band-label\" x=\"{4}\" y=\"{5:.1f}\" text-anchor=\"end\" font-size=\"10\" fill=\"{6}\">"
          "infeasible</text>\n",
          kPlotLeft, zero_y, kPlotAreaWidth, band, kPlotLeft - 6, bottom - 5, kPlotInfeasibleColour);
    for (const double tick : axis.ticks) {
      const double y = zero_y - data_height * (tick - axis.low) / (axis.high - axis.low);
      svg += fmt::format(
          "<line x1=\"{0}\" x2=\"{1}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"#e6e6e6\"/>"
          "<text class=\"y-tick\" x=\"{3}\" y=\"{4:.1f}\" text-anchor=\"end\">{5}</text>\n",
          kPlotLeft, kPlotLeft + kPlotAreaWidth, y, kPlotLeft - 6, y + 4, tick_label(tick, axis.step));
    }
    svg += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"#888\"/>\n",
                       kPlotLeft, top, kPlotAreaWidth, kPlotAreaHeight);
    // x ticks at the values (at most about 16 labelled, evenly picked).
    const std::size_t label_every = std::max<std::size_t>(1, (x_values.size() + 15) / 16);
    for (std::size_t v = 0; v < x_values.size(); ++v) {
      const double x = kPlotLeft + kPlotAreaWidth * x_fraction[x_values[v]];
      svg += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1:.1f}\" x2=\"{0:.1f}\" y2=\"{2:.1f}\" stroke=\"#888\"/>\n", x,
                         bottom, bottom + 4);
      if (v % label_every == 0)
        svg += fmt::format("<text class=\"x-tick\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n", x,
                           bottom + 17, markup_escape(x_values[v]));
    }
    svg += fmt::format("<text class=\"x-label\" x=\"{:.1f}\" y=\"{:.1f}\" text-anchor=\"middle\">{}</text>\n",
                       kPlotLeft + kPlotAreaWidth / 2, bottom + 34, markup_escape(field));
    svg += fmt::format(
        "<text class=\"y-label\" x=\"{0:.1f}\" y=\"{1:.1f}\" text-anchor=\"middle\" "
        "transform=\"rotate(-90 {0:.1f} {1:.1f})\">{2}</text>\n",
        kPlotLeft - 62, top + kPlotAreaHeight / 2, markup_escape(panel.title));
    for (std::size_t s = 0; s < series_labels.size(); ++s) {
      const char* colour = kPlotColours[s % std::size(kPlotColours)];
      const char* dash = kPlotDashes[s % std::size(kPlotDashes)];
      std::vector<std::pair<double, double>> points;
      for (std::size_t i = 0; i < table.rows.size(); ++i)
        if (series_of[i] == s && table.rows[i].feasible && panel.value(table.rows[i]))
          points.emplace_back(x_of(i), y_of(*panel.value(table.rows[i])));
      std::stable_sort(points.begin(), points.end());
      std::string vertices;
      for (const auto& [x, y] : points) vertices += fmt::format("{}{:.1f},{:.1f}", vertices.empty() ? "" : " ", x, y);
      if (!points.empty())
        svg += fmt::format(
            "<polyline class=\"series {}\" fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"/>\n",
            panel.css_class, colour, *dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "", vertices);
      for (const auto& [x, y] : points)
        svg += fmt::format("<path class=\"point {}\" d=\"{}\" {}/>\n", panel.css_class,
                           marker_path(static_cast<int>(s), x, y), marker_paint(s, colour));
    }
    for (std::size_t i = 0; i < table.rows.size(); ++i)
      if (!table.rows[i].feasible)
        svg += fmt::format(
            "<path class=\"infeasible {}\" d=\"M{:.1f},{:.1f} l8,8 m0,-8 l-8,8\" stroke=\"{}\" stroke-width=\"2\">"
            "<title>point {}: infeasible ({})</title></path>\n",
            panel.css_class, x_of(i) - 4, bottom - band / 2 - 4, kPlotInfeasibleColour, table.rows[i].index,
            markup_escape(table.rows[i].failure));
    svg += "</g>\n";
  }

  // The legend, below the panels: a line sample with the marker, then the full label.
  svg += "<g class=\"legend\">\n";
  const double column_width = (kPlotCanvasWidth - kPlotLeft) / legend_columns;
  for (std::size_t s = 0; s < legend_entries; ++s) {
    const double x = kPlotLeft + (s % legend_columns) * column_width;
    const double y = legend_top + (s / legend_columns) * kPlotLegendRow;
    const char* colour = kPlotColours[s % std::size(kPlotColours)];
    const char* dash = kPlotDashes[s % std::size(kPlotDashes)];
    svg += fmt::format(
        "<g class=\"legend-entry\"><line x1=\"{0:.1f}\" x2=\"{1:.1f}\" y1=\"{2:.1f}\" y2=\"{2:.1f}\" stroke=\"{3}\" "
        "stroke-width=\"1.5\"{4}/><path d=\"{5}\" {9}/><text class=\"legend\" x=\"{6:.1f}\" y=\"{7:.1f}\">{8}"
        "</text></g>\n",
        x, x + 28, y, colour, *dash ? fmt::format(" stroke-dasharray=\"{}\"", dash) : "",
        marker_path(static_cast<int>(s), x + 14, y), x + 34, y + 4, markup_escape(legend_labels[s]),
        marker_paint(s, colour));
  }
  double y = legend_top + ((legend_entries + legend_columns - 1) / legend_columns) * kPlotLegendRow;
  if (series_labels.size() > kPlotLegendMax) {
    svg += fmt::format("<text class=\"legend\" x=\"{}\" y=\"{:.1f}\">... and {} more series</text>\n", kPlotLeft, y + 4,
                       series_labels.size() - kPlotLegendMax);
    y += kPlotLegendRow;
  }
  svg += fmt::format(
      "<path d=\"M{:.1f},{:.1f} l8,8 m0,-8 l-8,8\" stroke=\"{}\" stroke-width=\"2\"/><text class=\"legend\" "
      "x=\"{:.1f}\" y=\"{:.1f}\">infeasible point (in the shaded band at the foot of every panel)</text>\n",
      kPlotLeft + 10, y - 4, kPlotInfeasibleColour, kPlotLeft + 34, y + 4);
  return svg + "</g>\n</svg>\n";
}

}  // namespace shardplan
