// `shardplan sweep`: plans one model over a grid of topology and planner values,
// one row per point; `shardplan sweep merge` joins the slices of a sharded sweep.
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>

#include "commands.h"
#include "common/atomic_write.h"
#include "common/error.h"
#include "common/stream_write.h"
#include "input_options.h"
#include "output.h"
#include "sweep/sweep_files.h"
#include "sweep/sweep_id.h"
#include "sweep/sweep_plot.h"
#include "sweep/sweep_run.h"
#include "sweep/sweep_table.h"
#include "config/loader.h"
#include "progress_line.h"
#include "stdin_input.h"
#include "sweep_progress.h"

namespace shardplan::app {

namespace {

struct SweepOptions {
  InputOptions inputs;
  std::vector<std::string> sets;
  std::string sweep_file;
  std::string format = "jsonl";
  std::string output;
  int threads = 0;
  bool resume = false;
  std::string shard;
  std::string plans_dir;
  std::string plot;
  bool no_summary = false;
  // sweep merge
  std::vector<std::string> slices;
  std::string merge_output;
};

// The rows as they are written: to stdout, or appended to the output file (which
// a later --resume reads back), each row in one write.
class RowSink {
 public:
  // Opens `path` ("" = stdout) keeping its first `keep` bytes (resume) or emptying it.
  RowSink(const std::string& path, std::size_t keep) : path_(path) {
    if (path.empty() || path == "-") return;
    fd_ = open_sweep_output(path, keep);  // locked; a device or pipe written in place
  }
  ~RowSink() {
    if (fd_ >= 0) ::close(fd_);
  }
  RowSink(const RowSink&) = delete;
  RowSink& operator=(const RowSink&) = delete;

  void write(std::string_view text) {
    if (!write_whole(fd_ >= 0 ? fd_ : STDOUT_FILENO, text)) fail();
  }

 private:
  [[noreturn]] void fail() const {
    throw InputError(SourcePos{path_.empty() ? "stdout" : path_, 0, 0}, "",
                     std::string("writing the sweep's rows failed: ") + std::strerror(errno));
  }
  std::string path_;
  int fd_ = -1;
};

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// The input files' contents, in flag order (what the sweep id covers).
std::vector<std::string> input_contents(const InputOptions& inputs) {
  std::vector<std::string> out;
  for (const std::string* path : {&inputs.config, &inputs.model, &inputs.topology, &inputs.planner}) {
    if (*path == "-")
      throw InputError(SourcePos{}, "",
                       "sweep takes stdin ('-') for --config only; save the model, topology and planner to files, "
                       "or give them as one case on stdin");
    if (!path->empty()) out.push_back(file_bytes(*path));
  }
  return out;
}

// The formats --format takes: the row formats, then the tables for reading.
std::string sweep_format_alternatives() {
  std::string out;
  for (const auto& entry : kSweepFormatNames) out += "'" + std::string(entry.name) + "', ";
  for (const auto& entry : kSweepDisplayFormatNames) out += "'" + std::string(entry.name) + "', ";
  return out.substr(0, out.size() - 2);
}

// `reached_output`: set once the sweep starts to open -o; from there the file is
// this run's (or, when its lock is refused, another sweep's), never a stale one.
int run_sweep(const SweepOptions& o, bool& reached_output) {
  // table and markdown are for reading: the rows are planned as for jsonl (the id
  // says so) and the table is written when the sweep ends.
  const auto display = parse_name(kSweepDisplayFormatNames, o.format);
  const auto format = display ? std::optional<SweepFormat>(SweepFormat::kJsonl) : parse_name(kSweepFormatNames, o.format);
  if (!format)
    throw InputError(SourcePos{}, "--format", "expected one of " + sweep_format_alternatives() + ", found '" + o.format + "'");
  if (display && o.resume)
    throw InputError(SourcePos{}, "--resume", "needs --format jsonl or csv: a table cannot be resumed");
  if (o.threads < 0)
    throw InputError(SourcePos{}, "--threads", "expected 0 or more, found " + std::to_string(o.threads));
  SweepShard shard;
  if (!o.shard.empty()) {
    const auto parsed = parse_sweep_shard(o.shard);
    if (!parsed)
      throw InputError(SourcePos{}, "--shard", "expected K/N with 0 <= K < N (slice K of N), found '" + o.shard + "'");
    shard = *parsed;
  }
  const bool to_stdout = o.output.empty() || o.output == "-";
  if (o.resume && to_stdout)
    throw InputError(SourcePos{}, "--resume", "needs -o FILE: the rows of the earlier run are read from it");

  const SweepGrid grid = read_sweep_grid(o.sweep_file, o.sets);
  // `--config -`: stdin is read once, and the sweep's id is made of the same bytes
  // a file would give (a slice fed other bytes on its stdin is another sweep).
  std::optional<std::string> stdin_case;
  if (o.inputs.config == "-") stdin_case = read_stdin();
  const std::vector<std::string> contents = stdin_case ? std::vector<std::string>{*stdin_case} : input_contents(o.inputs);
  const PlanningInput input = stdin_case ? load_case_text(kStdinName, *stdin_case) : load_input_options(o.inputs);
  check_grid_applies(grid, input);

  const bool with_plans = !o.plans_dir.empty();
  const SweepRowContext context{sweep_id(contents, grid, *format, with_plans), &grid};
  const std::string header = sweep_header(*format, grid);
  const std::vector<std::size_t> indices = shard_points(grid.size(), shard);
  SweepResume resume;
  if (o.resume) resume = read_sweep_resume(o.output, *format, header, context.sweep_id, indices);
  if (with_plans) {
    std::error_code error;
    std::filesystem::create_directories(o.plans_dir, error);
    if (error) throw InputError(SourcePos{o.plans_dir, 0, 0}, "--plans-dir", "cannot create it: " + error.message());
  }

  std::optional<RowSink> sink;
  reached_output = true;
  if (!display) {
    sink.emplace(to_stdout ? "" : o.output, resume.kept.size());
    if (resume.kept.empty()) sink->write(header);
  }
  // The rows as figures, for the table, the summary and the plot: the kept rows of
  // an earlier run as read back (their wall times are not in the file), then the new.
  SweepTable table = read_sweep_table(resume.kept);
  table.fields = sweep_table_fields(grid);
  const std::vector<std::size_t> todo(indices.begin() + static_cast<std::ptrdiff_t>(resume.rows_done), indices.end());
  SweepProgress progress(STDERR_FILENO, progress_line_wanted(STDERR_FILENO, false), todo.size(),
                         progress_first_draw_after());
  run_sweep_points(input, grid, todo, o.threads, with_plans, [&](SweepPointResult&& point) {
    std::string plan_file;
    if (with_plans && point.feasible) {
      plan_file = sweep_plan_file_name_of(grid, point.index);
      write_file_atomically((std::filesystem::path(o.plans_dir) / plan_file).string(), point.plan_text);
    }
    if (sink) sink->write(render_sweep_row(*format, context, point, plan_file));
    table.rows.push_back(sweep_table_row(grid, point));
    progress.point_done(point.feasible);
  });
  progress.clear();

  if (display) write_output(o.output, render_sweep_table(table, *display));
  if (!o.plot.empty()) write_file_atomically(o.plot, render_sweep_svg(table));
  if (!o.no_summary) write_whole(STDERR_FILENO, render_sweep_summary(table, progress.elapsed_seconds()));
  return static_cast<int>(ExitCode::kOk);
}

// remove_stale_output (output.h) for a sweep's -o, unless another sweep holds its lock.
void remove_unlocked_sweep_output(const SweepOptions& o) {
  std::vector<std::string> inputs = input_paths(o.inputs);
  inputs.push_back(o.sweep_file);
  const int fd = o.output.empty() || o.output == "-" ? -1 : ::open(o.output.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) return;  // nothing there (or stdout)
  if (::flock(fd, LOCK_EX | LOCK_NB) == 0) remove_stale_output(o.output, inputs);  // removed under our lock
  ::close(fd);
}

int run_merge(const SweepOptions& o) {
  const std::string merged = merge_sweep_slices(o.slices);
  write_output(o.merge_output, merged);
  if (!o.plot.empty()) write_file_atomically(o.plot, render_sweep_svg(read_sweep_table(merged)));
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_sweep(CLI::App& sub) {
  auto options = std::make_shared<SweepOptions>();
  add_input_options(sub, options->inputs);
  sub.add_option(
         "--set", options->sets,
         "sweep FIELD over the values V1,V2,... (repeatable; integer fields also take ranges A..B:STEP and "
         "A..B:*FACTOR; fields: " + joined_names(kSweepFieldNames, ", ") + ")")
      ->type_name("FIELD=V1,V2")
      ->allow_extra_args(false);
  sub.add_option("--sweep", options->sweep_file, "the grid as a file (YAML or JSON; schemas/sweep.schema.json)")
      ->type_name("FILE");
  sub.add_option("--format", options->format,
                 "rows as jsonl (default, one JSON object per line) or csv; or, for reading, an aligned table or "
                 "markdown (with a wall-time column) written when the sweep ends")
      ->type_name("FORMAT");
  sub.add_option("-o,--output", options->output, "write the rows here (default: stdout)")->type_name("FILE");
  sub.add_option("--threads", options->threads,
                 "threads (default 0: one per core); the rows are the same for any count")
      ->type_name("N");
  sub.add_flag("--resume", options->resume,
               "keep the complete rows already in -o FILE (an interrupted run's) and plan only the rest");
  sub.add_option("--shard", options->shard, "plan only slice K of N: the points whose index % N == K")
      ->type_name("K/N");
  sub.add_option("--plans-dir", options->plans_dir,
                 "also write each feasible point's plan file here, named by its index and values "
                 "(000012-world_size=8-hbm_cap=16GiB.json)")
      ->type_name("DIR");
  sub.add_option("--plot", options->plot,
                 "also draw max-rank perf, max HBM and throughput against the first field (SVG)")
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
      "of max-rank perf against max HBM). Wall times are shown by --format table|markdown only:\n"
      "jsonl and csv stay byte-identical from run to run.\n\n"
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
  merge->add_option("--plot", options->plot, "also draw the merged sweep (SVG), as sweep --plot does")
      ->type_name("FILE");
  merge->footer(
      "Writes exactly the bytes one unsharded run writes. Refuses (exit 2) slices of different\n"
      "sweeps, a point in two slices or in none, and a torn slice.\n\n"
      "Example:\n  shardplan sweep merge slice-0.jsonl slice-1.jsonl slice-2.jsonl -o sweep.jsonl");
  return [options, merge] {
    if (merge->parsed())
      return run_removing_stale_output(options->merge_output, options->slices, [&] { return run_merge(*options); });
    // A sweep that fails before it opens -o leaves no earlier file there, except
    // with --resume (the rows there are the ones it continues) and while another
    // sweep writes it (that sweep holds its lock). Once -o is open the rows are
    // this run's: a later --resume continues them.
    bool reached_output = false;
    try {
      return run_sweep(*options, reached_output);
    } catch (...) {
      if (!options->resume && !reached_output) remove_unlocked_sweep_output(*options);
      throw;
    }
  };
}

}  // namespace shardplan::app
