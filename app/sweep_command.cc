// `shardplan sweep`: plans one model over a grid of topology and planner values,
// one row per point; `shardplan sweep merge` joins the slices of a sharded sweep.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.h"
#include "common/error.h"
#include "common/stream_write.h"
#include "config/loader.h"
#include "input_options.h"
#include "output.h"
#include "progress_line.h"
#include "stdin_input.h"
#include "sweep/sweep_job.h"
#include "sweep/sweep_table.h"
#include "sweep_progress.h"

namespace shardplan::app {

namespace {

struct SweepOptions {
  InputOptions inputs;
  SweepRequest request;
  bool no_summary = false;
  // sweep merge
  std::vector<std::string> slices;
  std::string merge_output;
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The inputs the flags name: the files' contents in flag order (what the sweep id
// covers), and the input they load to. `--config -`: stdin is read once, and the
// sweep's id is made of the same bytes a file would give (a slice fed other bytes
// on its stdin is another sweep).
SweepInputs load_sweep_inputs(const InputOptions& inputs) {
  SweepInputs out;
  if (inputs.config == "-") {
    std::string text = read_stdin();
    out.input = load_case_text(kStdinName, text);
    out.file_contents.push_back(std::move(text));
    return out;
  }
  for (const std::string* path : {&inputs.config, &inputs.model, &inputs.topology, &inputs.planner}) {
    if (*path == "-")
      throw InputError(SourcePos{}, "",
                       "sweep takes stdin ('-') for --config only; save the model, topology and planner to files, "
                       "or give them as one case on stdin");
    if (!path->empty()) out.file_contents.push_back(file_bytes(*path));
  }
  out.input = load_input_options(inputs);
  return out;
}

// remove_stale_output (output.h) for a sweep's -o, unless another sweep holds its lock.
void remove_unlocked_sweep_output(const SweepOptions& o) {
  std::vector<std::string> inputs = input_paths(o.inputs);
  inputs.push_back(o.request.sweep_file);
  const std::string& output = o.request.output;
  const int fd = output.empty() || output == "-" ? -1 : ::open(output.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;                                                            // nothing there (or stdout)
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) remove_stale_output(output, inputs);  // removed under our lock
  ::close(fd);
}

// `reached_output`: set once the sweep starts to open -o; from there the file is
// this run's (or, when its lock is refused, another sweep's), never a stale one.
int run_sweep(const SweepOptions& o, bool& reached_output) {
  SweepProgress progress(STDERR_FILENO, progress_line_wanted(STDERR_FILENO, false), progress_first_draw_after());
  const SweepOutcome outcome = run_sweep_request(
      o.request, [&] { return load_sweep_inputs(o.inputs); }, &progress, &reached_output);
  progress.clear();
  if (!o.no_summary) write_whole(STDERR_FILENO, render_sweep_summary(outcome.table, outcome.elapsed_seconds));
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_sweep(CLI::App& sub) {
  auto options = std::make_shared<SweepOptions>();
  add_input_options(sub, options->inputs);
  sub.add_option("--set", options->request.sets,
                 "sweep FIELD over the values V1,V2,... (repeatable; integer fields also take ranges A..B:STEP and "
                 "A..B:*FACTOR; fields: " +
                     joined_names(kSweepFieldNames, ", ") + ")")
      ->type_name("FIELD=V1,V2")
      ->allow_extra_args(false);
  sub.add_option("--sweep", options->request.sweep_file, "the grid as a file (YAML or JSON; schemas/sweep.schema.json)")
      ->type_name("FILE");
  sub.add_option("--format", options->request.format,
                 "rows as jsonl (default, one JSON object per line) or csv; or, for reading, an aligned table or "
                 "markdown (with a wall-time column) written when the sweep ends")
      ->type_name("FORMAT");
  sub.add_option("-o,--output", options->request.output, "write the rows here (default: stdout)")->type_name("FILE");
  sub.add_option("--threads", options->request.threads,
                 "threads (default 0: one per core); the rows are the same for any count")
      ->type_name("N");
  sub.add_flag("--resume", options->request.resume,
               "keep the complete rows already in -o FILE (an interrupted run's) and plan only the rest");
  sub.add_option("--shard", options->request.shard, "plan only slice K of N: the points whose index % N == K")
      ->type_name("K/N");
  sub.add_option("--plans-dir", options->request.plans_dir,
                 "also write each feasible point's plan file here, named by its index and values "
                 "(000012-world_size=8-hbm_cap=16GiB.json)")
      ->type_name("DIR");
  sub.add_option("--plot", options->request.plot,
                 "also draw max-rank perf, max HBM and throughput against the first field (SVG)")
      ->type_name("FILE");
  sub.add_option("--timeout", options->request.timeout,
                 "stop a point still planning after this long (30s, 2m, 1h, 500ms; a bare number is seconds): its "
                 "row says failure TIMEOUT and the sweep goes on")
      ->type_name("DURATION");
  sub.add_option("--log", options->request.log,
                 "also write a job log: a tab-separated line as each point starts and ends (values, status, wall "
                 "time); appended to with --resume")
      ->type_name("FILE");
  sub.add_flag("--no-summary", options->no_summary,
               "print no summary on stderr at the end (best points, the Pareto front of perf against HBM)");
  sub.footer(
      "Plans the model at every point of a grid: the cartesian product of the fields' values in\n"
      "the order the fields are given (the sweep file's first, then each --set), the last field\n"
      "varying fastest. A point is the fields' values applied as `plan`'s flags would apply them.\n"
      "One row per point, in grid order whatever --threads: sweep (an id of the inputs, grid and\n"
      "format), index, points, the values, feasible, failure, failure_stage, max_rank_perf_ms,\n"
      "max_hbm_bytes, max_hbm_fraction, max_ddr_bytes, max_ddr_fraction (of the rank's device),\n"
      "imbalance (max / mean rank perf), throughput_samples_per_s (batch_size per rank x world_size\n"
      "/ max-rank perf), proposals, plan. Proposers within one value are joined by '+'\n"
      "(proposers=grid_search+greedy,uniform is two values). Ranges: world_size=8..64:8 is\n"
      "8,16,...,64; world_size=8..1024:*2 is 8,16,...,1024.\n\n"
      "On a terminal a progress bar shows the points done, feasible so far, elapsed time and an\n"
      "ETA; at the end a summary goes to stderr (best point by each objective, the Pareto front\n"
      "of max-rank perf against max HBM). Wall times are shown by --format table|markdown and\n"
      "--log only: jsonl and csv stay byte-identical from run to run and at any --threads.\n"
      "--timeout is the exception: whether a point runs past it depends on the machine, so a\n"
      "timed-out point's row (feasible false, failure TIMEOUT, failure_stage timeout, no figures)\n"
      "may differ between runs; every other row stays the same.\n\n"
      "Examples:\n"
      "  shardplan sweep --config configs/quickstart.json --set world_size=2,4,8 --set hbm_cap=\"8 GiB,16 GiB\"\n"
      "  shardplan sweep --config case.json --sweep grid.yaml --format csv -o sweep.csv --plot sweep.svg\n"
      "  shardplan sweep --config case.json --sweep grid.yaml --shard 3/8 -o slice-3.jsonl --resume\n"
      "  shardplan sweep merge slice-*.jsonl -o sweep.jsonl --plot sweep.svg\n"
      "  shardplan sweep --config configs/quickstart.json --set world_size=2..16:*2 --format table\n\n"
      "Exit codes: 0 every point has its row (infeasible points are rows too), 2 bad input or usage.");

  CLI::App* merge = sub.add_subcommand("merge", "join the slices of a sweep run with --shard K/N");
  merge->add_option("slices", options->slices, "the slices' output files (any order)")->type_name("SLICE")->required();
  merge->add_option("-o,--output", options->merge_output, "write the merged rows here (default: stdout)")
      ->type_name("FILE");
  merge->add_option("--plot", options->request.plot, "also draw the merged sweep (SVG), as sweep --plot does")
      ->type_name("FILE");
  merge->footer(
      "Writes exactly the bytes one unsharded run writes. Refuses (exit 2) slices of different\n"
      "sweeps, a point in two slices or in none, and a torn slice.\n\n"
      "Example:\n  shardplan sweep merge slice-0.jsonl slice-1.jsonl slice-2.jsonl -o sweep.jsonl");
  return [options, merge] {
    if (merge->parsed())
      return run_removing_stale_output(options->merge_output, options->slices, [&] {
        run_sweep_merge(options->slices, options->merge_output, options->request.plot);
        return static_cast<int>(ExitCode::kOk);
      });
    // A sweep that fails before it opens -o leaves no earlier file there, except
    // with --resume (the rows there are the ones it continues) and while another
    // sweep writes it (that sweep holds its lock). Once -o is open the rows are
    // this run's: a later --resume continues them.
    bool reached_output = false;
    try {
      std::vector<std::string> inputs = input_paths(options->inputs);
      inputs.push_back(options->request.sweep_file);
      check_one_stdin_input(inputs);
      return run_sweep(*options, reached_output);
    } catch (...) {
      if (!options->request.resume && !reached_output) remove_unlocked_sweep_output(*options);
      throw;
    }
  };
}

}  // namespace shardplan::app
