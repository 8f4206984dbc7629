// `shardplan show PLAN`: a plan file as a readable table and per-rank bars.
#include <memory>

#include "commands.h"
#include "common/error.h"
#include "config/plan_file.h"
#include "output.h"
#include "planner_output/plan_show.h"

namespace shardplan::app {

namespace {

struct ShowOptions {
  std::string plan;
  std::string output;
};

int run(const ShowOptions& options) {
  const PlanFile plan = read_plan_file(options.plan);
  write_output(options.output, render_plan_show(plan));
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_show(CLI::App& sub) {
  auto options = std::make_shared<ShowOptions>();
  sub.add_option("plan", options->plan, "a plan file written by `shardplan plan`")->required()->type_name("PLAN");
  sub.add_option("-o,--output", options->output, "write the text here (default: stdout)")->type_name("FILE");
  sub.footer(
      "Prints, within 100 columns, one row per table (sharding type as torchrec abbreviates it,\n"
      "compute kernel, ranks, shard count and size, HBM, perf), then one row per rank with text\n"
      "bars: perf against the slowest rank, HBM and DDR against what the storage reservation\n"
      "left for the tables ('!' marks a rank past it).\n\n"
      "Examples:\n"
      "  shardplan plan --config configs/quickstart.json -o plan.json && shardplan show plan.json\n"
      "  shardplan show plan.json | less -S\n\n"
      "Exit codes: 0 shown, 2 the file is not a readable plan (file:line:col: key.path: message).");
  return
      [options] { return run_removing_stale_output(options->output, {options->plan}, [&] { return run(*options); }); };
}

}  // namespace shardplan::app
