#include "sweep/sweep_rows.h"

#include <set>

#include <fmt/format.h>

#include <nlohmann/json.hpp>

#include "common/whole_number.h"

namespace shardplan {

namespace {

using Json = nlohmann::ordered_json;

// The figures after the swept values, in row order (CSV columns and JSON keys alike).
constexpr const char* kResultColumns[] = {
    "feasible",         "failure",       "failure_stage",    "max_rank_perf_ms", "max_hbm_bytes",
    "max_hbm_fraction", "max_ddr_bytes", "max_ddr_fraction", "imbalance",        "throughput_samples_per_s",
    "proposals",        "plan"};
constexpr std::size_t kResultColumnCount = std::size(kResultColumns);
constexpr std::size_t kLeadingColumns = 3;  // sweep, index, points

template <typename T>
Json optional_row_json(const std::optional<T>& value) {
  return value ? Json(*value) : Json(nullptr);
}

Json text_or_null(const std::string& text) { return text.empty() ? Json(nullptr) : Json(text); }

Json value_json(const SweepAxis& axis, const SweepValue& value) {
  switch (value_kind_of(axis.field)) {
    case SweepValueKind::kInteger:
      return Json(*value.integer);
    case SweepValueKind::kNumber:
      return Json(*value.number);
    default:
      return Json(value.text);
  }
}

Json row_json(const SweepRowContext& context, const SweepPointResult& p, const std::string& plan_file) {
  const SweepGrid& grid = *context.grid;
  Json values = Json::object();
  const auto at = grid.coordinates(p.index);
  for (std::size_t a = 0; a < grid.axes.size(); ++a)
    values[std::string(name_of(kSweepFieldNames, grid.axes[a].field))] =
        value_json(grid.axes[a], grid.axes[a].values[at[a]]);
  Json row;
  row["sweep"] = context.sweep_id;
  row["index"] = p.index;
  row["points"] = grid.size();
  row["values"] = std::move(values);
  const Json results[] = {Json(p.feasible),
                          text_or_null(p.failure),
                          text_or_null(p.failure_stage),
                          optional_row_json(p.max_rank_perf_ms),
                          optional_row_json(p.max_hbm_bytes),
                          optional_row_json(p.max_hbm_fraction),
                          optional_row_json(p.max_ddr_bytes),
                          optional_row_json(p.max_ddr_fraction),
                          optional_row_json(p.imbalance),
                          optional_row_json(p.throughput_samples_per_s),
                          Json(p.proposals),
                          text_or_null(plan_file)};
  for (std::size_t c = 0; c < kResultColumnCount; ++c) row[kResultColumns[c]] = results[c];
  return row;
}

std::string csv_cell(const Json& value) {
  if (value.is_null()) return "";
  if (!value.is_string()) return value.dump();  // numbers as JSON writes them: one format for both
  const std::string& text = value.get_ref<const std::string&>();
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) quoted += c == '"' ? std::string("\"\"") : std::string(1, c);
  return quoted + "\"";
}

std::optional<double> number_cell(const std::string& text) {
  if (text.empty()) return std::nullopt;
  try {
    const Json value = Json::parse(text);
    if (value.is_number()) return value.get<double>();
  } catch (const Json::exception&) {
  }
  return std::nullopt;
}

std::optional<double> number_field(const nlohmann::json& row, const char* key) {
  if (!row.contains(key) || !row[key].is_number()) return std::nullopt;
  return row[key].get<double>();
}

}  // namespace

std::vector<std::string> sweep_csv_cells(std::string_view line) {
  std::vector<std::string> cells(1);
  bool quoted = false;
  for (std::size_t i = 0; i < line.size(); ++i) {
    const char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"')
        cells.back() += '"', ++i;
      else if (c == '"')
        quoted = false;
      else
        cells.back() += c;
    } else if (c == '"') {
      quoted = true;
    } else if (c == ',') {
      cells.emplace_back();
    } else {
      cells.back() += c;
    }
  }
  return cells;
}

std::string sweep_plan_file_name(std::size_t index) { return fmt::format("point-{:06d}.json", index); }

std::string sweep_header(SweepFormat format, const SweepGrid& grid) {
  if (format == SweepFormat::kJsonl) return "";
  std::string out = "sweep,index,points";
  for (const auto& axis : grid.axes) out += "," + std::string(name_of(kSweepFieldNames, axis.field));
  for (const char* column : kResultColumns) out += std::string(",") + column;
  return out + "\n";
}

std::string render_sweep_row(SweepFormat format, const SweepRowContext& context, const SweepPointResult& point,
                             const std::string& plan_file) {
  const Json row = row_json(context, point, plan_file);
  if (format == SweepFormat::kJsonl) return row.dump() + "\n";
  std::string out = csv_cell(row["sweep"]) + "," + csv_cell(row["index"]) + "," + csv_cell(row["points"]);
  for (const auto& [field, value] : row["values"].items()) out += "," + csv_cell(value);
  for (const char* column : kResultColumns) out += "," + csv_cell(row[column]);
  return out + "\n";
}

std::size_t csv_column_count(std::string_view line) { return sweep_csv_cells(line).size(); }

std::optional<SweepRowRecord> parse_sweep_row(SweepFormat format, std::string_view line, std::size_t csv_columns) {
  SweepRowRecord record;
  // A row is exactly what render_sweep_row writes less its '\n': printable text
  // (control characters are escaped inside JSON strings and never in a CSV cell),
  // a JSON row one object from its first byte to its last. A NUL and junk after
  // the object, or a '\r' before the '\n', make it another line, not a row.
  for (char c : line)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) return std::nullopt;
  if (format == SweepFormat::kJsonl && (line.empty() || line.front() != '{' || line.back() != '}')) return std::nullopt;
  if (format == SweepFormat::kJsonl) {
    // A key given twice is refused here as in every other JSON input (nlohmann's
    // parse would keep the last): keys seen so far, per open object.
    std::vector<std::set<std::string>> open_keys;
    bool duplicate = false;
    const nlohmann::json row = nlohmann::json::parse(
        line,
        [&](int, nlohmann::json::parse_event_t event, nlohmann::json& parsed) {
          if (event == nlohmann::json::parse_event_t::object_start)
            open_keys.emplace_back();
          else if (event == nlohmann::json::parse_event_t::object_end && !open_keys.empty())
            open_keys.pop_back();
          else if (event == nlohmann::json::parse_event_t::key && !open_keys.empty()) {
            duplicate = duplicate || !open_keys.back().insert(parsed.get<std::string>()).second;
          }
          return true;
        },
        /*allow_exceptions=*/false);
    if (duplicate) return std::nullopt;
    if (!row.is_object() || !row.contains("sweep") || !row["sweep"].is_string() || !row.contains("index") ||
        !row["index"].is_number_unsigned() || !row.contains("points") || !row["points"].is_number_unsigned() ||
        !row.contains("feasible") || !row["feasible"].is_boolean())
      return std::nullopt;
    record.sweep_id = row["sweep"].get<std::string>();
    record.index = row["index"].get<std::size_t>();
    record.points = row["points"].get<std::size_t>();
    record.feasible = row["feasible"].get<bool>();
    record.max_rank_perf_ms = number_field(row, "max_rank_perf_ms");
    record.max_hbm_bytes = number_field(row, "max_hbm_bytes");
  } else {
    const std::vector<std::string> cells = sweep_csv_cells(line);
    if (cells.size() != csv_columns || cells.size() < kLeadingColumns + kResultColumnCount) return std::nullopt;
    const auto index = parse_whole_number(cells[1]);
    const auto points = parse_whole_number(cells[2]);
    const std::string& feasible = cells[cells.size() - kResultColumnCount];
    if (cells[0].empty() || !index || !points || (feasible != "true" && feasible != "false")) return std::nullopt;
    record.sweep_id = cells[0];
    record.index = *index;
    record.points = *points;
    record.feasible = feasible == "true";
    record.max_rank_perf_ms = number_cell(cells[cells.size() - kResultColumnCount + 3]);
    record.max_hbm_bytes = number_cell(cells[cells.size() - kResultColumnCount + 4]);
  }
  if (record.index >= record.points) return std::nullopt;
  return record;
}

}  // namespace shardplan
