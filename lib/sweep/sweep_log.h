// `sweep --log FILE`: a job log with one line when a point starts and one when it
// ends, written as it happens (so `tail -f` follows a long sweep), for people and
// for awk. Lines are tab-separated:
//
//   elapsed_s  start  index  values
//   elapsed_s  end    index  values  status  wall_s
//
// elapsed_s: seconds since the run started; values: "world_size=8, hbm_cap=16 GiB";
// status: feasible, the failure (INSUFFICIENT_STORAGE, ..., TIMEOUT); wall_s: the
// point's planning time (to the microsecond: small points take less than 1 ms). Each run first writes a comment line
// starting with '#'. Points run on several threads, so the lines' order and every time in them change from run to run:
// the log is a record of this run, unlike the rows.
#pragma once

#include <cstddef>
#include <mutex>
#include <string>

#include "sweep/sweep_grid.h"
#include "sweep/sweep_point.h"
#include "sweep/sweep_run.h"

namespace shardplan {

// "world_size=8, hbm_cap=16 GiB": point `index`'s values as the log writes them.
std::string sweep_log_values(const SweepGrid& grid, std::size_t index);

// The two lines of a point (with '\n'), `elapsed_seconds` since the run started.
std::string sweep_log_start_line(double elapsed_seconds, const SweepGrid& grid, std::size_t index);
std::string sweep_log_end_line(double elapsed_seconds, const SweepGrid& grid, const SweepPointResult& point);

// The log file of one run, a SweepPointListener for run_sweep_points.
class SweepLog final : public SweepPointListener {
 public:
  // Opens `path` (emptied, or appended to when `append`: --resume keeps the earlier
  // run's lines) and writes "# " + `comment`. Throws InputError when it cannot.
  SweepLog(std::string path, const SweepGrid& grid, bool append, const std::string& comment);
  ~SweepLog() override;
  SweepLog(const SweepLog&) = delete;
  SweepLog& operator=(const SweepLog&) = delete;

  void point_started(std::size_t index) override;
  void point_finished(const SweepPointResult& point) override;

 private:
  void write_line(const std::string& line);  // one write, under the lock
  double elapsed() const;

  std::string path_;
  const SweepGrid& grid_;
  int fd_ = -1;
  std::mutex mutex_;
  PlanStop::Clock::time_point start_ = PlanStop::Clock::now();
};

}  // namespace shardplan
