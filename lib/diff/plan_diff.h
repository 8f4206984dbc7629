// `shardplan diff OLD NEW` as data: what changed between two plan files, per table,
// per rank and in the summary, which input fields changed, and whether only the
// tool differs. Rendered by diff/diff_render.h; judged by diff/diff_gate.h.
//
// Memory figures are on the one basis of every output (planner/memory_basis.h):
// used = shards + the dense/KJT reservation, against the usable capacity (device
// less the reservation's percentage), read from the plan files' "memory" block.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "config/plan_file.h"

namespace shardplan {

// A figure in both plans (0 where a plan lacks it: see the owner's in_old / in_new).
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
  bool ranks_changed = false;   // the shards sit on other ranks
  bool layout_changed = false;  // the shards' offsets or sizes differ (not only their ranks)
  Change perf;                  // the table's total perf, ms
};

// Every table of either plan, with its figures (for the per-table --fail-on limits).
struct TableFigures {
  std::string fqn;
  bool in_old = false, in_new = false;
  Change perf;      // ms
  Change hbm, ddr;  // bytes, total_storage
};

struct RankChange {
  int rank = 0;
  bool in_old = false, in_new = false;  // a rank past a plan's world size is in only one
  Change perf;                          // ms
  Change hbm, ddr;                      // bytes used (memory basis; shards only in a file without "memory")
  std::int64_t new_hbm_usable = 0, new_ddr_usable = 0;  // 0 when unknown or none
  bool changed() const { return in_old != in_new || perf.changed() || hbm.changed() || ddr.changed(); }
};

// Whether the two plans were planned from the same inputs (the plan files'
// "shardplan" records): kUnknown when either file has none.
enum class InputsComparison { kSame, kDifferent, kUnknown };

// One input field (model, topology, planner options) that differs; unset: absent.
struct InputFieldChange {
  std::string path;  // "topology.hbm_cap", "model.modules[sparse.ebc].tables[t_user].num_embeddings"
  std::optional<std::string> old_value, new_value;  // JSON text
};

// The fullest rank of one memory kind in one plan (memory basis); unset without
// a "memory" block or usable capacity.
struct MemoryFraction {
  int rank = 0;
  std::int64_t used = 0, usable = 0;
  double fraction = 0;
};

struct PlanDiff {
  std::string old_file, new_file;
  InputsComparison inputs = InputsComparison::kUnknown;
  std::optional<std::string> old_version, new_version;
  std::optional<std::string> old_inputs_sha256, new_inputs_sha256;
  // The input fields that differ, in OLD's order then NEW-only fields; unset when
  // either file does not carry its inputs ("shardplan".inputs).
  std::optional<std::vector<InputFieldChange>> input_changes;
  // Summary figures.
  Change max_rank_perf;         // ms
  Change max_rank_hbm;          // bytes used, max over ranks (memory basis)
  Change total_hbm, total_ddr;  // bytes of all shards
  Change num_tables, world_size, num_proposals;
  int tables_in_both = 0;
  std::vector<TableChange> tables;          // changed in new-file order, then removed in old-file order
  std::vector<TableFigures> table_figures;  // every table: NEW's order, then OLD-only
  std::vector<RankChange> ranks;            // every rank of either plan, in rank order
  std::optional<MemoryFraction> old_hbm_peak, new_hbm_peak, old_ddr_peak, new_ddr_peak;
  bool new_has_memory = false;  // NEW has a "memory" block (hbm-over / ddr-over need it)

  bool only_tool_version_differs() const { return inputs == InputsComparison::kSame && old_version != new_version; }
  // Whether anything compared differs: a table, a rank's figures, the summary's
  // figures, or the inputs (not a tool version alone). --detailed-exitcode's "changed".
  bool any_change() const;
};

// Compares two plan files (read by read_plan_file).
PlanDiff diff_plans(const PlanFile& old_plan, const PlanFile& new_plan);

}  // namespace shardplan
