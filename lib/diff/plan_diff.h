// `shardplan diff OLD NEW` as data: what changed between two plan files, per table,
// per rank and in the summary, and whether their inputs or only the tool differ.
// Rendered by output/diff_render.h; judged by diff/diff_gate.h.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/plan_file.h"

namespace shardplan {

// A figure in both plans (0 where a plan lacks it, e.g. a rank past its world size).
struct Change {
  double old_value = 0;
  double new_value = 0;
  double delta() const { return new_value - old_value; }
  // Relative change, new/old - 1; 0 when both are 0, +inf when only new is.
  double relative() const;
  bool changed() const { return old_value != new_value; }
};

enum class TableChangeKind { kChanged, kAdded, kRemoved };

// One table whose sharding differs (or that only one plan has).
struct TableChange {
  std::string fqn;  // "module.path.table"
  TableChangeKind kind = TableChangeKind::kChanged;
  // The table in each plan (unset for the plan that lacks it).
  std::optional<PlanFileTable> old_table, new_table;
  bool sharding_type_changed = false;
  bool compute_kernel_changed = false;
  bool ranks_changed = false;
  bool layout_changed = false;  // any shard's rank, offsets or sizes
  Change perf;                  // the table's total perf, ms
};

struct RankChange {
  int rank = 0;
  Change perf;  // ms
  Change hbm;   // bytes
  Change ddr;   // bytes
  bool changed() const { return perf.changed() || hbm.changed() || ddr.changed(); }
};

// Whether the two plans were planned from the same inputs (the plan files'
// "shardplan" records): kUnknown when either file has none.
enum class InputsComparison { kSame, kDifferent, kUnknown };

struct PlanDiff {
  std::string old_file, new_file;
  InputsComparison inputs = InputsComparison::kUnknown;
  std::optional<std::string> old_version, new_version;
  std::optional<std::string> old_inputs_sha256, new_inputs_sha256;
  // Summary figures.
  Change max_rank_perf;  // ms
  Change max_rank_hbm;   // bytes
  Change total_hbm, total_ddr;
  Change num_tables, world_size, num_proposals;
  int tables_in_both = 0;
  std::vector<TableChange> tables;  // changed in new-file order, then removed in old-file order
  std::vector<RankChange> ranks;    // every rank of either plan, in rank order
  // New plan's HBM/DDR peaks as a fraction of each rank's device capacity (the
  // highest over ranks; 0 when no rank has capacity).
  double new_hbm_fraction = 0;
  double new_ddr_fraction = 0;
  int new_hbm_fraction_rank = 0, new_ddr_fraction_rank = 0;

  bool only_tool_version_differs() const {
    return inputs == InputsComparison::kSame && old_version != new_version;
  }
};

// Compares two plan files (read by read_plan_file).
PlanDiff diff_plans(const PlanFile& old_plan, const PlanFile& new_plan);

}  // namespace shardplan
