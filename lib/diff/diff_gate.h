// The CI gate of `shardplan diff`: exit 1 when the new plan's max-rank perf regresses
// past a relative tolerance, or when a --fail-on condition holds.
//
// --fail-on grammar (repeatable; commas separate conditions):
//   CONDITION := NAME | NAME=NUMBER
//   sharding-type-change   a table in both plans changes its sharding type
//   kernel-change          a table in both plans changes its compute kernel
//   ranks-change           a table in both plans moves to other ranks
//   tables-change          a table is added or removed
//   inputs-change          the plans were planned from different inputs (or either
//                          file does not say what it was planned from)
//   hbm-over=FRACTION      a rank of the new plan uses more than FRACTION of its
//                          device's HBM (topology.devices, before the reservation)
//   ddr-over=FRACTION      the same for DDR
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/names.h"
#include "diff/plan_diff.h"

namespace shardplan {

enum class GateConditionKind {
  kShardingTypeChange,
  kKernelChange,
  kRanksChange,
  kTablesChange,
  kInputsChange,
  kHbmOver,
  kDdrOver,
};

// The description says whether the condition takes "=FRACTION" ("needs a fraction").
inline constexpr NameTable<GateConditionKind, 7> kGateConditionNames{{
    {GateConditionKind::kShardingTypeChange, "sharding-type-change", "a table changes its sharding type"},
    {GateConditionKind::kKernelChange, "kernel-change", "a table changes its compute kernel"},
    {GateConditionKind::kRanksChange, "ranks-change", "a table moves to other ranks"},
    {GateConditionKind::kTablesChange, "tables-change", "a table is added or removed"},
    {GateConditionKind::kInputsChange, "inputs-change", "the inputs differ (or are not recorded)"},
    {GateConditionKind::kHbmOver, "hbm-over", "a rank uses more than FRACTION of its device's HBM"},
    {GateConditionKind::kDdrOver, "ddr-over", "a rank uses more than FRACTION of its device's DDR"},
}};

struct GateCondition {
  GateConditionKind kind = GateConditionKind::kShardingTypeChange;
  double fraction = 0;  // hbm-over / ddr-over only
  std::string text;     // as written, for messages
};

// Parses --fail-on values; throws InputError (key "--fail-on") for an unknown name
// (with "did you mean"), a missing or unexpected "=NUMBER", or a fraction <= 0.
std::vector<GateCondition> parse_fail_on(const std::vector<std::string>& values);

struct GateResult {
  bool failed = false;
  std::vector<std::string> reasons;  // one line per failed check, in check order
};

// Judges `diff`: perf regression first (new max-rank perf > old * (1 + tolerance)),
// then the conditions in the order given.
GateResult judge_diff(const PlanDiff& diff, double tolerance, const std::vector<GateCondition>& conditions);

}  // namespace shardplan
