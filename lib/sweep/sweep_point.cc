#include "sweep/sweep_point.h"

#include <algorithm>

#include "config/canonical_input.h"
#include "planner/memory_basis.h"
#include "planner/planner.h"
#include "planner/rank_load.h"
#include "planner/run.h"
#include "planner_output/plan_json.h"

namespace shardplan {

namespace {

// The highest used / usable fraction over ranks (planner/memory_basis.h, the basis
// of every output); unset when a rank with load has no usable capacity of the kind.
std::optional<double> sweep_peak_fraction(const std::vector<RankMemory>& memory, bool hbm) {
  for (const RankMemory& m : memory) {
    const MemoryUse& use = hbm ? m.hbm : m.ddr;
    if (use.used > 0 && use.capacity <= 0) return std::nullopt;
  }
  const auto peak = peak_memory_fraction(memory, hbm);
  return peak ? peak->fraction : 0.0;
}

void record_failure(const PlanRun& run, SweepPointResult& out) {
  if (run.enumeration_error) {
    out.failure = "NO_SHARDING_OPTION";
    out.failure_stage = "enumerate";
    return;
  }
  const PlanFailure& f = *run.result.failure;
  out.failure = std::string(name_of(kPlannerErrorTypeNames, f.error_type));
  out.failure_stage = std::string(name_of(kFailureStageNames, f.stage));
}

}  // namespace

SweepPointResult evaluate_sweep_point(const PlanningInput& base, const SweepGrid& grid, std::size_t index,
                                      const Parallelism& parallelism, bool want_plan_text, const PlanStop* stop) {
  PlanningInput input = base;
  apply_planner_overrides(grid.overrides_at(index), input);
  const PlanRun run = run_plan(input, parallelism, nullptr, {}, stop);

  SweepPointResult out;
  out.index = index;
  if (run.stopped()) {
    out.timed_out = true;
    out.failure = kSweepTimeoutFailure;
    out.failure_stage = kSweepTimeoutStage;
    return out;
  }
  out.proposals = run.result.num_proposals;
  out.feasible = run.ok();
  if (!out.feasible) {
    record_failure(run, out);
    return out;
  }
  const std::vector<RankLoad> loads = rank_loads(run.result.plan, run.topology.world_size);
  double max_perf = 0, sum_perf = 0;
  std::int64_t max_hbm = 0, max_ddr = 0;
  for (const auto& load : loads) {
    max_perf = std::max(max_perf, load.perf.total());
    sum_perf += load.perf.total();
    max_hbm = std::max(max_hbm, load.storage.hbm);
    max_ddr = std::max(max_ddr, load.storage.ddr);
  }
  out.max_rank_perf_ms = max_perf;
  out.max_hbm_bytes = max_hbm;
  out.max_ddr_bytes = max_ddr;
  const std::vector<RankMemory> memory = rank_memory(run.topology, *run.result.reservation, loads);
  out.max_hbm_fraction = sweep_peak_fraction(memory, true);
  out.max_ddr_fraction = sweep_peak_fraction(memory, false);
  const double mean_perf = loads.empty() ? 0 : sum_perf / static_cast<double>(loads.size());
  if (mean_perf > 0) out.imbalance = max_perf / mean_perf;
  if (max_perf > 0)
    out.throughput_samples_per_s = static_cast<double>(input.model.batch_size) *
                                   static_cast<double>(run.topology.world_size) / (max_perf / 1000.0);
  if (want_plan_text)
    out.plan_text = plan_file_text(run, input.model.name, inputs_sha256(input), canonical_input_text(input));
  return out;
}

}  // namespace shardplan
