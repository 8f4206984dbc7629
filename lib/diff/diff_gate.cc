#include "diff/diff_gate.h"

#include <cmath>

#include <fmt/format.h>

#include "common/error.h"

namespace shardplan {

namespace {

bool takes_fraction(GateConditionKind kind) {
  return kind == GateConditionKind::kHbmOver || kind == GateConditionKind::kDdrOver;
}

GateCondition parse_one(const std::string& text) {
  const std::size_t eq = text.find('=');
  const std::string name = text.substr(0, eq);
  const auto kind = parse_name(kGateConditionNames, name);
  if (!kind) throw InputError(SourcePos{}, "--fail-on", unknown_name_message("condition", name, names_of(kGateConditionNames)));
  GateCondition c;
  c.kind = *kind;
  c.text = text;
  if (!takes_fraction(*kind)) {
    if (eq != std::string::npos)
      throw InputError(SourcePos{}, "--fail-on", "condition '" + name + "' takes no value, found '" + text + "'");
    return c;
  }
  const std::string value = eq == std::string::npos ? "" : text.substr(eq + 1);
  char* end = nullptr;
  const double fraction = value.empty() ? NAN : std::strtod(value.c_str(), &end);
  if (value.empty() || end != value.c_str() + value.size() || !(fraction > 0) || !std::isfinite(fraction))
    throw InputError(SourcePos{}, "--fail-on",
                     "condition '" + name + "' needs a fraction above 0, e.g. '" + name + "=0.9', found '" + text + "'");
  c.fraction = fraction;
  return c;
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
      out.push_back(parse_one(one));
      start = comma + 1;
    }
  }
  return out;
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
        break;
      case GateConditionKind::kTablesChange:
        for (const TableChange& t : d.tables)
          if (t.kind != TableChangeKind::kChanged) tables.push_back(t.fqn);
        break;
      case GateConditionKind::kInputsChange:
        if (d.inputs != InputsComparison::kSame)
          fail(c.text + ": " +
               (d.inputs == InputsComparison::kDifferent ? "the plans were planned from different inputs"
                                                         : "a plan file does not record its inputs"));
        continue;
      case GateConditionKind::kHbmOver:
      case GateConditionKind::kDdrOver: {
        const bool hbm = c.kind == GateConditionKind::kHbmOver;
        const double fraction = hbm ? d.new_hbm_fraction : d.new_ddr_fraction;
        if (fraction > c.fraction)
          fail(fmt::format("{}: rank {} of the new plan uses {:.2f}% of its {}", c.text,
                           hbm ? d.new_hbm_fraction_rank : d.new_ddr_fraction_rank, fraction * 100, hbm ? "HBM" : "DDR"));
        continue;
      }
    }
    if (!tables.empty()) {
      std::string list = tables.front();
      for (std::size_t i = 1; i < tables.size() && i < 5; ++i) list += ", " + tables[i];
      if (tables.size() > 5) list += fmt::format(" and {} more", tables.size() - 5);
      fail(fmt::format("{}: {} table{} ({})", c.text, tables.size(), tables.size() == 1 ? "" : "s", list));
    }
  }
  return result;
}

}  // namespace shardplan
