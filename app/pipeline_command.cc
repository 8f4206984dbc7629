// `shardplan pipeline`: torch Pipe's stage plan for a sequential model (docs/formats/pipeline.md).
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "commands.h"
#include "common/error.h"
#include "common/phase_times.h"
#include "output.h"
#include "pipeline/input.h"
#include "pipeline/plan_json.h"
#include "pipeline/planner.h"
#include "pipeline/suggest.h"

namespace shardplan::app {

namespace {

struct PipelineCommandOptions {
  std::string input;
  std::string output;
  bool timings = false;
  bool suggest = false;
  int show = 5;
};

int run(const PipelineCommandOptions& options) {
  PhaseTimes phases;
  const pipeline::PipelineInput input = pipeline::read_pipeline_input(options.input);
  phases.mark("read the input");
  if (options.suggest) {
    if (options.show < 1)
      throw InputError(SourcePos{}, "--show", "expected 1 or more, found " + std::to_string(options.show));
    const pipeline::Suggestions suggestions = pipeline::suggest(input);
    write_output(options.output, pipeline::render_suggestions(suggestions, input, options.show));
    phases.mark("try the configurations");
    if (options.timings) print_timings(phases);
    return static_cast<int>(suggestions.ranked.empty() ? ExitCode::kNoFeasiblePlan : ExitCode::kOk);
  }
  const pipeline::PlanResult result = pipeline::plan_pipeline(input);
  phases.append(result.phases);
  if (!result.plan) {
    remove_stale_output(options.output, {options.input});
    std::cerr << "error: " << result.failure->message << "\n";
    if (options.timings) print_timings(phases);
    return static_cast<int>(ExitCode::kNoFeasiblePlan);
  }
  phases.restart();
  write_output(options.output, pipeline::render_plan_json(*result.plan, input));
  phases.mark("render and write the plan");
  if (options.timings) print_timings(phases);
  // The plan is still written when a stage does not fit: it shows by how much.
  const auto errors = pipeline::fit_errors(*result.plan);
  for (const auto& e : errors) std::cerr << "error: " << e << "\n";
  return static_cast<int>(errors.empty() ? ExitCode::kOk : ExitCode::kNoFeasiblePlan);
}

}  // namespace

CommandRun setup_pipeline(CLI::App& sub) {
  auto options = std::make_shared<PipelineCommandOptions>();
  sub.add_option("-i,--input", options->input, "the model's layers, batch, devices and options (YAML or JSON)")
      ->required()
      ->type_name("FILE");
  sub.add_option("-o,--output", options->output, "write the plan here, atomically (default: stdout)")
      ->type_name("FILE");
  sub.add_flag("--suggest", options->suggest,
               "instead of one plan: try stage counts up to devices.count x chunks x schedule, print the best by step "
               "time and why the others lose");
  sub.add_option("--show", options->show, "how many suggestions to list (default 5)")->type_name("N");
  sub.add_flag("--timings", options->timings, "print the wall time of each phase to stderr (never in the plan)");
  sub.footer(
      "Cuts a sequential model into stages as torch.distributed.pipeline.sync.Pipe (torchgpipe)\n"
      "would, splits the batch into micro-batches like torch.chunk, and prints the clock-by-clock\n"
      "schedule, step time, bubble, per-stage peak memory and transfers as JSON.\n"
      "options.schedule: gpipe (default, Pipe), 1f1b, interleaved_1f1b (with virtual_stages).\n\n"
      "Examples:\n"
      "  shardplan pipeline --input configs/pipeline/transformer.yaml\n"
      "  shardplan pipeline --input model.json -o plan.json\n"
      "  shardplan pipeline --input configs/pipeline/transformer.yaml --suggest\n\n"
      "Exit codes: 0 plan written; 1 no partition fits, blockpartition failed, or a stage does\n"
      "not fit its device (the plan is still written); 2 bad input or usage (Pipe's exception\n"
      "kind and message, e.g. 'ValueError: number of chunks must be positive integer').");
  return
      [options] { return run_removing_stale_output(options->output, {options->input}, [&] { return run(*options); }); };
}

}  // namespace shardplan::app
