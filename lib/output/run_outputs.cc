#include "output/run_outputs.h"

#include "output/bound_report.h"
#include "output/plan_json.h"
#include "output/stats_json.h"
#include "output/stats_text.h"
#include "planner/torchrec_failures.h"

namespace shardplan {

RunOutputs render_run_outputs(const PlanRun& run, const PlanningInput& input, StatsFormat stats,
                              const Parallelism& parallelism) {
  RunOutputs out;
  // Only where torchrec logs EmbeddingStats (not for an empty plan, nor when it raises early).
  const bool want_stats = stats != StatsFormat::kNone && torchrec_logs_stats(run);
  const bool want_plan = run.ok();
  auto render = [&](std::size_t which) {
    if (which == 0 && want_stats) {
      const StatsReport report = stats_report_of(run, input);
      if (stats == StatsFormat::kText) {
        out.stats = render_stats_text(report);  // torchrec's tables, byte for byte: no bound here
      } else {
        nlohmann::ordered_json json = render_stats_json(report);
        if (run.bound) json["lower_bound"] = bound_json(*run.bound, run.result.perf_rating);
        out.stats = json.dump(2) + "\n";
      }
    } else if (which == 1 && want_plan) {
      out.plan = plan_file_text(run, input.model.name);
    }
  };
  const bool big = run.result.plan.size() >= kParallelMinTables;
  parallelism.parallel_for(2, want_stats && want_plan && big ? parallelism.threads() : 1, render);
  return out;
}

}  // namespace shardplan
