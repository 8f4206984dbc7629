// The progress bar `shardplan sweep` draws on a terminal: points done of the slice,
// feasible so far, elapsed time and an estimate of the time left, redrawn in place
// and erased before the summary. Nothing is drawn when stderr is not a terminal.
#pragma once

#include <chrono>
#include <cstddef>

#include "sweep/sweep_job.h"

namespace shardplan::app {

class SweepProgress final : public SweepProgressListener {
 public:
  // Draws on `fd` only when `draw`, from `first_draw_after` into the run on.
  SweepProgress(int fd, bool draw, std::chrono::milliseconds first_draw_after);
  ~SweepProgress() override;  // erases the bar
  SweepProgress(const SweepProgress&) = delete;
  SweepProgress& operator=(const SweepProgress&) = delete;

  // The points this run plans (the bar's 100%).
  void points_to_plan(std::size_t count) override;
  // Notes one more point done; redraws at most 10 times a second (and at the last point).
  void point_done(bool feasible) override;
  // Erases the bar, if one is drawn.
  void clear();

 private:
  using Clock = std::chrono::steady_clock;
  void draw();
  double elapsed_seconds() const;
  int fd_;
  bool draw_;
  std::size_t total_ = 0;
  std::size_t done_ = 0, feasible_ = 0;
  std::chrono::milliseconds first_draw_after_;
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  bool drawn_ = false;
};

}  // namespace shardplan::app
