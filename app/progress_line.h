// The progress line `shardplan plan` draws on a terminal while a plan takes longer
// than about a second: the stage, the proposer, the proposals tried and the best
// perf so far, redrawn in place and erased before anything else is printed.
#pragma once

#include <chrono>
#include <cstddef>
#include <string>
#include <vector>

#include "planner/progress.h"

namespace shardplan::app {

class ProgressLine {
 public:
  // Draws on `fd` only when `draw`, from `first_draw_after` into the run on.
  ProgressLine(int fd, bool draw, std::chrono::milliseconds first_draw_after = std::chrono::seconds(1));
  ~ProgressLine();  // erases the line
  ProgressLine(const ProgressLine&) = delete;
  ProgressLine& operator=(const ProgressLine&) = delete;

  // Notes where the run is; redraws when drawing, 1 s or more into the run and at
  // most 10 times a second.
  void update(const PlanProgress& progress);
  // The planner's proposers, in order (named in the line).
  void set_proposer_names(std::vector<std::string> names);
  // Notes a stage of the command around planning ("reading the inputs"); never drawn.
  void set_stage(std::string stage);
  // Erases the line, if one is drawn (call before writing anything else to `fd`).
  void clear();
  // The current stage in words, e.g. "running proposer greedy (2 of 4)".
  const std::string& stage() const { return stage_; }
  // An observer for run_plan that calls update.
  ProgressObserver observer() {
    return [this](const PlanProgress& p) { update(p); };
  }

 private:
  using Clock = std::chrono::steady_clock;
  int fd_;
  bool draw_;
  std::chrono::milliseconds first_draw_after_;
  std::vector<std::string> proposer_names_;
  static constexpr std::size_t kNoProposer = static_cast<std::size_t>(-1);
  std::string stage_ = "starting";
  std::size_t stage_proposer_ = kNoProposer;  // the proposer stage_ names
  Clock::time_point start_ = Clock::now();
  Clock::time_point last_draw_{};
  bool drawn_ = false;
};

// Whether `plan` should draw a progress line on file descriptor `fd`: only on a
// terminal, and never beside machine-readable statistics (--stats json).
bool progress_line_wanted(int fd, bool stats_are_json);

// When a progress line is first drawn: 1 s into the run, or the milliseconds in
// $SHARDPLAN_PROGRESS_AFTER_MS (tests set 0 to see the line on any plan).
std::chrono::milliseconds progress_first_draw_after();

}  // namespace shardplan::app
