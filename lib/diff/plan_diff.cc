#include "diff/plan_diff.h"

#include <algorithm>
#include <limits>
#include <map>

namespace shardplan {

double Change::relative() const {
  if (old_value == new_value) return 0;
  if (old_value == 0) return new_value > 0 ? std::numeric_limits<double>::infinity()
                                           : -std::numeric_limits<double>::infinity();
  return new_value / old_value - 1;
}

namespace {

Change change_of(double old_value, double new_value) { return Change{old_value, new_value}; }

bool same_layout(const PlanFileTable& a, const PlanFileTable& b) {
  if (a.shards.size() != b.shards.size()) return false;
  for (std::size_t i = 0; i < a.shards.size(); ++i)
    if (a.shards[i].rank != b.shards[i].rank || a.shards[i].offsets != b.shards[i].offsets ||
        a.shards[i].sizes != b.shards[i].sizes)
      return false;
  return true;
}

// The highest use / capacity over ranks (ranks without capacity are skipped).
void peak_fraction(const PlanFile& plan, bool hbm, double& fraction, int& rank) {
  fraction = 0;
  rank = 0;
  for (std::size_t r = 0; r < plan.ranks.size() && r < plan.devices.size(); ++r) {
    const double capacity = static_cast<double>(hbm ? plan.devices[r].hbm : plan.devices[r].ddr);
    if (capacity <= 0) continue;
    const double used = static_cast<double>(hbm ? plan.ranks[r].storage.hbm : plan.ranks[r].storage.ddr);
    if (used / capacity > fraction) {
      fraction = used / capacity;
      rank = static_cast<int>(r);
    }
  }
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
    d.inputs = *old_plan.inputs_sha256 == *new_plan.inputs_sha256 ? InputsComparison::kSame : InputsComparison::kDifferent;

  const PlanFileSummary& os = old_plan.summary;
  const PlanFileSummary& ns = new_plan.summary;
  d.max_rank_perf = change_of(os.max_rank_perf, ns.max_rank_perf);
  d.max_rank_hbm = change_of(static_cast<double>(os.max_rank_hbm), static_cast<double>(ns.max_rank_hbm));
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
    TableChange c;
    c.fqn = fqn;
    c.new_table = t;
    if (it == old_tables.end()) {
      c.kind = TableChangeKind::kAdded;
      c.perf = change_of(0, t.total_perf);
      d.tables.push_back(std::move(c));
      continue;
    }
    ++d.tables_in_both;
    const PlanFileTable& o = *it->second;
    c.old_table = o;
    c.sharding_type_changed = o.sharding_type != t.sharding_type;
    c.compute_kernel_changed = o.compute_kernel != t.compute_kernel;
    c.ranks_changed = o.ranks != t.ranks;
    c.layout_changed = !same_layout(o, t);
    c.perf = change_of(o.total_perf, t.total_perf);
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
    }

  const std::size_t num_ranks = std::max(old_plan.ranks.size(), new_plan.ranks.size());
  for (std::size_t r = 0; r < num_ranks; ++r) {
    const PlanFileRank none;
    const PlanFileRank& o = r < old_plan.ranks.size() ? old_plan.ranks[r] : none;
    const PlanFileRank& n = r < new_plan.ranks.size() ? new_plan.ranks[r] : none;
    RankChange c;
    c.rank = static_cast<int>(r);
    c.perf = change_of(o.perf.total, n.perf.total);
    c.hbm = change_of(static_cast<double>(o.storage.hbm), static_cast<double>(n.storage.hbm));
    c.ddr = change_of(static_cast<double>(o.storage.ddr), static_cast<double>(n.storage.ddr));
    d.ranks.push_back(c);
  }
  peak_fraction(new_plan, true, d.new_hbm_fraction, d.new_hbm_fraction_rank);
  peak_fraction(new_plan, false, d.new_ddr_fraction, d.new_ddr_fraction_rank);
  return d;
}

}  // namespace shardplan
