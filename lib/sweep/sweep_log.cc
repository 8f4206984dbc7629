#include "sweep/sweep_log.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <fmt/format.h>

#include "common/error.h"
#include "common/stream_write.h"

namespace shardplan {

std::string sweep_log_values(const SweepGrid& grid, std::size_t index) {
  std::string out;
  const auto at = grid.coordinates(index);
  for (std::size_t a = 0; a < grid.axes.size(); ++a)
    out += fmt::format("{}{}={}", a ? ", " : "", name_of(kSweepFieldNames, grid.axes[a].field),
                       grid.axes[a].values[at[a]].text);
  return out;
}

std::string sweep_log_start_line(double elapsed_seconds, const SweepGrid& grid, std::size_t index) {
  return fmt::format("{:.3f}\tstart\t{}\t{}\n", elapsed_seconds, index, sweep_log_values(grid, index));
}

std::string sweep_log_end_line(double elapsed_seconds, const SweepGrid& grid, const SweepPointResult& point) {
  return fmt::format("{:.3f}\tend\t{}\t{}\t{}\t{:.6f}\n", elapsed_seconds, point.index,
                     sweep_log_values(grid, point.index), point.feasible ? std::string("feasible") : point.failure,
                     point.wall_seconds.value_or(0.0));
}

SweepLog::SweepLog(std::string path, const SweepGrid& grid, bool append, const std::string& comment)
    : path_(std::move(path)), grid_(grid) {
  fd_ = ::open(path_.c_str(), O_WRONLY | O_CREAT | O_CLOEXEC | O_APPEND | (append ? 0 : O_TRUNC), 0644);
  if (fd_ < 0)
    throw InputError(SourcePos{path_, 0, 0}, "--log",
                     std::string("cannot open the sweep log: ") + std::strerror(errno));
  write_line("# " + comment + "\n");
}

SweepLog::~SweepLog() {
  if (fd_ >= 0) ::close(fd_);
}

double SweepLog::elapsed() const { return std::chrono::duration<double>(PlanStop::Clock::now() - start_).count(); }

void SweepLog::write_line(const std::string& line) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!write_whole(fd_, line))
    throw InputError(SourcePos{path_, 0, 0}, "--log",
                     std::string("writing the sweep log failed: ") + std::strerror(errno));
}

void SweepLog::point_started(std::size_t index) { write_line(sweep_log_start_line(elapsed(), grid_, index)); }

void SweepLog::point_finished(const SweepPointResult& point) {
  write_line(sweep_log_end_line(elapsed(), grid_, point));
}

}  // namespace shardplan
