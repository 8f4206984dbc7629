// `shardplan sweep` and `shardplan sweep merge` as one call each: check the
// request, read the grid, plan the points, write the rows, plan files, job log,
// table and plot. The app only parses the flags into a SweepRequest, loads the
// inputs when asked, and draws the progress bar and the summary on the terminal.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.h"
#include "sweep/sweep_table.h"

namespace shardplan {

// The sweep as its flags ask for it (text as given: this layer checks it).
struct SweepRequest {
  std::vector<std::string> sets;  // --set FIELD=V1,V2 (repeatable)
  std::string sweep_file;         // --sweep
  std::string format = "jsonl";   // jsonl, csv, table, markdown
  std::string output;             // -o ("" or "-": stdout)
  int threads = 0;
  bool resume = false;
  std::string shard;      // "K/N" or ""
  std::string plans_dir;  // "" for none
  std::string plot;       // "" for none
  std::string log;        // "" for none
  std::string timeout;    // per point: "30s", "2m", "1h", "500ms", "90" (seconds); "" for none
};

// What the sweep plans from: the input files' bytes (which the sweep id covers)
// and the input they load to.
struct SweepInputs {
  std::vector<std::string> file_contents;
  PlanningInput input;
};

// Hears how far the sweep got (a terminal's progress bar): first how many points
// this run plans, then each point as its row is written, in grid order.
class SweepProgressListener {
 public:
  virtual ~SweepProgressListener() = default;
  virtual void points_to_plan(std::size_t count) = 0;
  virtual void point_done(bool feasible) = 0;
};

// What the run leaves for the summary.
struct SweepOutcome {
  SweepTable table;  // every row of the slice (kept ones of a resumed run too), with wall times where planned now
  double elapsed_seconds = 0;
};

// "30s", "2m", "1.5h", "500ms", "90" (seconds) as seconds; nullopt when it is not
// a positive duration.
std::optional<double> parse_sweep_timeout(std::string_view text);

// Runs the sweep of `request`. `load` is called once, after the flags and the grid
// were checked. Throws InputError (exit 2) for bad flags, grid or inputs, before
// any row is written; rows already written stay whole (one write per row).
// `reached_output`, when given, is set as the sweep starts to open -o (from there
// a file at -o is this run's, not a stale one).
SweepOutcome run_sweep_request(const SweepRequest& request, const std::function<SweepInputs()>& load,
                               SweepProgressListener* progress, bool* reached_output = nullptr);

// Joins the slices at `slices` into `output` ("" or "-": stdout) and draws the
// merged sweep at `plot` when it is not "".
void run_sweep_merge(const std::vector<std::string>& slices, const std::string& output, const std::string& plot);

}  // namespace shardplan
