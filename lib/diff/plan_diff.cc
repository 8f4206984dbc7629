#include "diff/plan_diff.h"

#include <algorithm>
#include <limits>
#include <map>

namespace shardplan {

double Change::relative() const {
  if (old_value == new_value) return 0;
  if (old_value == 0)
    return new_value > 0 ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity();
  return new_value / old_value - 1;
}

bool PlanDiff::any_change() const {
  if (!tables.empty() || inputs == InputsComparison::kDifferent) return true;
  if (input_changes && !input_changes->empty()) return true;
  for (const RankChange& r : ranks)
    if (r.changed()) return true;
  for (const Change* c : {&max_rank_perf, &max_rank_hbm, &total_hbm, &total_ddr, &num_tables, &world_size})
    if (c->changed()) return true;
  return false;
}

namespace {

Change change_of(double old_value, double new_value) { return Change{old_value, new_value}; }

// Same offsets and sizes shard by shard: a table whose shards only moved to other
// ranks keeps its layout.
bool same_layout(const PlanFileTable& a, const PlanFileTable& b) {
  if (a.shards.size() != b.shards.size()) return false;
  for (std::size_t i = 0; i < a.shards.size(); ++i)
    if (a.shards[i].offsets != b.shards[i].offsets || a.shards[i].sizes != b.shards[i].sizes) return false;
  return true;
}

bool has_memory(const PlanFile& plan) { return !plan.memory.empty() && plan.memory.size() == plan.ranks.size(); }

// Bytes a rank uses on the memory basis; the shards' bytes in a file without "memory".
PlanFileStorage used_of(const PlanFile& plan, std::size_t rank) {
  if (has_memory(plan)) return plan.memory[rank].used;
  return plan.ranks[rank].storage;
}

std::optional<MemoryFraction> peak_of(const PlanFile& plan, bool hbm) {
  if (!has_memory(plan)) return std::nullopt;
  std::optional<MemoryFraction> best;
  for (std::size_t r = 0; r < plan.memory.size(); ++r) {
    const PlanFileMemory& m = plan.memory[r];
    const std::int64_t used = hbm ? m.used.hbm : m.used.ddr, usable = hbm ? m.usable.hbm : m.usable.ddr;
    if (usable <= 0) continue;
    const double fraction = static_cast<double>(used) / static_cast<double>(usable);
    if (!best || fraction > best->fraction) best = MemoryFraction{static_cast<int>(r), used, usable, fraction};
  }
  return best;
}

std::vector<InputFieldChange> input_field_changes(const std::vector<PlanFileInputField>& old_fields,
                                                  const std::vector<PlanFileInputField>& new_fields) {
  std::map<std::string, const std::string*> new_by_path, old_by_path;
  for (const auto& f : new_fields) new_by_path.emplace(f.path, &f.value);
  for (const auto& f : old_fields) old_by_path.emplace(f.path, &f.value);
  std::vector<InputFieldChange> out;
  for (const auto& f : old_fields) {
    auto it = new_by_path.find(f.path);
    if (it == new_by_path.end())
      out.push_back({f.path, f.value, std::nullopt});
    else if (*it->second != f.value)
      out.push_back({f.path, f.value, *it->second});
  }
  for (const auto& f : new_fields)
    if (!old_by_path.count(f.path)) out.push_back({f.path, std::nullopt, f.value});
  return out;
}

}  // namespace

PlanDiff diff_plans(const PlanFile& old_plan, const PlanFile& new_plan) {
  PlanDiff d;
  d.old_file = old_plan.file;
  d.new_file = new_plan.file;
  d.old_version = old_plan.tool_version;
  d.new_version = new_plan.tool_version;
  d.old_inputs_sha256 = old_plan.inputs_sha256;
  d.new_inputs_sha256 = new_plan.inputs_sha256;
  if (old_plan.inputs_sha256 && new_plan.inputs_sha256)
    d.inputs =
        *old_plan.inputs_sha256 == *new_plan.inputs_sha256 ? InputsComparison::kSame : InputsComparison::kDifferent;
  if (old_plan.inputs && new_plan.inputs) d.input_changes = input_field_changes(*old_plan.inputs, *new_plan.inputs);

  const PlanFileSummary& os = old_plan.summary;
  const PlanFileSummary& ns = new_plan.summary;
  d.max_rank_perf = change_of(os.max_rank_perf, ns.max_rank_perf);
  d.total_hbm = change_of(static_cast<double>(os.total_hbm), static_cast<double>(ns.total_hbm));
  d.total_ddr = change_of(static_cast<double>(os.total_ddr), static_cast<double>(ns.total_ddr));
  d.num_tables = change_of(static_cast<double>(old_plan.tables.size()), static_cast<double>(new_plan.tables.size()));
  d.world_size = change_of(old_plan.world_size, new_plan.world_size);
  d.num_proposals = change_of(static_cast<double>(os.num_proposals), static_cast<double>(ns.num_proposals));

  std::map<std::string, const PlanFileTable*> old_tables;
  for (const PlanFileTable& t : old_plan.tables) old_tables.emplace(t.fqn(), &t);
  std::map<std::string, bool> seen;
  for (const PlanFileTable& t : new_plan.tables) {
    const std::string fqn = t.fqn();
    seen[fqn] = true;
    auto it = old_tables.find(fqn);
    const PlanFileTable* o = it == old_tables.end() ? nullptr : it->second;
    d.table_figures.push_back(TableFigures{
        fqn, o != nullptr, true, change_of(o ? o->total_perf : 0, t.total_perf),
        change_of(o ? static_cast<double>(o->total_storage.hbm) : 0, static_cast<double>(t.total_storage.hbm)),
        change_of(o ? static_cast<double>(o->total_storage.ddr) : 0, static_cast<double>(t.total_storage.ddr))});
    TableChange c;
    c.fqn = fqn;
    c.new_table = t;
    if (!o) {
      c.kind = TableChangeKind::kAdded;
      c.perf = change_of(0, t.total_perf);
      d.tables.push_back(std::move(c));
      continue;
    }
    ++d.tables_in_both;
    c.old_table = *o;
    c.sharding_type_changed = o->sharding_type != t.sharding_type;
    c.compute_kernel_changed = o->compute_kernel != t.compute_kernel;
    c.ranks_changed = o->ranks != t.ranks;
    c.layout_changed = !same_layout(*o, t);
    c.perf = change_of(o->total_perf, t.total_perf);
    if (c.sharding_type_changed || c.compute_kernel_changed || c.ranks_changed || c.layout_changed)
      d.tables.push_back(std::move(c));
  }
  for (const PlanFileTable& o : old_plan.tables)
    if (!seen.count(o.fqn())) {
      TableChange c;
      c.fqn = o.fqn();
      c.kind = TableChangeKind::kRemoved;
      c.old_table = o;
      c.perf = change_of(o.total_perf, 0);
      d.tables.push_back(std::move(c));
      d.table_figures.push_back(TableFigures{o.fqn(), true, false, change_of(o.total_perf, 0),
                                             change_of(static_cast<double>(o.total_storage.hbm), 0),
                                             change_of(static_cast<double>(o.total_storage.ddr), 0)});
    }

  const std::size_t num_ranks = std::max(old_plan.ranks.size(), new_plan.ranks.size());
  double old_max_hbm = 0, new_max_hbm = 0;
  for (std::size_t r = 0; r < num_ranks; ++r) {
    RankChange c;
    c.rank = static_cast<int>(r);
    c.in_old = r < old_plan.ranks.size();
    c.in_new = r < new_plan.ranks.size();
    const PlanFileStorage o = c.in_old ? used_of(old_plan, r) : PlanFileStorage{};
    const PlanFileStorage n = c.in_new ? used_of(new_plan, r) : PlanFileStorage{};
    c.perf = change_of(c.in_old ? old_plan.ranks[r].perf.total : 0, c.in_new ? new_plan.ranks[r].perf.total : 0);
    c.hbm = change_of(static_cast<double>(o.hbm), static_cast<double>(n.hbm));
    c.ddr = change_of(static_cast<double>(o.ddr), static_cast<double>(n.ddr));
    if (c.in_new && has_memory(new_plan)) {
      c.new_hbm_usable = new_plan.memory[r].usable.hbm;
      c.new_ddr_usable = new_plan.memory[r].usable.ddr;
    }
    old_max_hbm = std::max(old_max_hbm, c.hbm.old_value);
    new_max_hbm = std::max(new_max_hbm, c.hbm.new_value);
    d.ranks.push_back(c);
  }
  d.max_rank_hbm = change_of(old_max_hbm, new_max_hbm);
  d.old_hbm_peak = peak_of(old_plan, true);
  d.new_hbm_peak = peak_of(new_plan, true);
  d.old_ddr_peak = peak_of(old_plan, false);
  d.new_ddr_peak = peak_of(new_plan, false);
  d.new_has_memory = has_memory(new_plan);
  return d;
}

}  // namespace shardplan
