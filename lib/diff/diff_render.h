// The three renderings of `shardplan diff`: text for a terminal (at most 100
// columns, except for long table names), JSON for scripts, Markdown for a
// pull-request comment. All show the same PlanDiff and GateResult.
#pragma once

#include <string>

#include "common/names.h"
#include "diff/diff_gate.h"
#include "diff/plan_diff.h"

namespace shardplan {

enum class DiffFormat { kText, kJson, kMarkdown };

inline constexpr NameTable<DiffFormat, 3> kDiffFormatNames{{
    {DiffFormat::kText, "text", "a readable report (default)"},
    {DiffFormat::kJson, "json", "one JSON object"},
    {DiffFormat::kMarkdown, "markdown", "tables for a pull-request comment"},
}};

// What the gate was asked, for the report.
struct GateSettings {
  double tolerance = 0;
  std::vector<GateCondition> conditions;
};

std::string render_diff(const PlanDiff& diff, const GateSettings& settings, const GateResult& gate, DiffFormat format);

}  // namespace shardplan
