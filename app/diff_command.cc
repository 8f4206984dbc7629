// `shardplan diff OLD NEW`: what changed between two plans; exit 1 on a regression.
#include <memory>

#include <fmt/format.h>

#include "commands.h"
#include "common/atomic_write.h"
#include "common/error.h"
#include "common/units.h"
#include "config/plan_file.h"
#include "diff/diff_gate.h"
#include "diff/diff_render.h"
#include "diff/diff_report.h"
#include "diff/plan_diff.h"
#include "output.h"
#include "planner/memory_basis.h"

namespace shardplan::app {

namespace {

struct DiffOptions {
  std::string old_plan;
  std::string new_plan;
  std::string format = "text";
  double tolerance = 0;
  std::vector<std::string> fail_on;
  std::string output;
  std::string report;
  bool detailed_exitcode = false;
};

// The --fail-on conditions for --help, from the one name table.
std::string fail_on_help() {
  std::string out;
  for (const auto& entry : kGateConditionNames) {
    std::string name(entry.name), description(entry.description);
    if (description.rfind("=", 0) == 0) {  // "=RATIO: what" -> "name=RATIO", "what"
      const std::size_t colon = description.find(':');
      name += description.substr(0, colon);
      description = description.substr(colon + 2);
    }
    out += fmt::format("  {:<27} {}\n", name, description);
  }
  return out;
}

int run(const DiffOptions& options) {
  const std::optional<DiffFormat> format = parse_name(kDiffFormatNames, options.format);
  if (!format)
    throw InputError(SourcePos{}, "--format",
                     unknown_name_message("format", options.format, names_of(kDiffFormatNames)));
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
  check_conditions_apply(diff, settings.conditions);
  const GateResult gate = judge_diff(diff, settings.tolerance, settings.conditions);
  write_output(options.output, render_diff(diff, settings, gate, *format));
  if (!options.report.empty())  // both plan files, as read above, side by side (lib/diff/diff_report.h)
    write_file_atomically(options.report, render_diff_report_html(plan_picture(*old_plan), plan_picture(*new_plan),
                                                                  options.old_plan, options.new_plan));
  if (gate.failed) return static_cast<int>(ExitCode::kNoFeasiblePlan);
  if (options.detailed_exitcode && diff.any_change()) return static_cast<int>(ExitCode::kChanged);
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_diff(CLI::App& sub) {
  auto options = std::make_shared<DiffOptions>();
  sub.add_option("old", options->old_plan, "the plan to compare against (e.g. main's)")->required()->type_name("OLD");
  sub.add_option("new", options->new_plan, "the plan to judge (e.g. the pull request's)")->required()->type_name("NEW");
  sub.add_option("--format", options->format, "text (default), json or markdown (for a pull-request comment)")
      ->type_name("FORMAT");
  sub.add_option("--tolerance", options->tolerance, "max-rank perf rise allowed before exit 1: 2% or 0.02 (default 0)")
      ->type_name("RATIO");
  sub.add_option("--fail-on", options->fail_on, "also exit 1 when a condition holds (repeatable, comma-separated)")
      ->type_name("COND")
      ->allow_extra_args(false);
  sub.add_flag("--detailed-exitcode", options->detailed_exitcode,
               "exit 5 (not 0) when the plans differ but nothing failed the gate");
  sub.add_option("-o,--output", options->output, "write the report here (default: stdout)")->type_name("FILE");
  sub.add_option("--report", options->report, "also draw both plans side by side as one HTML page")->type_name("FILE");
  sub.footer(
      "Compares two plan files: the input fields that changed (model, topology, planner options, tool\n"
      "version, from the plan files' \"shardplan\" block), per table (sharding type, compute kernel,\n"
      "ranks, shard layout; added and removed tables), per rank (perf, HBM and DDR used; added and\n"
      "removed ranks) and the summary. Memory is on one basis in every output:\n  " +
      std::string(kMemoryBasisText) +
      ".\n\n"
      "Conditions for --fail-on (RATIO: 90% or 0.9; MS: 2.5ms; SIZE: 12GiB, where\n" +
      kSizeUnitsNote + "):\n" + fail_on_help() +
      "\nExamples:\n"
      "  shardplan diff main-plan.json plan.json\n"
      "  shardplan diff main-plan.json plan.json --tolerance 1% --fail-on sharding-type-change,hbm-over=90%\n"
      "  shardplan diff main-plan.json plan.json --format markdown > comment.md\n\n"
      "Exit codes: 0 no regression (with --detailed-exitcode: no change at all), 1 max-rank perf\n"
      "regressed past --tolerance or a --fail-on condition holds, 2 bad input (a file that is not a\n"
      "plan is named with the schema's rule), 5 with --detailed-exitcode: the plans differ, nothing\n"
      "failed. Full reference: docs/commands/diff.md.");
  return [options] {
    return run_removing_stale_output(options->output, {options->old_plan, options->new_plan},
                                     [&] { return run(*options); });
  };
}

}  // namespace shardplan::app
