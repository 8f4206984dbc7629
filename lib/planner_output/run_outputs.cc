#include "planner_output/run_outputs.h"

#include "common/sha256.h"
#include "config/canonical_input.h"
#include "planner/advice/torchrec_failures.h"
#include "planner/run.h"
#include "planner_output/bound_report.h"
#include "planner_output/failure_text.h"
#include "planner_output/plan_json.h"
#include "planner_output/run_summary.h"
#include "planner_output/stats_json.h"
#include "planner_output/stats_text.h"

namespace shardplan {

namespace {
// The plan file text, its inputs' canonical text made once (for the hash too).
std::string plan_text_of_run(const PlanRun& run, const PlanningInput& input) {
  const std::string inputs = canonical_input_text(input);
  return plan_file_text(run, input.model.name, sha256_hex(inputs), inputs);
}
}  // namespace

RunOutputs render_run_outputs(const PlanRun& run, const PlanningInput& input, StatsFormat stats,
                              const Parallelism& parallelism, const std::string& plan_destination) {
  RunOutputs out;
  if (stats == StatsFormat::kSummary) {
    // Nothing for a failed run: its error text says what the summary would (the
    // failure kind, the proposals tried) and scripts read its first line.
    if (!run.ok()) return out;
    // Our own lines: also for an empty plan, where torchrec logs no statistics.
    const bool has_report = torchrec_logs_stats(run);
    auto render_summary = [&](std::size_t which) {
      if (which == 1) {
        out.plan = plan_text_of_run(run, input);
        return;
      }
      const StatsReport report = has_report ? stats_report_of(run, input) : StatsReport{};
      out.stats = render_summary_text(summarize_run(run, report, plan_destination));
    };
    const bool big_plan = run.result.plan.size() >= kParallelMinTables;
    parallelism.parallel_for(2, big_plan ? parallelism.threads() : 1, render_summary);
    return out;
  }
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
        // JSON only on this stream: a failure goes inside the report, not as text after it.
        if (!run.ok()) json["failure"] = failure_json(run);
        out.stats = json.dump(2) + "\n";
      }
    } else if (which == 1 && want_plan) {
      out.plan = plan_text_of_run(run, input);
    }
  };
  const bool big = run.result.plan.size() >= kParallelMinTables;
  parallelism.parallel_for(2, want_stats && want_plan && big ? parallelism.threads() : 1, render);
  if (stats == StatsFormat::kJson && !want_stats && !run.ok()) {
    // Where torchrec logs no statistics, the failure alone.
    nlohmann::ordered_json report{{"has_plan", false}};
    report["failure"] = failure_json(run);
    out.stats = report.dump(2) + "\n";
  }
  return out;
}

}  // namespace shardplan
