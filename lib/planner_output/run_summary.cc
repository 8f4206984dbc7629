#include "planner_output/run_summary.h"

#include <cmath>
#include <map>

#include <fmt/format.h>

#include "common/units.h"
#include "planner/memory_basis.h"
#include "planner/rank_load.h"

namespace shardplan {

namespace {

// The rank with the highest used / usable fraction of one kind (memory_basis.h, the
// basis of every output); on a topology without that capacity (HBM on cpu), the
// first rank with the most bytes, without a fraction.
std::optional<MemoryPeak> memory_peak(const std::vector<RankMemory>& memory, bool hbm) {
  if (memory.empty()) return std::nullopt;
  MemoryPeak peak;
  if (const auto best = peak_memory_fraction(memory, hbm)) {
    peak.rank = best->rank;
    peak.bytes = best->use.used;
    peak.capacity = static_cast<double>(best->use.capacity);
    peak.ratio = best->fraction;
    return peak;
  }
  for (std::size_t r = 0; r < memory.size(); ++r) {
    const MemoryUse& use = hbm ? memory[r].hbm : memory[r].ddr;
    if (r == 0 || use.used > peak.bytes) {
      peak.rank = static_cast<int>(r);
      peak.bytes = use.used;
    }
  }
  return peak;
}

std::string memory_line(const char* label, const std::optional<MemoryPeak>& peak, const char* capacity_word) {
  if (!peak) return "";
  std::string out =
      fmt::format("{:<8}max {:.2f} GiB on rank {} of {:.2f} GiB {}", label, to_gib(static_cast<double>(peak->bytes)),
                  peak->rank, to_gib(peak->capacity), capacity_word);
  if (peak->capacity > 0) out += fmt::format(" ({:.1f}%)", peak->ratio * 100);
  return out + "\n";
}

}  // namespace

RunSummary summarize_run(const PlanRun& run, const StatsReport& report, const std::string& destination) {
  RunSummary s;
  s.has_plan = run.ok();
  s.num_tables = static_cast<int>(run.result.plan.size());
  s.world_size = run.topology.world_size;
  s.compute_device = std::string(to_string(run.topology.compute_device));
  s.num_proposals = run.result.num_proposals;
  s.num_plans = run.result.num_plans;
  s.destination = destination;
  std::map<std::pair<ShardingType, ComputeKernel>, int> kinds;  // enum order = torchrec's declaration order
  for (const ShardingOption& option : run.result.plan) ++kinds[{option.sharding_type, option.compute_kernel}];
  for (const auto& [kind, count] : kinds)
    s.table_kinds.push_back({std::string(to_string(kind.first)), std::string(to_string(kind.second)), count});
  if (s.has_plan && !run.result.plan.empty() && report.has_plan && !report.ranks.empty()) {
    s.max_rank_perf = report.max_total_perf.value;
    s.max_perf_rank = report.max_total_perf.ranks.empty() ? 0 : report.max_total_perf.ranks.front();
    s.mean_rank_perf = report.mean_total_perf;
    s.perf_over_mean_pct = report.total_perf_delta_pct;
    const std::vector<RankMemory> memory =
        rank_memory(run.topology, *run.result.reservation, rank_loads(run.result.plan, run.topology.world_size));
    s.hbm = memory_peak(memory, true);
    s.ddr = memory_peak(memory, false);
  }
  if (s.has_plan && run.bound && run.bound->feasible) {
    s.bound = run.bound->value;
    s.bound_binding = std::string(to_string(run.bound->binding));
    if (const double gap = bound_gap(run.result.perf_rating, run.bound->value); std::isfinite(gap)) s.gap = gap;
    s.proven_optimal = run.bound->exact && run.result.perf_rating == run.bound->value;
  }
  s.stopped_by_clock = run.stopped_by_clock;
  return s;
}

std::string render_summary_text(const RunSummary& s) {
  std::string out;
  if (!s.has_plan) return out;  // the error text explains a failed run
  out += fmt::format("plan: {} tables on {} ranks ({}); {} proposals tried, {} feasible\n", s.num_tables, s.world_size,
                     s.compute_device, s.num_proposals, s.num_plans);
  if (!s.table_kinds.empty()) {
    out += fmt::format("{:<8}{:<20}{:<20}{:>6}\n", "tables", "sharding type", "compute kernel", "count");
    for (const TableKindCount& k : s.table_kinds)
      out += fmt::format("{:<8}{:<20}{:<20}{:>6}\n", "", k.sharding_type, k.compute_kernel, k.tables);
  }
  if (s.max_rank_perf)
    out += fmt::format("{:<8}max-rank {:.4f} ms on rank {} (mean {:.4f} ms; max {:.1f}% over the mean)\n", "perf",
                       *s.max_rank_perf, s.max_perf_rank, s.mean_rank_perf, s.perf_over_mean_pct);
  out += memory_line("HBM", s.hbm, "usable");
  out += memory_line("DDR", s.ddr, "usable");
  if (s.bound && s.proven_optimal)
    out += fmt::format("{:<8}lower bound {:.4f} ms ({}); the plan is optimal\n", "bound", *s.bound, s.bound_binding);
  else if (s.bound)
    out += fmt::format("{:<8}lower bound {:.4f} ms ({}); the plan is {} above it\n", "bound", *s.bound, s.bound_binding,
                       s.gap ? fmt::format("{:.1f}%", *s.gap * 100) : std::string("n/a"));
  if (s.stopped_by_clock)
    out += fmt::format("{:<8}stopped by --time-budget before its work budget: another machine may plan differently\n",
                       "search");
  out += fmt::format("{:<8}{}\n", "plan",
                     s.destination.empty() ? std::string("written to stdout") : "written to " + s.destination);
  return out;
}

}  // namespace shardplan
