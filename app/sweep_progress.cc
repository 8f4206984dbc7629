#include "sweep_progress.h"

#include <fmt/format.h>

#include <cmath>
#include <string>

#include "common/stream_write.h"

namespace shardplan::app {

namespace {

// "0:07", "12:05", "1:02:03".
std::string clock_text(double seconds) {
  const long total = std::lround(std::max(seconds, 0.0));
  if (total >= 3600) return fmt::format("{}:{:02d}:{:02d}", total / 3600, (total / 60) % 60, total % 60);
  return fmt::format("{}:{:02d}", total / 60, total % 60);
}

constexpr int kSweepBarWidth = 24;

}  // namespace

SweepProgress::SweepProgress(int fd, bool draw, std::chrono::milliseconds first_draw_after)
    : fd_(fd), draw_(draw), first_draw_after_(first_draw_after) {}

void SweepProgress::points_to_plan(std::size_t count) {
  total_ = count;
  start_ = Clock::now();
}

SweepProgress::~SweepProgress() { clear(); }

double SweepProgress::elapsed_seconds() const { return std::chrono::duration<double>(Clock::now() - start_).count(); }

void SweepProgress::point_done(bool feasible) {
  ++done_;
  feasible_ += feasible;
  if (!draw_) return;
  const auto now = Clock::now();
  if (now - start_ < first_draw_after_) return;
  if (done_ < total_ && drawn_ && now - last_draw_ < std::chrono::milliseconds(100)) return;
  last_draw_ = now;
  draw();
}

void SweepProgress::draw() {
  const double elapsed = elapsed_seconds();
  const double share = total_ ? static_cast<double>(done_) / static_cast<double>(total_) : 1.0;
  const int filled = static_cast<int>(share * kSweepBarWidth);
  std::string line = "\r[" + std::string(filled, '#') + std::string(kSweepBarWidth - filled, '.') + "] ";
  line += fmt::format("{}/{} points, {} feasible, {} elapsed", done_, total_, feasible_, clock_text(elapsed));
  if (done_ > 0 && done_ < total_)
    line += ", ETA " + clock_text(elapsed / static_cast<double>(done_) * static_cast<double>(total_ - done_));
  line += "\x1b[K";
  write_whole(fd_, line);
  drawn_ = true;
}

void SweepProgress::clear() {
  if (!drawn_) return;
  write_whole(fd_, "\r\x1b[K");
  drawn_ = false;
}

}  // namespace shardplan::app
