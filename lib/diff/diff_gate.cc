#include "diff/diff_gate.h"

#include <charconv>
#include <cmath>

#include <fmt/format.h>

#include "common/error.h"
#include "common/units.h"

namespace shardplan {

GateValueKind gate_value_kind(GateConditionKind kind) {
  switch (kind) {
    case GateConditionKind::kShardingTypeChange:
    case GateConditionKind::kKernelChange:
    case GateConditionKind::kRanksChange:
    case GateConditionKind::kTablesChange:
    case GateConditionKind::kInputsChange:
      return GateValueKind::kNone;
    case GateConditionKind::kRankPerfOver:
    case GateConditionKind::kTablePerfOver:
      return GateValueKind::kMs;
    case GateConditionKind::kRankHbmOver:
    case GateConditionKind::kRankDdrOver:
    case GateConditionKind::kTableHbmOver:
    case GateConditionKind::kTableDdrOver:
      return GateValueKind::kSize;
    default:
      return GateValueKind::kRatio;
  }
}

namespace {

// "2.5" or "2.5ms": finite, 0 or more.
std::optional<double> parse_gate_ms(std::string_view text) {
  if (text.size() >= 2 && text.substr(text.size() - 2) == "ms") text.remove_suffix(2);
  double value = 0;
  auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || !std::isfinite(value) || value < 0)
    return std::nullopt;
  return value;
}

const char* value_example(GateValueKind kind) {
  return kind == GateValueKind::kRatio ? "90%" : kind == GateValueKind::kMs ? "2.5ms" : "12GiB";
}

GateCondition parse_gate_condition(const std::string& text) {
  const std::size_t eq = text.find('=');
  const std::string name = text.substr(0, eq);
  const auto kind = parse_name(kGateConditionNames, name);
  if (!kind)
    throw InputError(SourcePos{}, "--fail-on", unknown_name_message("condition", name, names_of(kGateConditionNames)));
  GateCondition c;
  c.kind = *kind;
  c.text = text;
  const GateValueKind value_kind = gate_value_kind(*kind);
  if (value_kind == GateValueKind::kNone) {
    if (eq != std::string::npos)
      throw InputError(SourcePos{}, "--fail-on", "condition '" + name + "' takes no value, found '" + text + "'");
    return c;
  }
  const char* what = value_kind == GateValueKind::kRatio ? "a ratio"
                     : value_kind == GateValueKind::kMs  ? "a time in ms"
                                                         : "a size";
  if (eq == std::string::npos || eq + 1 == text.size())
    throw InputError(SourcePos{}, "--fail-on",
                     fmt::format("condition '{}' needs {}, e.g. '{}={}', found '{}'", name, what, name,
                                 value_example(value_kind), text));
  const std::string value = text.substr(eq + 1);
  std::string why;
  std::optional<double> parsed;
  if (value_kind == GateValueKind::kRatio) {
    parsed = parse_ratio(value, &why);
  } else if (value_kind == GateValueKind::kMs) {
    parsed = parse_gate_ms(value);
    why = "expected a finite time of 0 or more such as 2.5ms, found '" + value + "'";
  } else if (const auto bytes = parse_size_flag(value, &why)) {
    parsed = static_cast<double>(*bytes);
  }
  if (!parsed) throw InputError(SourcePos{}, "--fail-on", "condition '" + text + "': " + why);
  c.value = *parsed;
  return c;
}

std::string listed(const std::vector<std::string>& items, const char* noun) {
  std::string list = items.front();
  for (std::size_t i = 1; i < items.size() && i < 5; ++i) list += ", " + items[i];
  if (items.size() > 5) list += fmt::format(" and {} more", items.size() - 5);
  return fmt::format("{} {}{} ({})", items.size(), noun, items.size() == 1 ? "" : "s", list);
}

bool is_memory_kind(GateConditionKind kind) {
  return kind == GateConditionKind::kHbmOver || kind == GateConditionKind::kDdrOver;
}

// The figure a per-rank / per-table limit reads: 0 perf, 1 HBM, 2 DDR.
int figure_of(GateConditionKind kind) {
  switch (kind) {
    case GateConditionKind::kRankPerfOver:
    case GateConditionKind::kTablePerfOver:
    case GateConditionKind::kRankPerfIncrease:
    case GateConditionKind::kTablePerfIncrease:
      return 0;
    case GateConditionKind::kRankHbmOver:
    case GateConditionKind::kTableHbmOver:
    case GateConditionKind::kRankHbmIncrease:
    case GateConditionKind::kTableHbmIncrease:
      return 1;
    default:
      return 2;
  }
}

bool is_rank_limit(GateConditionKind kind) {
  return kind == GateConditionKind::kRankPerfOver || kind == GateConditionKind::kRankHbmOver ||
         kind == GateConditionKind::kRankDdrOver || kind == GateConditionKind::kRankPerfIncrease ||
         kind == GateConditionKind::kRankHbmIncrease || kind == GateConditionKind::kRankDdrIncrease;
}

bool is_increase(GateConditionKind kind) {
  return kind == GateConditionKind::kRankPerfIncrease || kind == GateConditionKind::kRankHbmIncrease ||
         kind == GateConditionKind::kRankDdrIncrease || kind == GateConditionKind::kTablePerfIncrease ||
         kind == GateConditionKind::kTableHbmIncrease || kind == GateConditionKind::kTableDdrIncrease;
}

std::string figure_text(int figure, double value) {
  return figure == 0 ? fmt::format("{:.4f} ms", value) : format_bytes(value);
}

// "3: 2.1000 ms" (over) or "3: 1.00 GiB -> 1.50 GiB (+50.00%)" (increase).
std::string hit_text(const std::string& who, int figure, const Change& c, bool increase) {
  if (!increase) return who + ": " + figure_text(figure, c.new_value);
  const double r = c.relative();
  return who + ": " + figure_text(figure, c.old_value) + " -> " + figure_text(figure, c.new_value) +
         (std::isinf(r) ? std::string(" (was 0)") : fmt::format(" ({:+.2f}%)", r * 100));
}

bool limit_hit(const GateCondition& c, const Change& figure) {
  if (!is_increase(c.kind)) return figure.new_value > c.value;
  if (!(figure.new_value > figure.old_value)) return false;
  if (figure.old_value == 0) return true;
  return figure.new_value > figure.old_value * (1 + c.value);
}

}  // namespace

std::vector<GateCondition> parse_fail_on(const std::vector<std::string>& values) {
  std::vector<GateCondition> out;
  for (const std::string& value : values) {
    std::size_t start = 0;
    while (start <= value.size()) {
      std::size_t comma = value.find(',', start);
      if (comma == std::string::npos) comma = value.size();
      const std::string one = value.substr(start, comma - start);
      if (one.empty()) throw InputError(SourcePos{}, "--fail-on", "expected a condition, found '" + value + "'");
      out.push_back(parse_gate_condition(one));
      start = comma + 1;
    }
  }
  return out;
}

void check_conditions_apply(const PlanDiff& d, const std::vector<GateCondition>& conditions) {
  for (const GateCondition& c : conditions)
    if (is_memory_kind(c.kind) && !d.new_has_memory)
      throw InputError(SourcePos{d.new_file}, "--fail-on",
                       "condition '" + c.text +
                           "' needs the plan file's \"memory\" block (used and usable memory per rank), which this "
                           "file lacks; plan it again with this shardplan");
}

GateResult judge_diff(const PlanDiff& d, double tolerance, const std::vector<GateCondition>& conditions) {
  GateResult result;
  auto fail = [&](std::string reason) {
    result.failed = true;
    result.reasons.push_back(std::move(reason));
  };
  if (d.max_rank_perf.new_value > d.max_rank_perf.old_value * (1 + tolerance))
    fail(fmt::format("max-rank perf regressed: {:.6f} ms -> {:.6f} ms ({:+.2f}%, tolerance {:.2f}%)",
                     d.max_rank_perf.old_value, d.max_rank_perf.new_value, d.max_rank_perf.relative() * 100,
                     tolerance * 100));
  for (const GateCondition& c : conditions) {
    std::vector<std::string> tables;
    switch (c.kind) {
      case GateConditionKind::kShardingTypeChange:
      case GateConditionKind::kKernelChange:
      case GateConditionKind::kRanksChange:
        for (const TableChange& t : d.tables) {
          if (t.kind != TableChangeKind::kChanged) continue;
          const bool hit = c.kind == GateConditionKind::kShardingTypeChange ? t.sharding_type_changed
                           : c.kind == GateConditionKind::kKernelChange     ? t.compute_kernel_changed
                                                                            : t.ranks_changed;
          if (hit) tables.push_back(t.fqn);
        }
        if (!tables.empty()) fail(c.text + ": " + listed(tables, "table"));
        continue;
      case GateConditionKind::kTablesChange:
        for (const TableChange& t : d.tables)
          if (t.kind != TableChangeKind::kChanged) tables.push_back(t.fqn);
        if (!tables.empty()) fail(c.text + ": " + listed(tables, "table"));
        continue;
      case GateConditionKind::kInputsChange:
        if (d.inputs != InputsComparison::kSame)
          fail(c.text + ": " +
               (d.inputs == InputsComparison::kDifferent ? "the plans were planned from different inputs"
                                                         : "a plan file does not record its inputs"));
        continue;
      case GateConditionKind::kHbmOver:
      case GateConditionKind::kDdrOver: {
        const bool hbm = c.kind == GateConditionKind::kHbmOver;
        const auto& peak = hbm ? d.new_hbm_peak : d.new_ddr_peak;
        if (peak && peak->fraction > c.value)
          fail(fmt::format("{}: rank {} of the new plan uses {:.2f}% of its usable {} ({} of {})", c.text, peak->rank,
                           peak->fraction * 100, hbm ? "HBM" : "DDR", format_bytes(static_cast<double>(peak->used)),
                           format_bytes(static_cast<double>(peak->usable))));
        continue;
      }
      default:
        break;
    }
    // Per-rank and per-table limits.
    const int figure = figure_of(c.kind);
    const bool increase = is_increase(c.kind);
    std::vector<std::string> hits;
    if (is_rank_limit(c.kind)) {
      for (const RankChange& r : d.ranks) {
        if (!r.in_new || (increase && !r.in_old)) continue;
        const Change& f = figure == 0 ? r.perf : figure == 1 ? r.hbm : r.ddr;
        if (limit_hit(c, f)) hits.push_back(hit_text("rank " + std::to_string(r.rank), figure, f, increase));
      }
    } else {
      for (const TableFigures& t : d.table_figures) {
        if (!t.in_new || (increase && !t.in_old)) continue;
        const Change& f = figure == 0 ? t.perf : figure == 1 ? t.hbm : t.ddr;
        if (limit_hit(c, f)) hits.push_back(hit_text(t.fqn, figure, f, increase));
      }
    }
    if (!hits.empty()) fail(c.text + ": " + listed(hits, is_rank_limit(c.kind) ? "rank" : "table"));
  }
  return result;
}

}  // namespace shardplan
