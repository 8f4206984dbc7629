// `shardplan plan`: the main job. Plans the model, prints a summary (or EmbeddingStats), writes the plan.
#include <unistd.h>

#include <filesystem>
#include <iostream>
#include <memory>
#include <new>

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "commands.h"
#include "common/atomic_write.h"
#include "common/error.h"
#include "common/out_of_memory.h"
#include "common/phase_times.h"
#include "common/stream_write.h"
#include "common/thread_pool.h"
#include "input_options.h"
#include "output.h"
#include "planner/run.h"
#include "planner_flags.h"
#include "planner_output/failure_text.h"
#include "planner_output/plan_report.h"
#include "planner_output/run_outputs.h"
#include "progress_line.h"

namespace shardplan::app {

namespace {

struct PlanOptions {
  InputOptions inputs;
  PlannerOverrides overrides;
  std::string output;
  std::string report;  // HTML picture of the plan, when set
  std::string stats = "summary";
  int threads = 0;  // 0 = hardware concurrency
  bool timings = false;
};

// The rule for a run that writes no plan: an earlier run's plan at -o FILE must not
// pass for this run's, so a regular file (or a symlink) there is removed. Devices and
// pipes (-o /dev/null) are left alone, and so is a FILE that is one of the inputs.
void remove_stale_plan(const PlanOptions& options) {
  namespace fs = std::filesystem;
  const std::string& path = options.output;
  if (path.empty() || path == "-") return;
  std::error_code ec;
  const fs::file_status status = fs::symlink_status(path, ec);
  if (ec || !(fs::is_regular_file(status) || fs::is_symlink(status))) return;
  for (const std::string* input :
       {&options.inputs.model, &options.inputs.topology, &options.inputs.planner, &options.inputs.config})
    if (!input->empty() && *input != "-" && fs::equivalent(*input, path, ec)) return;
  fs::remove(path, ec);
}

int plan_and_write(const PlanOptions& options, StatsFormat stats_format, ProgressLine& progress) {
  if (options.threads < 0)
    throw InputError(SourcePos{}, "--threads", "expected 0 or more, found " + std::to_string(options.threads));
  PhaseTimes phases;
  progress.set_stage("reading the inputs");
  PlanningInput input = load_input_options(options.inputs);
  apply_planner_overrides(options.overrides, input);
  phases.mark("read the inputs");

  std::vector<std::string> proposer_names;
  for (const ProposerKind kind : input.planner.proposers) proposer_names.emplace_back(to_string(kind));
  progress.set_proposer_names(std::move(proposer_names));
  ThreadPool pool(options.threads);
  const Parallelism parallelism{&pool};
  PlanRun run = run_plan(input, parallelism, nullptr, progress.observer());
  progress.clear();
  progress.set_stage("rendering the statistics and the plan");
  phases.append(run.phases);
  phases.restart();
  const std::string destination = options.output == "-" ? "" : options.output;
  RunOutputs outputs = render_run_outputs(run, input, stats_format, parallelism, destination);
  phases.mark("render the statistics and the plan");
  if (!outputs.stats.empty()) write_whole(STDERR_FILENO, outputs.stats);
  if (!run.ok()) {
    remove_stale_plan(options);
    // --stats json carries the failure itself: its stream stays JSON only.
    if (stats_format != StatsFormat::kJson) std::cerr << "error: " << explain_failure(run);
    if (options.timings) print_timings(phases);
    return static_cast<int>(ExitCode::kNoFeasiblePlan);
  }
  progress.set_stage("writing the plan");
  write_output(options.output, outputs.plan);
  if (!options.report.empty()) {
    PlanPicture picture = plan_picture(run, input.model.name);
    picture.inputs = planner_input_rows(input.planner);
    write_file_atomically(options.report, render_plan_report_html(picture));
  }
  phases.mark("write the statistics and the plan");
  if (options.timings) print_timings(phases);
  return static_cast<int>(ExitCode::kOk);
}

int run(const PlanOptions& options) {
  const std::optional<StatsFormat> stats_format = parse_name(kStatsFormatNames, options.stats);
  if (!stats_format) {
    remove_stale_plan(options);
    throw InputError(SourcePos{}, "--stats",
                     "expected " + alternatives_text(kStatsFormatNames) + ", found '" + options.stats + "'");
  }
  // A progress line on a terminal only, and never beside JSON statistics.
  ProgressLine progress(STDERR_FILENO, progress_line_wanted(STDERR_FILENO, *stats_format == StatsFormat::kJson),
                        progress_first_draw_after());
  try {
    return plan_and_write(options, *stats_format, progress);
  } catch (const InputError& e) {
    progress.clear();
    remove_stale_plan(options);
    if (*stats_format != StatsFormat::kJson) throw;
    nlohmann::ordered_json report{{"has_plan", false}};
    report["failure"] = input_error_json(e);
    write_whole(STDERR_FILENO, report.dump(2) + "\n");
    return static_cast<int>(ExitCode::kBadInput);
  } catch (const std::bad_alloc&) {
    // The planning state is unwound by now, so the message can be built.
    progress.clear();
    remove_stale_plan(options);
    throw OutOfMemoryError(progress.stage());
  }
}

}  // namespace

CommandRun setup_plan(CLI::App& sub) {
  auto options = std::make_shared<PlanOptions>();
  add_input_options(sub, options->inputs);
  add_planner_overrides(sub, options->overrides);
  sub.add_option("-o,--output", options->output, "write the plan file here (default: stdout)")->type_name("FILE");
  sub.add_option("--report", options->report,
                 "also write a picture of the plan as one self-contained HTML page (per-rank HBM, DDR, perf)")
      ->type_name("FILE");
  sub.add_option("--stats", options->stats,
                 "statistics to stderr: summary (default: a few lines), torchrec (EmbeddingStats exactly as "
                 "torchrec logs it; 'text' is its old name), json (the same report as JSON, with the failure "
                 "kind when the run fails) or none")
      ->type_name("FORMAT");
  sub.add_option("--threads", options->threads,
                 "threads for planning (default 0: one per core; 1: serial); the plan is the same for any count")
      ->type_name("N");
  sub.add_flag("--timings", options->timings, "print the wall time of each phase to stderr (never in the plan)");
  sub.footer(
      "Runs torchrec's pipeline: storage reservation, enumerate, propose / partition / rate,\n"
      "and writes the best plan as JSON (schemas/plan.schema.json). The plan file carries no\n"
      "timing: the same inputs give byte-identical output.\n\n"
      "Examples:\n"
      "  shardplan plan --config configs/quickstart.json\n"
      "  shardplan plan --model configs/dlrm-criteo-terabyte.yaml --topology configs/topology-2x8-80g.yaml -o "
      "plan.json\n"
      "  shardplan plan --config case.json --partitioner memory_balanced --proposers greedy --stats none\n"
      "  shardplan plan --config case.json --partitioner optimizing -o plan.json   # better plans than torchrec's\n\n"
      "Exit codes: 0 plan written, 1 no feasible plan (the error names the tables that do not fit),\n"
      "2 bad input or usage, 4 out of memory (the error says while doing what). A run that\n"
      "writes no plan removes an earlier plan at -o FILE (a regular file or symlink; devices,\n"
      "pipes and the input files are left alone), so a script never mistakes an old plan for\n"
      "this run's; only a command line that does not parse at all leaves FILE untouched.\n\n"
      "On a terminal, a plan that takes over a second shows a progress line on stderr\n"
      "(not with --stats json); it is erased before the statistics are printed.");
  return [options] { return run(*options); };
}

}  // namespace shardplan::app
