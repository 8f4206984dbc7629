// `shardplan diff OLD NEW`: what changed between two plans; exit 1 on a regression.
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "config/plan_file.h"
#include "diff/diff_gate.h"
#include "diff/plan_diff.h"
#include "output.h"
#include "output/diff_render.h"

namespace shardplan::app {

namespace {

struct DiffOptions {
  std::string old_plan;
  std::string new_plan;
  std::string format = "text";
  double tolerance = 0;
  std::vector<std::string> fail_on;
  std::string output;
};

int run(const DiffOptions& options) {
  const std::optional<DiffFormat> format = parse_name(kDiffFormatNames, options.format);
  if (!format) throw InputError(SourcePos{}, "--format", unknown_name_message("format", options.format, names_of(kDiffFormatNames)));
  if (!(options.tolerance >= 0))
    throw InputError(SourcePos{}, "--tolerance", "expected a relative tolerance of 0 or more (0.02 = 2%), found " +
                                                     std::to_string(options.tolerance));
  GateSettings settings;
  settings.tolerance = options.tolerance;
  settings.conditions = parse_fail_on(options.fail_on);
  // Both files are read before either is reported, so one run lists the problems of both.
  std::vector<Diagnostic> problems;
  std::optional<PlanFile> old_plan, new_plan;
  for (auto [path, plan] : {std::pair{&options.old_plan, &old_plan}, std::pair{&options.new_plan, &new_plan}}) {
    try {
      *plan = read_plan_file(*path);
    } catch (const InputError& e) {
      problems.insert(problems.end(), e.diagnostics().begin(), e.diagnostics().end());
    }
  }
  if (!problems.empty()) throw InputError(std::move(problems));
  const PlanDiff diff = diff_plans(*old_plan, *new_plan);
  const GateResult gate = judge_diff(diff, settings.tolerance, settings.conditions);
  write_output(options.output, render_diff(diff, settings, gate, *format));
  return static_cast<int>(gate.failed ? ExitCode::kNoFeasiblePlan : ExitCode::kOk);
}

}  // namespace

CommandRun setup_diff(CLI::App& sub) {
  auto options = std::make_shared<DiffOptions>();
  sub.add_option("old", options->old_plan, "the plan to compare against (e.g. main's)")->required()->type_name("OLD");
  sub.add_option("new", options->new_plan, "the plan to judge (e.g. the pull request's)")->required()->type_name("NEW");
  sub.add_option("--format", options->format, "text (default), json or markdown (for a pull-request comment)")
      ->type_name("FORMAT");
  sub.add_option("--tolerance", options->tolerance,
                 "relative max-rank perf regression allowed before exit 1 (default 0; 0.02 = 2%)")
      ->type_name("X");
  sub.add_option("--fail-on", options->fail_on,
                 "also exit 1 when a condition holds (repeatable, comma-separated): sharding-type-change, "
                 "kernel-change, ranks-change, tables-change, inputs-change, hbm-over=FRACTION, ddr-over=FRACTION")
      ->type_name("COND")
      ->allow_extra_args(false);
  sub.add_option("-o,--output", options->output, "write the report here (default: stdout)")->type_name("FILE");
  sub.footer(
      "Compares two plan files: per table (sharding type, compute kernel, ranks, shard layout), per rank\n"
      "(perf, HBM, DDR) and the summary; says whether the plans were planned from the same inputs\n"
      "(the plan files' \"shardplan\".inputs_sha256) and when only the tool version differs.\n\n"
      "Conditions for --fail-on:\n"
      "  sharding-type-change  a table in both plans changes its sharding type\n"
      "  kernel-change         a table in both plans changes its compute kernel\n"
      "  ranks-change          a table in both plans moves to other ranks\n"
      "  tables-change         a table is added or removed\n"
      "  inputs-change         the inputs differ (or a plan file does not record them)\n"
      "  hbm-over=FRACTION     a rank of NEW uses more than FRACTION of its device's HBM\n"
      "  ddr-over=FRACTION     the same for DDR\n\n"
      "Examples:\n"
      "  shardplan diff main-plan.json plan.json\n"
      "  shardplan diff main-plan.json plan.json --tolerance 0.01 --fail-on sharding-type-change,hbm-over=0.9\n"
      "  shardplan diff main-plan.json plan.json --format markdown > comment.md\n\n"
      "Exit codes: 0 no regression, 1 max-rank perf regressed past --tolerance or a --fail-on\n"
      "condition holds, 2 bad input (a file that is not a plan is named with the schema's rule).");
  return [options] {
    return run_removing_stale_output(options->output, {options->old_plan, options->new_plan},
                                     [&] { return run(*options); });
  };
}

}  // namespace shardplan::app
