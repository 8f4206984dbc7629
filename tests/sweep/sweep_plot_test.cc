// The sweep's SVG is well-formed XML with one circle and one polyline vertex per
// feasible point in each panel, and axis labels that name the swept field.
#include "sweep/sweep_plot.h"

#include <catch2/catch.hpp>
#include <sstream>

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

TEST_CASE("sweep plot: one circle and vertex per feasible point, axes named after the field", "[sweep]") {
  const SweepGrid grid = read_sweep_grid("", {"world_size=2,4,8", "partitioner=greedy,memory_balanced"});
  std::vector<SweepRowRecord> rows;
  for (std::size_t i = 0; i < grid.size(); ++i) {
    SweepRowRecord r;
    r.index = i;
    r.points = grid.size();
    r.feasible = i != 1 && i != 4;
    if (r.feasible) {
      r.max_rank_perf_ms = 1.0 + static_cast<double>(i);
      r.max_hbm_bytes = 1e9 * static_cast<double>(i + 1);
    }
    rows.push_back(r);
  }
  const std::string svg = render_sweep_svg(grid, rows);
  const auto root = parse_xml(svg);
  CHECK(root->name == "svg");
  for (const char* panel : {"perf", "hbm"}) {
    INFO(panel);
    CHECK(with_class(*root, "circle", panel).size() == 4);
    const auto lines = with_class(*root, "polyline", panel);
    CHECK(lines.size() == 2);  // one per partitioner
    CHECK(vertex_count(lines) == 4);
  }
  CHECK(with_class(*root, "path", "infeasible").size() == 2);
  const auto labels = with_class(*root, "text", "x-label");
  REQUIRE(labels.size() == 2);
  for (const XmlElement* label : labels) CHECK(label->text == "world_size");
  std::vector<std::string> ticks;
  for (const XmlElement* tick : with_class(*root, "text", "x-tick")) ticks.push_back(tick->text);
  CHECK(ticks == std::vector<std::string>{"2", "4", "8", "2", "4", "8"});
  // Numeric values sit by value: 4 is a third of the way from 2 to 8.
  const auto tick_x = [&](std::size_t i) { return std::stod(with_class(*root, "text", "x-tick")[i]->attribute("x")); };
  CHECK(tick_x(1) - tick_x(0) == Approx((tick_x(2) - tick_x(0)) / 3).margin(0.1));
  CHECK(render_sweep_svg(grid, rows) == svg);  // deterministic
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
