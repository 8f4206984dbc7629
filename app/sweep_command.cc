// `shardplan sweep`: plans one model over a grid of topology and planner values,
// one row per point; `shardplan sweep merge` joins the slices of a sharded sweep.
#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
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
                       "sweep reads its inputs by name (each slice reads them again): '-' (stdin) is not "
                       "supported here; save the input to a file");
    if (!path->empty()) out.push_back(file_bytes(*path));
  }
  return out;
}

int run_sweep(const SweepOptions& o) {
  const auto format = parse_name(kSweepFormatNames, o.format);
  if (!format)
    throw InputError(SourcePos{}, "--format",
                     "expected " + alternatives_text(kSweepFormatNames) + ", found '" + o.format + "'");
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
  const std::vector<std::string> contents = input_contents(o.inputs);
  const PlanningInput input = load_input_options(o.inputs);
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

  RowSink sink(to_stdout ? "" : o.output, resume.kept.size());
  std::string rows_text = resume.kept;  // for the plot
  if (resume.kept.empty()) {
    sink.write(header);
    rows_text = header;
  }
  const std::vector<std::size_t> todo(indices.begin() + static_cast<std::ptrdiff_t>(resume.rows_done), indices.end());
  run_sweep_points(input, grid, todo, o.threads, with_plans, [&](SweepPointResult&& point) {
    std::string plan_file;
    if (with_plans && point.feasible) {
      plan_file = sweep_plan_file_name(point.index);
      write_file_atomically((std::filesystem::path(o.plans_dir) / plan_file).string(), point.plan_text);
    }
    const std::string row = render_sweep_row(*format, context, point, plan_file);
    sink.write(row);
    if (!o.plot.empty()) rows_text += row;
  });

  if (!o.plot.empty()) {
    std::vector<SweepRowRecord> records;
    std::istringstream lines(rows_text.substr(header.size()));
    const std::size_t columns = csv_column_count(header.substr(0, header.empty() ? 0 : header.size() - 1));
    for (std::string line; std::getline(lines, line);)
      if (auto record = parse_sweep_row(*format, line, columns)) records.push_back(*record);
    write_file_atomically(o.plot, render_sweep_svg(grid, records));
  }
  return static_cast<int>(ExitCode::kOk);
}

int run_merge(const SweepOptions& o) {
  write_output(o.merge_output, merge_sweep_slices(o.slices));
  return static_cast<int>(ExitCode::kOk);
}

}  // namespace

CommandRun setup_sweep(CLI::App& sub) {
  auto options = std::make_shared<SweepOptions>();
  add_input_options(sub, options->inputs);
  sub.add_option(
         "--set", options->sets,
         "sweep FIELD over the values V1,V2,... (repeatable; fields: " + joined_names(kSweepFieldNames, ", ") + ")")
      ->type_name("FIELD=V1,V2")
      ->allow_extra_args(false);
  sub.add_option("--sweep", options->sweep_file, "the grid as a file (YAML or JSON; schemas/sweep.schema.json)")
      ->type_name("FILE");
  sub.add_option("--format", options->format, "rows as jsonl (default, one JSON object per line) or csv")
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
                 "also write each feasible point's plan file here (point-NNNNNN.json)")
      ->type_name("DIR");
  sub.add_option("--plot", options->plot, "also draw max-rank perf and max HBM against the first field (SVG)")
      ->type_name("FILE");
  sub.footer(
      "Plans the model at every point of a grid: the cartesian product of the fields' values in\n"
      "the order the fields are given (the sweep file's first, then each --set), the last field\n"
      "varying fastest. A point is the fields' values applied as `plan`'s flags would apply them.\n"
      "One row per point, in grid order whatever --threads: sweep (an id of the inputs, grid and\n"
      "format), index, points, the values, feasible, failure, failure_stage, max_rank_perf_ms,\n"
      "max_hbm_bytes, max_hbm_fraction, max_ddr_bytes, max_ddr_fraction (of the rank's device),\n"
      "imbalance (max / mean rank perf), proposals, plan. Proposers within one value are joined\n"
      "by '+' (proposers=grid_search+greedy,uniform is two values).\n\n"
      "Examples:\n"
      "  shardplan sweep --config configs/quickstart.json --set world_size=2,4,8 --set hbm_cap=\"8 GiB,16 GiB\"\n"
      "  shardplan sweep --config case.json --sweep grid.yaml --format csv -o sweep.csv --plot sweep.svg\n"
      "  shardplan sweep --config case.json --sweep grid.yaml --shard 3/8 -o slice-3.jsonl --resume\n"
      "  shardplan sweep merge slice-*.jsonl -o sweep.jsonl\n\n"
      "Exit codes: 0 every point has its row (infeasible points are rows too), 2 bad input or usage.");

  CLI::App* merge = sub.add_subcommand("merge", "join the slices of a sweep run with --shard K/N");
  merge->add_option("slices", options->slices, "the slices' output files (any order)")->type_name("SLICE")->required();
  merge->add_option("-o,--output", options->merge_output, "write the merged rows here (default: stdout)")
      ->type_name("FILE");
  merge->footer(
      "Writes exactly the bytes one unsharded run writes. Refuses (exit 2) slices of different\n"
      "sweeps, a point in two slices or in none, and a torn slice.\n\n"
      "Example:\n  shardplan sweep merge slice-0.jsonl slice-1.jsonl slice-2.jsonl -o sweep.jsonl");
  return [options, merge] { return merge->parsed() ? run_merge(*options) : run_sweep(*options); };
}

}  // namespace shardplan::app
