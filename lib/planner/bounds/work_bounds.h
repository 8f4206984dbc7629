// The work bounds of lower_bound.h: the average over ranks of the least total work
// the tables can have, sharpened by pooled memory (Lagrange multipliers on the
// summed HBM and DDR) and by a level T that no chosen option's own forced load may
// exceed. Proofs in work_bounds.cc.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <vector>

#include "planner/types.h"

namespace shardplan {

// The bounds' "no value": a level or cost no plan can reach.
inline constexpr double kInfinity = std::numeric_limits<double>::infinity();

// One usable option: its total perf (ms) and storage (bytes), and its level: a
// value the max-device load of every plan choosing it is at least (ms).
struct WorkItem {
  double perf = 0;
  double hbm = 0;
  double ddr = 0;
  double level = 0;
  double largest_shard = 0;  // perf of its largest shard (ms)
};

// Multipliers on the pooled HBM and DDR (ms per byte), both >= 0.
struct Multipliers {
  double per_hbm = 0;
  double per_ddr = 0;
};

class WorkBounds {
 public:
  // `tables`: every table's usable options (none empty); `capacity`: summed free
  // storage of the `ranks` devices.
  WorkBounds(std::vector<std::vector<WorkItem>> tables, const Storage& capacity, int ranks);

  // memory_work at `m`: (sum_t min_o [perf + a hbm + b ddr] - a C.hbm - b C.ddr) / ranks.
  double pooled(const Multipliers& m) const;
  // shard_limited_work at `m`: the least T with
  //   ranks * T >= sum_t min_{o: level(o) <= T} [perf + a hbm + b ddr] - a C.hbm - b C.ddr
  // and at most `ranks` tables all of whose options of level <= T have a shard above T / 2.
  double level_limited(const Multipliers& m) const;

  // The largest value of `bound` found by coordinate-wise golden-section searches
  // over the multipliers, starting from `start` (every value evaluated is a valid
  // bound; the search only decides how tight). `at` receives the multipliers.
  double maximize(const std::function<double(const Multipliers&)>& bound, Multipliers start, Multipliers& at) const;

 private:
  std::vector<std::vector<WorkItem>> tables_;
  // Per table, its options but those another option costs no more than at any
  // multipliers: the least cost per table is the same over these.
  std::vector<std::vector<WorkItem>> pooled_;
  // Per table, its options but those another option has a level and a largest
  // shard no larger than: tables_with_big_shards reads only these.
  std::vector<std::vector<WorkItem>> small_candidates_;
  // Every option, level ascending, with what work_limited reads of it side by
  // side (its sweep over 50 000 options runs a few hundred times per bound).
  struct ByLevel {
    double level;
    WorkItem item;
    std::size_t table;
  };
  std::vector<ByLevel> by_level_;
  Storage capacity_;
  int ranks_;
  double least_work_ = 0;     // sum of the least perfs: sets the multipliers' scale
  double largest_shard_ = 0;  // of any option
  // How many tables have no option of level <= t without a shard above t / 2.
  std::size_t tables_with_big_shards(double t) const;
  // The work condition alone: the least T with ranks * T >= S(T).
  double work_limited(const Multipliers& m) const;
};

}  // namespace shardplan
