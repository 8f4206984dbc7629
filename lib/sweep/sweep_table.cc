#include "sweep/sweep_table.h"

#include <algorithm>
#include <cctype>
#include <cmath>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "common/chart_scale.h"
#include "common/units.h"
#include "sweep/sweep_rows.h"

namespace shardplan {

namespace {

using OrderedJson = nlohmann::ordered_json;

std::optional<double> table_number(const OrderedJson& row, const char* key) {
  if (!row.contains(key) || !row[key].is_number()) return std::nullopt;
  return row[key].get<double>();
}

std::optional<double> table_number_cell(const std::string& text) {
  if (text.empty()) return std::nullopt;
  const OrderedJson value = OrderedJson::parse(text, nullptr, false);
  if (value.is_number()) return value.get<double>();
  return std::nullopt;
}

// The value's number, as the grid would read `text` for the field named `field`.
std::optional<double> value_number_of(const std::string& field, const std::string& text) {
  const auto kind = parse_name(kSweepFieldNames, field);
  if (!kind) return std::nullopt;
  std::string error;
  const auto value = parse_sweep_value(*kind, text, &error);
  return value ? value->number : std::nullopt;
}

std::string optional_text(const std::optional<double>& value, int significant) {
  return value ? short_number(*value, significant) : "";
}

std::string point_label(const SweepTable& table, const SweepTableRow& row) {
  std::string out;
  for (std::size_t f = 0; f < table.fields.size() && f < row.values.size(); ++f)
    out += (f ? " " : "") + table.fields[f] + "=" + row.values[f];
  return out;
}

// Columns of text, aligned (numbers to the right) or as Markdown.
std::string aligned_table(const std::vector<std::string>& header, const std::vector<bool>& right,
                          const std::vector<std::vector<std::string>>& rows, bool markdown, const std::string& indent) {
  std::vector<std::size_t> width(header.size(), 3);
  auto visible = [](const std::string& s) {  // UTF-8 characters, not bytes
    return static_cast<std::size_t>(std::count_if(s.begin(), s.end(), [](char c) { return (c & 0xC0) != 0x80; }));
  };
  for (std::size_t c = 0; c < header.size(); ++c) width[c] = std::max(width[c], visible(header[c]));
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < width.size(); ++c) width[c] = std::max(width[c], visible(row[c]));
  auto line = [&](const std::vector<std::string>& cells) {
    std::string out = indent + (markdown ? "| " : "");
    for (std::size_t c = 0; c < header.size(); ++c) {
      const std::string cell = c < cells.size() ? cells[c] : "";
      const std::string pad(width[c] - visible(cell), ' ');
      out += right[c] ? pad + cell : cell + pad;
      if (c + 1 < header.size()) out += markdown ? " | " : "  ";
    }
    out += markdown ? " |" : "";
    while (!markdown && !out.empty() && out.back() == ' ') out.pop_back();
    return out + "\n";
  };
  std::string out = line(header);
  if (markdown) {
    out += indent + "|";
    for (std::size_t c = 0; c < header.size(); ++c)
      out += " " + (right[c] ? std::string(width[c] - 1, '-') + ":" : std::string(width[c], '-')) + " |";
    out += "\n";
  } else {
    std::vector<std::string> rule;
    for (std::size_t c = 0; c < header.size(); ++c) rule.push_back(std::string(width[c], '-'));
    out += line(rule);
  }
  for (const auto& row : rows) out += line(row);
  return out;
}

}  // namespace

std::vector<std::string> sweep_table_fields(const SweepGrid& grid) {
  std::vector<std::string> out;
  for (const auto& axis : grid.axes) out.emplace_back(name_of(kSweepFieldNames, axis.field));
  return out;
}

SweepTableRow sweep_table_row(const SweepGrid& grid, const SweepPointResult& point) {
  SweepTableRow row;
  row.index = point.index;
  const auto at = grid.coordinates(point.index);
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    row.values.push_back(grid.axes[a].values[at[a]].text);
    row.value_numbers.push_back(grid.axes[a].values[at[a]].number);
  }
  row.feasible = point.feasible;
  row.failure = point.failure;
  row.max_rank_perf_ms = point.max_rank_perf_ms;
  if (point.max_hbm_bytes) row.max_hbm_bytes = static_cast<double>(*point.max_hbm_bytes);
  row.max_hbm_fraction = point.max_hbm_fraction;
  row.imbalance = point.imbalance;
  row.throughput = point.throughput_samples_per_s;
  row.wall_seconds = point.wall_seconds;
  return row;
}

SweepTable read_sweep_table(std::string_view text) {
  SweepTable table;
  std::vector<std::string> header;
  std::size_t start = 0;
  while (start < text.size()) {
    std::size_t end = text.find('\n', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view line = text.substr(start, end - start);
    start = end + 1;
    if (line.empty()) continue;
    SweepTableRow row;
    if (line.front() == '{') {
      const OrderedJson json = OrderedJson::parse(line, nullptr, false);
      if (!json.is_object() || !json.contains("index") || !json["index"].is_number_unsigned() ||
          !json.contains("values") || !json["values"].is_object() || !json.contains("feasible") ||
          !json["feasible"].is_boolean())
        continue;
      std::vector<std::string> fields;
      for (const auto& [field, value] : json["values"].items()) {
        fields.push_back(field);
        row.values.push_back(value.is_string() ? value.get<std::string>() : value.dump());
        row.value_numbers.push_back(value_number_of(field, row.values.back()));
      }
      if (table.fields.empty()) table.fields = fields;
      if (fields != table.fields) continue;
      row.index = json["index"].get<std::size_t>();
      row.feasible = json["feasible"].get<bool>();
      if (json.contains("failure") && json["failure"].is_string()) row.failure = json["failure"].get<std::string>();
      row.max_rank_perf_ms = table_number(json, "max_rank_perf_ms");
      row.max_hbm_bytes = table_number(json, "max_hbm_bytes");
      row.max_hbm_fraction = table_number(json, "max_hbm_fraction");
      row.imbalance = table_number(json, "imbalance");
      row.throughput = table_number(json, "throughput_samples_per_s");
    } else {
      const std::vector<std::string> cells = sweep_csv_cells(line);
      if (cells.size() > 3 && cells[0] == "sweep" && cells[1] == "index") {
        header = cells;
        const auto feasible = std::find(header.begin(), header.end(), "feasible");
        table.fields.assign(header.begin() + 3, feasible);
        continue;
      }
      if (header.empty() || cells.size() != header.size()) continue;
      auto cell = [&](const char* name) -> const std::string* {
        const auto it = std::find(header.begin(), header.end(), name);
        return it == header.end() ? nullptr : &cells[static_cast<std::size_t>(it - header.begin())];
      };
      const auto index = table_number_cell(cells[1]);
      if (!index || !cell("feasible")) continue;
      row.index = static_cast<std::size_t>(*index);
      row.feasible = *cell("feasible") == "true";
      for (std::size_t f = 0; f < table.fields.size(); ++f) {
        row.values.push_back(cells[3 + f]);
        row.value_numbers.push_back(value_number_of(table.fields[f], cells[3 + f]));
      }
      if (const auto* failure = cell("failure")) row.failure = *failure;
      auto number = [&](const char* name) { return cell(name) ? table_number_cell(*cell(name)) : std::nullopt; };
      row.max_rank_perf_ms = number("max_rank_perf_ms");
      row.max_hbm_bytes = number("max_hbm_bytes");
      row.max_hbm_fraction = number("max_hbm_fraction");
      row.imbalance = number("imbalance");
      row.throughput = number("throughput_samples_per_s");
    }
    table.rows.push_back(std::move(row));
  }
  std::stable_sort(table.rows.begin(), table.rows.end(),
                   [](const SweepTableRow& a, const SweepTableRow& b) { return a.index < b.index; });
  return table;
}

std::string render_sweep_table(const SweepTable& table, SweepDisplayFormat format) {
  std::vector<std::string> header{"index"};
  header.insert(header.end(), table.fields.begin(), table.fields.end());
  for (const char* column :
       {"feasible", "max-rank perf (ms)", "max HBM (GiB)", "HBM of device", "imbalance", "samples/s", "wall (s)"})
    header.emplace_back(column);
  std::vector<bool> right(header.size(), true);
  for (std::size_t f = 0; f < table.fields.size(); ++f) right[1 + f] = false;
  right[1 + table.fields.size()] = false;
  std::vector<std::vector<std::string>> rows;
  for (const auto& r : table.rows) {
    std::vector<std::string> cells{std::to_string(r.index)};
    cells.insert(cells.end(), r.values.begin(), r.values.end());
    cells.push_back(r.feasible ? "yes" : "no: " + r.failure);
    cells.push_back(optional_text(r.max_rank_perf_ms, 4));
    cells.push_back(r.max_hbm_bytes ? short_number(to_gib(*r.max_hbm_bytes), 3) : "");
    cells.push_back(r.max_hbm_fraction ? short_number(100 * *r.max_hbm_fraction, 3) + "%" : "");
    cells.push_back(optional_text(r.imbalance, 3));
    cells.push_back(r.throughput ? fmt::format("{:.0f}", *r.throughput) : "");
    cells.push_back(r.wall_seconds ? fmt::format("{:.2f}", *r.wall_seconds) : "");
    rows.push_back(std::move(cells));
  }
  return aligned_table(header, right, rows, format == SweepDisplayFormat::kMarkdown, "");
}

std::vector<std::size_t> sweep_pareto_front(const SweepTable& table) {
  std::vector<std::size_t> feasible;
  for (std::size_t i = 0; i < table.rows.size(); ++i)
    if (table.rows[i].feasible && table.rows[i].max_rank_perf_ms && table.rows[i].max_hbm_bytes) feasible.push_back(i);
  // By HBM, then perf, then grid order; a point is on the front when its perf is
  // below every point's with no more HBM seen so far.
  std::stable_sort(feasible.begin(), feasible.end(), [&](std::size_t a, std::size_t b) {
    const auto& x = table.rows[a];
    const auto& y = table.rows[b];
    if (*x.max_hbm_bytes != *y.max_hbm_bytes) return *x.max_hbm_bytes < *y.max_hbm_bytes;
    return *x.max_rank_perf_ms < *y.max_rank_perf_ms;
  });
  std::vector<std::size_t> front;
  for (const std::size_t i : feasible)
    if (front.empty() || *table.rows[i].max_rank_perf_ms < *table.rows[front.back()].max_rank_perf_ms)
      front.push_back(i);
  return front;
}

std::string render_sweep_summary(const SweepTable& table, double elapsed_seconds) {
  std::size_t feasible = 0, timed_out = 0;
  for (const auto& r : table.rows) {
    feasible += r.feasible;
    timed_out += r.failure == kSweepTimeoutFailure;
  }
  const std::string timeouts = timed_out ? fmt::format(" ({} timed out)", timed_out) : "";
  std::string out =
      fmt::format("sweep: {} point{}, {} feasible, {} infeasible{}, {:.1f} s\n", table.rows.size(),
                  table.rows.size() == 1 ? "" : "s", feasible, table.rows.size() - feasible, timeouts, elapsed_seconds);
  if (feasible == 0) return out;
  const std::vector<std::string> header{"", "point", "max-rank perf (ms)", "max HBM (GiB)", "samples/s"};
  const std::vector<bool> right{false, false, true, true, true};
  auto cells_of = [&](const std::string& what, const SweepTableRow& r) {
    return std::vector<std::string>{what, point_label(table, r), optional_text(r.max_rank_perf_ms, 4),
                                    r.max_hbm_bytes ? short_number(to_gib(*r.max_hbm_bytes), 3) : "",
                                    r.throughput ? fmt::format("{:.0f}", *r.throughput) : ""};
  };
  // The first row (grid order) best by each objective.
  auto best = [&](auto key, bool most) {
    const SweepTableRow* pick = nullptr;
    for (const auto& r : table.rows) {
      const std::optional<double> v = key(r);
      if (!r.feasible || !v) continue;
      if (!pick || (most ? *v > *key(*pick) : *v < *key(*pick))) pick = &r;
    }
    return pick;
  };
  std::vector<std::vector<std::string>> rows;
  if (const auto* r = best([](const SweepTableRow& x) { return x.max_rank_perf_ms; }, false))
    rows.push_back(cells_of("least max-rank perf", *r));
  if (const auto* r = best([](const SweepTableRow& x) { return x.max_hbm_bytes; }, false))
    rows.push_back(cells_of("least max HBM", *r));
  if (const auto* r = best([](const SweepTableRow& x) { return x.throughput; }, true))
    rows.push_back(cells_of("most samples/s", *r));
  out += "best points:\n" + aligned_table(header, right, rows, false, "  ");
  rows.clear();
  for (const std::size_t i : sweep_pareto_front(table)) rows.push_back(cells_of("", table.rows[i]));
  for (auto& row : rows) row.erase(row.begin());
  out += "Pareto front of max-rank perf against max HBM (no other point is better in both):\n" +
         aligned_table({header.begin() + 1, header.end()}, {right.begin() + 1, right.end()}, rows, false, "  ");
  return out;
}

std::string sweep_plan_file_name_of(const SweepGrid& grid, std::size_t index) {
  std::string values;
  const auto at = grid.coordinates(index);
  for (std::size_t a = 0; a < grid.axes.size(); ++a) {
    values += "-" + std::string(name_of(kSweepFieldNames, grid.axes[a].field)) + "=";
    for (const char c : grid.axes[a].values[at[a]].text) {
      if (std::isalnum(static_cast<unsigned char>(c)) || c == '.' || c == '+' || c == '_')
        values += c;
      else if (c != ' ')
        values += '_';
    }
  }
  if (values.size() > 200) values.resize(200);  // file names have limits; the index keeps it unique
  return fmt::format("{:06d}{}.json", index, values);
}

}  // namespace shardplan
