#include "sweep/sweep_grid.h"

#include <algorithm>
#include <map>
#include <unordered_map>

#include "common/whole_number.h"
#include "document/document.h"
#include "document/node_reader.h"

namespace shardplan {

std::size_t SweepGrid::size() const {
  std::size_t n = 1;
  for (const auto& axis : axes) n *= axis.values.size();
  return n;
}

std::vector<std::size_t> SweepGrid::coordinates(std::size_t index) const {
  std::vector<std::size_t> out(axes.size());
  for (std::size_t a = axes.size(); a-- > 0;) {  // the last axis varies fastest
    out[a] = index % axes[a].values.size();
    index /= axes[a].values.size();
  }
  return out;
}

PlannerOverrides SweepGrid::overrides_at(std::size_t index) const {
  PlannerOverrides out;
  const auto at = coordinates(index);
  for (std::size_t a = 0; a < axes.size(); ++a) set_override(out, axes[a].field, axes[a].values[at[a]]);
  return out;
}

std::string SweepGrid::canonical_text() const {
  std::string out;
  for (const auto& axis : axes) {
    if (!out.empty()) out += ';';
    out += std::string(name_of(kSweepFieldNames, axis.field)) + '=';
    for (std::size_t v = 0; v < axis.values.size(); ++v) out += (v ? "," : "") + axis.values[v].text;
  }
  return out;
}

namespace {

std::string trimmed(std::string_view text) {
  const auto first = text.find_first_not_of(" \t");
  if (first == std::string_view::npos) return "";
  const auto last = text.find_last_not_of(" \t");
  return std::string(text.substr(first, last - first + 1));
}

std::string sweep_field_description(SweepField field) {
  for (const auto& entry : kSweepFieldNames)
    if (entry.value == field) return std::string(entry.description);
  return "";
}

// Collects the axes and the problems found, from the file and then the --set arguments.
class GridBuilder {
 public:
  std::vector<Diagnostic> problems;
  SweepGrid grid;

  // Problems at `pos`: through the file's reader while reading it (which lists
  // them by position), else in the order found.
  void report(SourcePos pos, const std::string& path, std::string message) {
    if (file_reader_)
      file_reader_->report(std::move(pos), path, std::move(message));
    else
      problems.push_back({std::move(pos), path, std::move(message)});
  }

  // Starts an axis for `name`, or reports why not (unknown field, given twice).
  SweepAxis* start_axis(const std::string& name, SourcePos pos, const std::string& path) {
    const auto field = parse_name(kSweepFieldNames, name);
    if (!field) {
      report(pos, path, unknown_name_message("sweep field", name, names_of(kSweepFieldNames)));
      return nullptr;
    }
    for (const auto& axis : grid.axes)
      if (axis.field == *field) {
        report(pos, path, "field '" + name + "' is swept twice; give all its values in one place");
        return nullptr;
      }
    grid.axes.push_back(SweepAxis{*field, {}, {}, {}});
    return &grid.axes.back();
  }

  void add_value(SweepAxis& axis, const std::string& text, SourcePos pos, const std::string& path) {
    std::string error;
    auto value = parse_sweep_value(axis.field, text, &error);
    if (!value) {
      report(pos, path, error);
      return;
    }
    // Two values are the same when both are numbers and equal, or else when their
    // texts are; found through hash maps, so a grid of 10^6 values reads in linear time.
    SeenValues& seen_values = seen_[axis.field];  // a field is one axis
    std::optional<std::size_t> earlier;
    if (value->number) {
      if (auto it = seen_values.numbers.find(*value->number); it != seen_values.numbers.end())
        earlier = it->second;
      else if (auto t = seen_values.texts_without_number.find(value->text); t != seen_values.texts_without_number.end())
        earlier = t->second;
    } else if (auto t = seen_values.texts.find(value->text); t != seen_values.texts.end()) {
      earlier = t->second;
    }
    if (earlier) {
      const SweepValue& seen = axis.values[*earlier];
      report(pos, path, "value '" + text + "' is given twice" + (seen.text == text ? "" : " (as '" + seen.text + "')"));
      return;
    }
    const std::size_t index = axis.values.size();
    if (value->number)
      seen_values.numbers.emplace(*value->number, index);
    else
      seen_values.texts_without_number.emplace(value->text, index);
    seen_values.texts.emplace(value->text, index);
    axis.values.push_back(std::move(*value));
    axis.value_pos.push_back(pos);
    axis.value_path.push_back(path);
  }

  // A value or, for an integer field, a range of values (expand_sweep_range).
  void add_values(SweepAxis& axis, const std::string& text, SourcePos pos, const std::string& path) {
    if (text.find("..") == std::string::npos) return add_value(axis, text, pos, path);
    if (value_kind_of(axis.field) != SweepValueKind::kInteger) {
      report(pos, path,
             "ranges (A..B:STEP, A..B:*FACTOR) are for integer fields; '" +
                 std::string(name_of(kSweepFieldNames, axis.field)) + "' takes " + sweep_field_description(axis.field) +
                 ", found '" + text + "'");
      return;
    }
    std::string error;
    const auto values = expand_sweep_range(text, &error);
    if (!values) return report(pos, path, error);
    for (const auto& value : *values) add_value(axis, value, pos, path);
  }

  void read_file(const std::string& path) {
    const Document doc = read_document(path);
    NodeReader r(doc.file);
    file_reader_ = &r;
    read_grid(r, doc);
    file_reader_ = nullptr;
    try {
      r.throw_if_any();  // sorts the file's problems by position
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }

  void read_grid(NodeReader& r, const Document& doc) {
    if (!r.expect_map(doc.root, "")) return;
    r.check_keys(doc.root, "", {"grid"});
    const YAML::Node grid_node = r.field(doc.root, "", "grid", true);
    if (grid_node.IsDefined() && r.expect_map(grid_node, "grid")) {
      if (grid_node.size() == 0) r.report(grid_node, "grid", "expected at least one field to sweep");
      for (auto it = grid_node.begin(); it != grid_node.end(); ++it) {
        const std::string name = it->first.Scalar();
        const std::string key = join_key("grid", name);
        SweepAxis* axis = start_axis(name, r.pos(it->first), key);
        if (!axis) continue;
        const YAML::Node list = it->second;  // a copy: `it->second` lives in a temporary
        if (!list.IsSequence() || list.size() == 0) {
          r.report(list, key,
                   list.IsSequence() ? "expected a non-empty list of values"
                                     : "expected a list of values, found " + NodeReader::describe(list));
          continue;
        }
        for (std::size_t i = 0; i < list.size(); ++i) {
          const std::string item_path = join_index(key, i);
          auto text = value_text(r, list[i], item_path, axis->field);
          if (text) add_value(*axis, *text, r.pos(list[i]), item_path);
        }
      }
    }
  }

  void read_set(const std::string& argument) {
    const std::size_t equals = argument.find('=');
    if (equals == std::string::npos) {
      problems.push_back({SourcePos{}, "--set", "expected FIELD=V1,V2,..., found '" + argument + "'"});
      return;
    }
    const std::string name = trimmed(std::string_view(argument).substr(0, equals));
    const std::string key = "--set " + name;
    SweepAxis* axis = start_axis(name, SourcePos{}, "--set");
    if (!axis) return;
    const std::string list = argument.substr(equals + 1);
    if (trimmed(list).empty()) {
      problems.push_back({SourcePos{}, key, "expected at least one value after '=', found none"});
      return;
    }
    std::size_t start = 0, index = 0;
    while (true) {
      const std::size_t comma = std::min(list.find(',', start), list.size());
      const std::string text = trimmed(std::string_view(list).substr(start, comma - start));
      const std::string path = join_index(key, index++);
      if (text.empty())
        problems.push_back({SourcePos{}, path, "expected a value, found nothing between commas"});
      else
        add_values(*axis, text, SourcePos{}, path);
      if (comma == list.size()) break;
      start = comma + 1;
    }
  }

 private:
  // A list element's text: a scalar, or for proposers also a list of names.
  static std::optional<std::string> value_text(NodeReader& r, const YAML::Node& node, const std::string& path,
                                               SweepField field) {
    if (field == SweepField::kProposers && node.IsSequence()) {
      std::string joined;
      for (std::size_t i = 0; i < node.size(); ++i) {
        auto name = r.string(node[i], join_index(path, i));
        if (!name) return std::nullopt;
        joined += (i ? "+" : "") + *name;
      }
      if (joined.empty()) r.report(node, path, "expected at least one proposer name");
      return joined.empty() ? std::nullopt : std::optional<std::string>(joined);
    }
    return r.string(node, path);
  }

  NodeReader* file_reader_ = nullptr;
  // The values of each axis so far, by number and by text (the first of each).
  struct SeenValues {
    std::unordered_map<double, std::size_t> numbers;
    std::unordered_map<std::string, std::size_t> texts, texts_without_number;
  };
  std::map<SweepField, SeenValues> seen_;
};

}  // namespace

std::optional<std::vector<std::string>> expand_sweep_range(std::string_view text, std::string* error) {
  const std::size_t dots = text.find("..");
  if (dots == std::string_view::npos) return std::vector<std::string>{std::string(text)};
  const std::string_view first_text = text.substr(0, dots);
  std::string_view rest = text.substr(dots + 2), step_text = "1";
  if (const std::size_t colon = rest.find(':'); colon != std::string_view::npos) {
    step_text = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  const bool geometric = !step_text.empty() && step_text.front() == '*';
  if (geometric) step_text.remove_prefix(1);
  const auto first = parse_whole_number(first_text);
  const auto last = parse_whole_number(rest);
  const auto step = parse_whole_number(step_text);
  const std::string found = ", found '" + std::string(text) + "'";
  if (!first || !last || !step) {
    *error = "expected a range A..B, A..B:STEP or A..B:*FACTOR of whole numbers (8..64:8, 8..1024:*2)" + found;
    return std::nullopt;
  }
  if (*first > *last) {
    *error = "expected a range whose start is at most its end" + found;
    return std::nullopt;
  }
  if (geometric ? (*step < 2 || *first == 0) : *step == 0) {
    *error =
        std::string(geometric ? "expected a factor of 2 or more and a start above 0" : "expected a step of 1 or more") +
        found;
    return std::nullopt;
  }
  std::vector<std::string> out;
  for (std::size_t v = *first; v <= *last;) {
    if (out.size() == kMaxSweepPoints) {
      *error = "the range has more than " + std::to_string(kMaxSweepPoints) + " values" + found;
      return std::nullopt;
    }
    out.push_back(std::to_string(v));
    const std::size_t next = geometric ? v * *step : v + *step;
    if (next <= v || (geometric && next / *step != v)) break;  // would overflow
    v = next;
  }
  return out;
}

SweepGrid read_sweep_grid(const std::string& sweep_file, const std::vector<std::string>& set_arguments) {
  GridBuilder builder;
  if (!sweep_file.empty()) builder.read_file(sweep_file);
  for (const auto& argument : set_arguments) builder.read_set(argument);
  if (builder.problems.empty() && builder.grid.axes.empty())
    builder.problems.push_back({SourcePos{}, "", "nothing to sweep: give --set FIELD=V1,V2 or --sweep FILE"});
  if (builder.problems.empty()) {
    std::size_t points = 1;
    for (const auto& axis : builder.grid.axes) {
      if (points > kMaxSweepPoints / axis.values.size()) {
        builder.problems.push_back(
            {SourcePos{}, "",
             "the grid has more than " + std::to_string(kMaxSweepPoints) + " points; sweep fewer values"});
        break;
      }
      points *= axis.values.size();
    }
  }
  if (!builder.problems.empty()) throw InputError(std::move(builder.problems));
  return std::move(builder.grid);
}

void check_grid_applies(const SweepGrid& grid, const PlanningInput& base) {
  std::vector<Diagnostic> problems;
  for (const auto& axis : grid.axes) {
    for (std::size_t v = 0; v < axis.values.size(); ++v) {
      PlannerOverrides overrides;
      set_override(overrides, axis.field, axis.values[v]);
      PlanningInput copy = base;
      try {
        apply_planner_overrides(overrides, copy);
      } catch (const InputError& e) {
        for (const auto& d : e.diagnostics()) problems.push_back({axis.value_pos[v], axis.value_path[v], d.message});
      }
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
}

}  // namespace shardplan
