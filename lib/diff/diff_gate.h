// The CI gate of `shardplan diff`: exit 1 when the new plan's max-rank perf regresses
// past a relative tolerance, or when a --fail-on condition holds.
//
// --fail-on grammar (repeatable; commas separate conditions):
//   CONDITION := CHANGE | LIMIT '=' VALUE
//   CHANGE    := sharding-type-change | kernel-change | ranks-change | tables-change
//              | inputs-change
//   LIMIT     := hbm-over | ddr-over                          VALUE: RATIO of usable memory
//              | (rank|table)-(perf|hbm|ddr)-over             VALUE: MS for perf, SIZE for hbm/ddr
//              | (rank|table)-(perf|hbm|ddr)-increase         VALUE: RATIO, relative to OLD
//   RATIO     := 5% | 0.05   (a bare number above 1 is refused: "did you mean 90%?")
//   MS        := 2.5 | 2.5ms
//   SIZE      := 12GiB | 512MiB (a unit is required; GB is read as GiB)
// Memory figures are on the one basis of every output (planner/memory_basis.h).
// "-over" limits look at NEW only; "-increase" limits at the ranks and tables in
// both plans (a figure that was 0 and is not increases by any ratio).
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
  kRankPerfOver,
  kRankHbmOver,
  kRankDdrOver,
  kTablePerfOver,
  kTableHbmOver,
  kTableDdrOver,
  kRankPerfIncrease,
  kRankHbmIncrease,
  kRankDdrIncrease,
  kTablePerfIncrease,
  kTableHbmIncrease,
  kTableDdrIncrease,
};

// The description starts with the value the condition takes ("=RATIO: ..."), if any.
inline constexpr NameTable<GateConditionKind, 19> kGateConditionNames{{
    {GateConditionKind::kShardingTypeChange, "sharding-type-change", "a table in both plans changes its sharding type"},
    {GateConditionKind::kKernelChange, "kernel-change", "a table in both plans changes its compute kernel"},
    {GateConditionKind::kRanksChange, "ranks-change", "a table in both plans moves to other ranks"},
    {GateConditionKind::kTablesChange, "tables-change", "a table is added or removed"},
    {GateConditionKind::kInputsChange, "inputs-change", "the inputs differ (or a plan file does not record them)"},
    {GateConditionKind::kHbmOver, "hbm-over", "=RATIO: a rank of NEW uses more than RATIO of its usable HBM"},
    {GateConditionKind::kDdrOver, "ddr-over", "=RATIO: a rank of NEW uses more than RATIO of its usable DDR"},
    {GateConditionKind::kRankPerfOver, "rank-perf-over", "=MS: a rank of NEW has a total perf above MS"},
    {GateConditionKind::kRankHbmOver, "rank-hbm-over", "=SIZE: a rank of NEW uses more HBM than SIZE"},
    {GateConditionKind::kRankDdrOver, "rank-ddr-over", "=SIZE: a rank of NEW uses more DDR than SIZE"},
    {GateConditionKind::kTablePerfOver, "table-perf-over", "=MS: a table of NEW has a total perf above MS"},
    {GateConditionKind::kTableHbmOver, "table-hbm-over", "=SIZE: a table of NEW takes more HBM than SIZE"},
    {GateConditionKind::kTableDdrOver, "table-ddr-over", "=SIZE: a table of NEW takes more DDR than SIZE"},
    {GateConditionKind::kRankPerfIncrease, "rank-perf-increase", "=RATIO: a rank's perf rises by more than RATIO"},
    {GateConditionKind::kRankHbmIncrease, "rank-hbm-increase", "=RATIO: a rank's HBM use rises by more than RATIO"},
    {GateConditionKind::kRankDdrIncrease, "rank-ddr-increase", "=RATIO: a rank's DDR use rises by more than RATIO"},
    {GateConditionKind::kTablePerfIncrease, "table-perf-increase", "=RATIO: a table's perf rises by more than RATIO"},
    {GateConditionKind::kTableHbmIncrease, "table-hbm-increase", "=RATIO: a table's HBM rises by more than RATIO"},
    {GateConditionKind::kTableDdrIncrease, "table-ddr-increase", "=RATIO: a table's DDR rises by more than RATIO"},
}};

// What a condition's value is.
enum class GateValueKind { kNone, kRatio, kMs, kSize };
GateValueKind gate_value_kind(GateConditionKind kind);

struct GateCondition {
  GateConditionKind kind = GateConditionKind::kShardingTypeChange;
  double value = 0;  // a ratio (0.9), ms, or bytes, by gate_value_kind
  std::string text;  // as written, for messages
};

// Parses --fail-on values; throws InputError (key "--fail-on") for an unknown name
// (with "did you mean"), a missing or unexpected "=VALUE", or a value that is not
// what the condition takes (a bare ratio above 1, inf, nan, a size without unit).
std::vector<GateCondition> parse_fail_on(const std::vector<std::string>& values);

// Throws InputError when `diff` cannot answer a condition: hbm-over / ddr-over on a
// NEW plan file without its "memory" block (written before shardplan had one).
void check_conditions_apply(const PlanDiff& diff, const std::vector<GateCondition>& conditions);

struct GateResult {
  bool failed = false;
  std::vector<std::string> reasons;  // one line per failed check, in check order
};

// Judges `diff`: perf regression first (new max-rank perf > old * (1 + tolerance)),
// then the conditions in the order given.
GateResult judge_diff(const PlanDiff& diff, double tolerance, const std::vector<GateCondition>& conditions);

}  // namespace shardplan
