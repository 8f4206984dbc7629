// The sweep's SVG is well-formed XML with one circle and one polyline vertex per
// feasible point in each panel, and axis labels that name the swept field.
#include "sweep/sweep_plot.h"

#include <catch2/catch.hpp>
#include <sstream>

#include <algorithm>
#include "common/chart_scale.h"
#include "support/xml.h"

namespace shardplan {
namespace {

using testing::parse_xml;
using testing::XmlElement;

std::vector<const XmlElement*> with_class(const XmlElement& root, const std::string& name, const std::string& css) {
  std::vector<const XmlElement*> out;
  for (const XmlElement* e : root.descendants()) {
    std::istringstream classes(e->attribute("class"));
    bool has = false;
    for (std::string c; classes >> c;) has = has || c == css;
    if (e->name == name && has) out.push_back(e);
  }
  return out;
}

std::size_t vertex_count(const std::vector<const XmlElement*>& polylines) {
  std::size_t n = 0;
  for (const XmlElement* p : polylines) {
    std::istringstream points(p->attribute("points"));
    for (std::string pair; points >> pair;) ++n;
  }
  return n;
}

// A table of `grid`'s points: infeasible at `infeasible`, else perf 1 + i ms,
// HBM (i + 1) GB and throughput 1000 x (i + 1) samples/s.
SweepTable plot_table(const SweepGrid& grid, const std::vector<std::size_t>& infeasible) {
  SweepTable table;
  table.fields = sweep_table_fields(grid);
  for (std::size_t i = 0; i < grid.size(); ++i) {
    SweepPointResult p;
    p.index = i;
    p.feasible = std::find(infeasible.begin(), infeasible.end(), i) == infeasible.end();
    if (p.feasible) {
      p.max_rank_perf_ms = 1.0 + static_cast<double>(i);
      p.max_hbm_bytes = static_cast<std::int64_t>(1e9) * static_cast<std::int64_t>(i + 1);
      p.throughput_samples_per_s = 1000.0 * static_cast<double>(i + 1);
    } else {
      p.failure = "INSUFFICIENT_STORAGE";
    }
    table.rows.push_back(sweep_table_row(grid, p));
  }
  return table;
}

TEST_CASE("sweep plot: three panels, a marker and vertex per feasible point, infeasible in every panel", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,4,8", "partitioner=greedy,memory_balanced"});
  const SweepTable table = plot_table(grid, {1, 4});
  const std::string svg = render_sweep_svg(table);
  const auto root = parse_xml(svg);
  CHECK(root->name == "svg");
  for (const char* panel : {"perf", "hbm", "throughput"}) {
    INFO(panel);
    CHECK(with_class(*root, "path", panel).size() == 4 + 2);  // 4 markers, 2 crosses
    CHECK(with_class(*root, "path", "point").size() == 3 * 4);
    const auto lines = with_class(*root, "polyline", panel);
    CHECK(lines.size() == 2);  // one per partitioner
    CHECK(vertex_count(lines) == 4);
    std::vector<const XmlElement*> crosses;
    for (const XmlElement* e : with_class(*root, "path", "infeasible"))
      if (e->attribute("class") == std::string("infeasible ") + panel) crosses.push_back(e);
    CHECK(crosses.size() == 2);
  }
  // Two series differ in colour and dash pattern.
  const auto lines = with_class(*root, "polyline", "perf");
  CHECK(lines[0]->attribute("stroke") != lines[1]->attribute("stroke"));
  CHECK(lines[0]->attribute("stroke-dasharray") != lines[1]->attribute("stroke-dasharray"));
  // The legend names each series in full, below the panels.
  std::vector<std::string> legend;
  double lowest_panel_bottom = 0;
  for (const XmlElement* rect : root->descendants())
    if (rect->name == "rect" && rect->attribute("stroke") == "#888")
      lowest_panel_bottom =
          std::max(lowest_panel_bottom, std::stod(rect->attribute("y")) + std::stod(rect->attribute("height")));
  for (const XmlElement* text : with_class(*root, "text", "legend")) {
    legend.push_back(text->text);
    CHECK(std::stod(text->attribute("y")) > lowest_panel_bottom);
  }
  REQUIRE(legend.size() == 3);
  CHECK(legend[0] == "partitioner=greedy");
  CHECK(legend[1] == "partitioner=memory_balanced");
  const auto labels = with_class(*root, "text", "x-label");
  REQUIRE(labels.size() == 3);
  for (const XmlElement* label : labels) CHECK(label->text == "world_size");
  std::vector<std::string> ticks;
  for (const XmlElement* tick : with_class(*root, "text", "x-tick")) ticks.push_back(tick->text);
  CHECK(ticks == std::vector<std::string>{"2", "4", "8", "2", "4", "8", "2", "4", "8"});
  // 2..8 spans 4x (under 8x): by value, 4 is a third of the way from 2 to 8.
  const auto tick_x = [&](std::size_t i) { return std::stod(with_class(*root, "text", "x-tick")[i]->attribute("x")); };
  CHECK(tick_x(1) - tick_x(0) == Approx((tick_x(2) - tick_x(0)) / 3).margin(0.1));
  // y ticks are round: perf runs to 6 ms (points at 1, 3, 4, 6 ms): steps of 2 (1-2-5).
  std::vector<std::string> perf_ticks;
  for (const XmlElement* g : with_class(*root, "g", "perf"))
    for (const XmlElement* tick : with_class(*g, "text", "y-tick")) perf_ticks.push_back(tick->text);
  CHECK(perf_ticks == std::vector<std::string>{"0", "2", "4", "6"});
  CHECK(render_sweep_svg(table) == svg);  // deterministic
}

TEST_CASE("sweep plot: infeasible crosses sit in a band under the zero line, never over a series", "[sweep]") {
  // partitioner=memory_balanced (points 1, 3, 5) has no feasible point at all.
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,4,8", "partitioner=greedy,memory_balanced"});
  const SweepTable table = plot_table(grid, {1, 3, 5});
  const auto root = parse_xml(render_sweep_svg(table));
  for (const char* panel : {"perf", "hbm", "throughput"}) {
    INFO(panel);
    const XmlElement* g = with_class(*root, "g", panel).at(0);
    const auto bands = with_class(*g, "rect", "infeasible-band");
    REQUIRE(bands.size() == 1);
    const double band_top = std::stod(bands[0]->attribute("y"));
    // Every marker and vertex is at or above the band's top (the zero line) ...
    for (const XmlElement* line : with_class(*g, "polyline", panel)) {
      std::istringstream points(line->attribute("points"));
      for (std::string pair; points >> pair;) CHECK(std::stod(pair.substr(pair.find(',') + 1)) <= band_top);
    }
    // ... and every cross (a path "Mx,y l8,8 ...": y is its top) inside the band.
    const auto crosses = with_class(*g, "path", "infeasible");
    CHECK(crosses.size() == 3);
    for (const XmlElement* cross : crosses) {
      const std::string d = cross->attribute("d");
      const double top = std::stod(d.substr(d.find(',') + 1));
      CHECK(top >= band_top);
      CHECK(top + 8 <= band_top + std::stod(bands[0]->attribute("height")));
    }
  }
  std::vector<std::string> legend;
  for (const XmlElement* text : with_class(*root, "text", "legend")) legend.push_back(text->text);
  REQUIRE(legend.size() == 3);
  CHECK(legend[0] == "partitioner=greedy");
  CHECK(legend[1] == "partitioner=memory_balanced (no feasible point)");
  // All feasible: no band.
  CHECK(render_sweep_svg(plot_table(grid, {})).find("infeasible-band") == std::string::npos);
}

TEST_CASE("sweep plot: a field spanning 8x or more is drawn on a log scale", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=8..1024:*2"});
  const std::string svg = render_sweep_svg(plot_table(grid, {}));
  const auto root = parse_xml(svg);
  std::vector<double> x;
  for (const XmlElement* tick : with_class(*root, "text", "x-tick")) x.push_back(std::stod(tick->attribute("x")));
  REQUIRE(x.size() == 3 * 8);
  for (std::size_t i = 2; i < 8; ++i)
    CHECK(x[i] - x[i - 1] == Approx(x[1] - x[0]).margin(0.15));  // doubling: even steps
  CHECK(svg.find("(log scale)") != std::string::npos);
}

TEST_CASE("chart ticks: 1-2-5 steps from 0 to a round top", "[sweep][output]") {
  const AxisTicks a = round_ticks(0, 0.04033, 5);
  CHECK(a.step == Approx(0.01));
  CHECK(a.high == Approx(0.05));
  CHECK(a.ticks.size() == 6);
  CHECK(tick_label(a.ticks[3], a.step) == "0.03");
  const AxisTicks b = round_ticks(0, 22.57, 5);
  CHECK(b.step == 5);
  CHECK(b.high == 25);
  CHECK(tick_label(b.ticks[1], b.step) == "5");
  const AxisTicks c = round_ticks(0, 5.014, 5);
  CHECK(c.step == 2);
  CHECK(c.high == 6);
  const AxisTicks d = round_ticks(0, 0, 5);  // no data: a unit axis
  CHECK(d.high == 1);
  CHECK(short_number(0.0127718786, 4) == "0.01277");
  CHECK(short_number(58.147, 5) == "58.147");
  CHECK(short_number(0, 4) == "0");
}

TEST_CASE("sweep plot: the XML reader refuses malformed documents", "[sweep]") {
  // Guards the checker itself: a reader that accepts anything proves nothing.
  CHECK_NOTHROW(parse_xml("<svg a=\"1\"><g><text>a &amp; b</text></g><circle r='3'/></svg>"));
  CHECK_THROWS(parse_xml("<svg><g></svg>"));
  CHECK_THROWS(parse_xml("<svg a=1></svg>"));
  CHECK_THROWS(parse_xml("<svg><text>a & b</text></svg>"));
  CHECK_THROWS(parse_xml("<svg a=\"1\" a=\"2\"></svg>"));
  CHECK_THROWS(parse_xml("<svg></svg><svg></svg>"));
}

}  // namespace
}  // namespace shardplan
