// Wall time per phase of a run, for `shardplan plan --timings` and the benchmark.
// Never part of the plan file (that must stay byte-identical across runs).
#pragma once

#include <chrono>
#include <string>
#include <utility>
#include <vector>

namespace shardplan {

class PhaseTimes {
 public:
  using Clock = std::chrono::steady_clock;

  // Ends the phase running since the last mark (or construction) and names it.
  void mark(std::string name) {
    const Clock::time_point now = Clock::now();
    phases_.emplace_back(std::move(name), std::chrono::duration<double>(now - last_).count());
    last_ = now;
  }
  // Restarts the clock without recording (time spent elsewhere).
  void restart() { last_ = Clock::now(); }
  void append(const PhaseTimes& other) { phases_.insert(phases_.end(), other.phases_.begin(), other.phases_.end()); }
  const std::vector<std::pair<std::string, double>>& phases() const { return phases_; }

 private:
  Clock::time_point last_ = Clock::now();
  std::vector<std::pair<std::string, double>> phases_;
};

}  // namespace shardplan
