#include "sweep/sweep_job.h"

#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <memory>

#include <fmt/format.h>

#include "common/atomic_write.h"
#include "common/error.h"
#include "common/stream_write.h"
#include "sweep/sweep_files.h"
#include "sweep/sweep_id.h"
#include "sweep/sweep_log.h"
#include "sweep/sweep_plot.h"
#include "sweep/sweep_rows.h"
#include "sweep/sweep_run.h"

namespace shardplan {

namespace {

// The rows as they are written: to stdout, or appended to the output file (which
// a later --resume reads back), each row in one write.
class SweepRowSink {
 public:
  // Opens `path` ("" = stdout) keeping its first `keep` bytes (resume) or emptying it.
  SweepRowSink(const std::string& path, std::size_t keep) : path_(path) {
    if (path.empty()) return;
    fd_ = open_sweep_output(path, keep);  // locked; a device or pipe written in place
  }
  ~SweepRowSink() {
    if (fd_ >= 0) ::close(fd_);
  }
  SweepRowSink(const SweepRowSink&) = delete;
  SweepRowSink& operator=(const SweepRowSink&) = delete;

  void write(std::string_view text) {
    if (!write_whole(fd_ >= 0 ? fd_ : STDOUT_FILENO, text))
      throw InputError(SourcePos{path_.empty() ? "stdout" : path_, 0, 0}, "",
                       std::string("writing the sweep's rows failed: ") + std::strerror(errno));
  }

 private:
  std::string path_;
  int fd_ = -1;
};

bool sweep_to_stdout(const std::string& path) { return path.empty() || path == "-"; }

// Writes `text` to stdout ("" or "-") or atomically to `path`.
void write_sweep_output(const std::string& path, const std::string& text) {
  if (!sweep_to_stdout(path)) return write_file_atomically(path, text);
  if (!write_whole(STDOUT_FILENO, text))
    throw InputError(SourcePos{"stdout", 0, 0}, "", std::string("writing the sweep failed: ") + std::strerror(errno));
}

// The formats --format takes: the row formats, then the tables for reading.
std::string sweep_format_alternatives() {
  std::string out;
  for (const auto& entry : kSweepFormatNames) out += "'" + std::string(entry.name) + "', ";
  for (const auto& entry : kSweepDisplayFormatNames) out += "'" + std::string(entry.name) + "', ";
  return out.substr(0, out.size() - 2);
}

// The request's flags, checked (everything that needs neither the grid nor the inputs).
struct CheckedSweepFlags {
  std::optional<SweepDisplayFormat> display;  // table or markdown: rows planned as jsonl, written at the end
  SweepFormat format = SweepFormat::kJsonl;
  SweepShard shard;
  std::optional<double> timeout_seconds;
};

CheckedSweepFlags check_sweep_flags(const SweepRequest& r) {
  CheckedSweepFlags out;
  out.display = parse_name(kSweepDisplayFormatNames, r.format);
  const auto format =
      out.display ? std::optional<SweepFormat>(SweepFormat::kJsonl) : parse_name(kSweepFormatNames, r.format);
  if (!format)
    throw InputError(SourcePos{}, "--format",
                     "expected one of " + sweep_format_alternatives() + ", found '" + r.format + "'");
  out.format = *format;
  if (out.display && r.resume)
    throw InputError(SourcePos{}, "--resume", "needs --format jsonl or csv: a table cannot be resumed");
  if (r.threads < 0)
    throw InputError(SourcePos{}, "--threads", "expected 0 or more, found " + std::to_string(r.threads));
  if (!r.shard.empty()) {
    const auto parsed = parse_sweep_shard(r.shard);
    if (!parsed)
      throw InputError(SourcePos{}, "--shard", "expected K/N with 0 <= K < N (slice K of N), found '" + r.shard + "'");
    out.shard = *parsed;
  }
  if (r.resume && sweep_to_stdout(r.output))
    throw InputError(SourcePos{}, "--resume", "needs -o FILE: the rows of the earlier run are read from it");
  if (!r.timeout.empty()) {
    out.timeout_seconds = parse_sweep_timeout(r.timeout);
    if (!out.timeout_seconds)
      throw InputError(
          SourcePos{}, "--timeout",
          "expected a duration per point such as 30s, 2m, 1h or 500ms (a bare number is seconds), found '" + r.timeout +
              "'");
  }
  return out;
}

std::string sweep_timeout_text(double seconds) { return fmt::format("{}s", seconds); }

}  // namespace

std::optional<double> parse_sweep_timeout(std::string_view text) {
  struct Unit {
    std::string_view suffix;
    double seconds;
  };
  // "ms" before "s", so that "500ms" is not read as "500m" + "s".
  constexpr Unit kUnits[] = {{"ms", 0.001}, {"s", 1}, {"m", 60}, {"h", 3600}};
  double scale = 1;
  for (const Unit& unit : kUnits)
    if (text.size() > unit.suffix.size() && text.substr(text.size() - unit.suffix.size()) == unit.suffix) {
      text.remove_suffix(unit.suffix.size());
      scale = unit.seconds;
      break;
    }
  if (text.empty() || text.find_first_not_of("0123456789.") != std::string_view::npos ||
      text.find('.') != text.rfind('.') || text == ".")
    return std::nullopt;
  double value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;  // out of range, or not all read
  value *= scale;
  if (!(value > 0) || !std::isfinite(value)) return std::nullopt;
  return value;
}

SweepOutcome run_sweep_request(const SweepRequest& r, const std::function<SweepInputs()>& load,
                               SweepProgressListener* progress, bool* reached_output) {
  const auto started = PlanStop::Clock::now();
  const CheckedSweepFlags flags = check_sweep_flags(r);
  const SweepGrid grid = read_sweep_grid(r.sweep_file, r.sets);
  const SweepInputs inputs = load();
  check_grid_applies(grid, inputs.input);

  const bool with_plans = !r.plans_dir.empty();
  const SweepRowContext context{sweep_id(inputs.file_contents, grid, flags.format, with_plans, flags.timeout_seconds),
                                &grid};
  const std::string header = sweep_header(flags.format, grid);
  const std::vector<std::size_t> indices = shard_points(grid.size(), flags.shard);
  SweepResume resume;
  if (r.resume) resume = read_sweep_resume(r.output, flags.format, header, context.sweep_id, indices);
  if (with_plans) {
    std::error_code error;
    std::filesystem::create_directories(r.plans_dir, error);
    if (error) throw InputError(SourcePos{r.plans_dir, 0, 0}, "--plans-dir", "cannot create it: " + error.message());
  }
  const std::vector<std::size_t> todo(indices.begin() + static_cast<std::ptrdiff_t>(resume.rows_done), indices.end());
  std::unique_ptr<SweepLog> log;
  if (!r.log.empty())
    log = std::make_unique<SweepLog>(
        r.log, grid, r.resume,
        fmt::format("shardplan sweep {}: {} of {} points to plan, threads {}, timeout {}; "
                    "elapsed_s, start|end, index, values[, status, wall_s]",
                    context.sweep_id, todo.size(), grid.size(),
                    r.threads ? std::to_string(r.threads) : std::string("one per core"),
                    flags.timeout_seconds ? sweep_timeout_text(*flags.timeout_seconds) : std::string("none")));

  std::optional<SweepRowSink> sink;
  if (reached_output) *reached_output = true;
  if (!flags.display) {
    sink.emplace(sweep_to_stdout(r.output) ? "" : r.output, resume.kept.size());
    if (resume.kept.empty()) sink->write(header);
  }
  // The rows as figures, for the table, the summary and the plot: the kept rows of
  // an earlier run as read back from its file (their wall times are not in it), then the new.
  SweepOutcome outcome;
  outcome.table = read_sweep_table(resume.kept);
  outcome.table.fields = sweep_table_fields(grid);
  if (progress) progress->points_to_plan(todo.size());
  SweepRunSettings settings;
  settings.threads = r.threads;
  settings.want_plan_text = with_plans;
  settings.timeout_seconds = flags.timeout_seconds;
  settings.listener = log.get();
  run_sweep_points(inputs.input, grid, todo, settings, [&](SweepPointResult&& point) {
    // A plan file is written whole (atomically) or not at all; a timed-out point has none.
    std::string plan_file;
    if (with_plans && point.feasible) {
      plan_file = sweep_plan_file_name_of(grid, point.index);
      write_file_atomically((std::filesystem::path(r.plans_dir) / plan_file).string(), point.plan_text);
    }
    if (sink) sink->write(render_sweep_row(flags.format, context, point, plan_file));
    outcome.table.rows.push_back(sweep_table_row(grid, point));
    if (progress) progress->point_done(point.feasible);
  });

  if (flags.display) write_sweep_output(r.output, render_sweep_table(outcome.table, *flags.display));
  if (!r.plot.empty()) write_file_atomically(r.plot, render_sweep_svg(outcome.table));
  outcome.elapsed_seconds = std::chrono::duration<double>(PlanStop::Clock::now() - started).count();
  return outcome;
}

void run_sweep_merge(const std::vector<std::string>& slices, const std::string& output, const std::string& plot) {
  const std::string merged = merge_sweep_slices(slices);
  write_sweep_output(output, merged);
  if (!plot.empty()) write_file_atomically(plot, render_sweep_svg(read_sweep_table(merged)));
}

}  // namespace shardplan
