// A device's remaining capacity and accumulated load while a proposal is being
// partitioned (torchrec copies the DeviceHardware list and mutates the copies).
#pragma once

#include "planner/types.h"

namespace shardplan {

inline Storage storage_of(const Shard& shard) { return shard.storage.value_or(Storage{}); }
inline Perf perf_of(const Shard& shard) { return shard.perf.value_or(Perf{}); }

struct DeviceLoad {
  int rank = 0;
  Storage free;
  Perf perf;
  double perf_total = 0;  // perf.total() of the component sums, as torchrec compares

  void place(const Shard& shard) { place(storage_of(shard), perf_of(shard)); }
  // A shard of `storage` and `perf` (one shard of a ShardRun: no Shard built).
  void place(const Storage& storage, const Perf& shard_perf) {
    free -= storage;
    perf += shard_perf;
    perf_total = perf.total();
  }
};

}  // namespace shardplan
