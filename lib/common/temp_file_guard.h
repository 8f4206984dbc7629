// Removal of an output's temporary file when the process is interrupted.
#pragma once

#include <string>

namespace shardplan {

// While alive, SIGINT, SIGTERM and SIGHUP first unlink `path`, then end the
// process as the signal's default action would. One guard at a time per
// process (output files are written one after another). Signals whose handler
// is not the default one (a host program's own) are left alone.
class TempFileGuard {
 public:
  explicit TempFileGuard(const std::string& path);
  ~TempFileGuard();
  TempFileGuard(const TempFileGuard&) = delete;
  TempFileGuard& operator=(const TempFileGuard&) = delete;
};

}  // namespace shardplan
