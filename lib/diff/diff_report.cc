#include "diff/diff_report.h"

#include <map>
#include <optional>

#include <fmt/format.h>

#include "common/chart_scale.h"
#include "common/error.h"
#include "common/units.h"

namespace shardplan {

namespace {

std::string diff_change_text(std::optional<double> before, std::optional<double> after) {
  if (!before || !after) return "";
  if (*before == 0) return *after == 0 ? "=" : "new";
  const double change = (*after - *before) / *before;
  if (change == 0) return "=";
  return (change > 0 ? "+" : "") + short_number(100 * change, 3) + "%";
}

struct DiffFigure {
  std::string id, label;
  std::optional<double> before, after;
  std::string before_text, after_text;
};

std::optional<double> diff_fraction(const PlanPicture& p, bool hbm) { return storage_headline(p, hbm).fraction; }

std::vector<DiffFigure> diff_figures(const PlanPicture& a, const PlanPicture& b) {
  auto ms = [](std::optional<double> v) { return v ? short_number(*v, 5) + " ms" : std::string("-"); };
  auto pct = [](std::optional<double> v) { return v ? short_number(100 * *v, 3) + "%" : std::string("-"); };
  auto gib = [](std::optional<double> v) { return v ? format_bytes(*v) : std::string("-"); };
  auto total_hbm = [](const PlanPicture& p) {
    double total = 0;
    for (const auto& r : p.ranks) total += static_cast<double>(r.hbm_used());
    return total;
  };
  std::vector<DiffFigure> out;
  out.push_back({"diff-max-rank-perf", "max-rank perf", a.max_rank_perf_ms, b.max_rank_perf_ms, ms(a.max_rank_perf_ms),
                 ms(b.max_rank_perf_ms)});
  out.push_back({"diff-lower-bound", "lower bound", a.lower_bound_ms, b.lower_bound_ms, ms(a.lower_bound_ms),
                 ms(b.lower_bound_ms)});
  out.push_back({"diff-gap", "gap to the bound", a.gap, b.gap, pct(a.gap), pct(b.gap)});
  out.push_back({"diff-hbm-fraction", "max HBM per rank, of usable after the reservation", diff_fraction(a, true),
                 diff_fraction(b, true), pct(diff_fraction(a, true)), pct(diff_fraction(b, true))});
  const double hbm_a = static_cast<double>(storage_headline(a, true).used);
  const double hbm_b = static_cast<double>(storage_headline(b, true).used);
  out.push_back({"diff-hbm-used", "HBM on that rank", hbm_a, hbm_b, gib(hbm_a), gib(hbm_b)});
  out.push_back({"diff-total-hbm", "HBM, all ranks", total_hbm(a), total_hbm(b), gib(total_hbm(a)), gib(total_hbm(b))});
  out.push_back({"diff-ranks", "ranks", static_cast<double>(a.ranks.size()), static_cast<double>(b.ranks.size()),
                 std::to_string(a.ranks.size()), std::to_string(b.ranks.size())});
  return out;
}

std::string diff_table_cells(const ReportTable* t) {
  if (!t) return "<td colspan=\"3\"><em>absent</em></td>";
  return fmt::format("<td>{}</td><td>{}</td><td>{}</td>", t->sharding_type, t->compute_kernel,
                     rank_ranges_text(t->ranks));
}

}  // namespace

std::string render_diff_report_html(const PlanPicture& old_plan, const PlanPicture& new_plan,
                                    const std::string& old_name, const std::string& new_name) {
  std::string out = report_page_start("shardplan diff: " + old_name + " → " + new_name);
  out += fmt::format("<h1>plan diff: <span id=\"old-name\">{}</span> → <span id=\"new-name\">{}</span></h1>\n",
                     markup_escape(old_name), markup_escape(new_name));
  out += fmt::format(
      "<table class=\"data figures-diff\"><thead><tr><th>figure</th><th class=\"num\">{}</th><th class=\"num\">{}</th>"
      "<th class=\"num\">change</th></tr></thead><tbody>\n",
      markup_escape(old_name), markup_escape(new_name));
  for (const auto& f : diff_figures(old_plan, new_plan))
    out += fmt::format(
        "<tr id=\"{}\"><td>{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td><td class=\"num\">{}</td></tr>\n",
        f.id, f.label, f.before_text, f.after_text, diff_change_text(f.before, f.after));
  out += "</tbody></table>\n";

  // What moved: every table whose sharding type, kernel or ranks differ, or that is
  // in one plan only; in the new plan's order, then the removed ones in the old's.
  std::map<std::string, const ReportTable*> before, after;
  for (const auto& t : old_plan.tables) before[t.table] = &t;
  for (const auto& t : new_plan.tables) after[t.table] = &t;
  std::string rows;
  int moved = 0;
  auto add_row = [&](const ReportTable* a, const ReportTable* b) {
    const std::string& name = a ? a->table : b->table;
    if (a && b && a->sharding_type == b->sharding_type && a->compute_kernel == b->compute_kernel &&
        rank_ranges_text(a->ranks) == rank_ranges_text(b->ranks))
      return;
    ++moved;
    rows +=
        fmt::format("<tr class=\"moved\" data-table=\"{0}\"><td>{0}</td>{1}{2}<td class=\"num\">{3} → {4}</td></tr>\n",
                    markup_escape(name), diff_table_cells(a), diff_table_cells(b),
                    a ? short_number(a->perf_ms, 4) : "-", b ? short_number(b->perf_ms, 4) : "-");
  };
  for (const auto& t : new_plan.tables) add_row(before.count(t.table) ? before[t.table] : nullptr, &t);
  for (const auto& t : old_plan.tables)
    if (!after.count(t.table)) add_row(&t, nullptr);
  out += fmt::format("<h2>What moved: <span id=\"moved-count\">{}</span> of {} tables</h2>\n", moved,
                     std::max(old_plan.tables.size(), new_plan.tables.size()));
  if (moved > 0)
    out += fmt::format(
        "<table class=\"data moved-tables\"><thead><tr><th rowspan=\"2\">table</th><th colspan=\"3\">{}</th>"
        "<th colspan=\"3\">{}</th><th rowspan=\"2\" class=\"num\">perf (ms)</th></tr><tr><th>sharding type</th>"
        "<th>kernel</th><th>ranks</th><th>sharding type</th><th>kernel</th><th>ranks</th></tr></thead><tbody>\n{}"
        "</tbody></table>\n",
        markup_escape(old_name), markup_escape(new_name), rows);

  // The headers side by side; the per-rank views one above the other, each the page's
  // width (at half width the charts' labels would be too small to read) and on one
  // scale, so that equal bars mean equal figures.
  out += "<h2>Side by side</h2>\n<div class=\"pair\">\n";
  for (const auto& [picture, name, prefix] :
       {std::tuple{&old_plan, &old_name, "old-"}, std::tuple{&new_plan, &new_name, "new-"}}) {
    out += fmt::format("<div class=\"side\" id=\"{}side\">\n<h3>{}</h3>\n", prefix, markup_escape(*name));
    out += render_plan_header_html(*picture, prefix);
    out += "</div>\n";
  }
  out += "</div>\n<h2>Per rank, on one scale</h2>\n";
  for (const auto& [picture, other, name, prefix] :
       {std::tuple{&old_plan, &new_plan, &old_name, "old-"}, std::tuple{&new_plan, &old_plan, &new_name, "new-"}}) {
    out += fmt::format("<div class=\"ranks\" id=\"{}ranks\">\n<h3>{}</h3>\n", prefix, markup_escape(*name));
    out += render_rank_view_html(*picture, prefix, {other});
    out += "</div>\n";
  }
  return out + "</body>\n</html>\n";
}

}  // namespace shardplan
