// One definition of how full a rank's memory is, shared by every output that
// prints it: the plan summary, the plan file's "memory" block, `show`, `diff`
// (and its hbm-over / ddr-over gates), `sweep`'s max_*_fraction and the report.
//
//   used     = the bytes of the rank's shards
//              + what the storage reservation set aside on the rank for the dense
//                part and the KJT inputs (everything it took beyond its percentage)
//   capacity = the device's capacity less the reservation's percentage (for HBM;
//              DDR has no percentage): the "usable" capacity
//   fraction = used / capacity
//
// This is torchrec's EmbeddingStats basis (used_hbm against the planning HBM), so a
// plan that fits has every fraction at most 1.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "planner/rank_load.h"
#include "planner/types.h"

namespace shardplan {

// The basis in words, printed by every output that prints a "% used".
inline constexpr const char* kMemoryBasisText =
    "used = shards + dense/KJT reservation, usable = device less reservation percentage";

// One memory kind on one rank.
struct MemoryUse {
  std::int64_t used = 0;      // bytes
  std::int64_t capacity = 0;  // usable bytes
  // used / capacity; unset when the rank has no usable capacity of this kind.
  std::optional<double> fraction() const {
    if (capacity <= 0) return std::nullopt;
    return static_cast<double>(used) / static_cast<double>(capacity);
  }
};

struct RankMemory {
  MemoryUse hbm, ddr;
};

// The usable capacity of one device: HBM less `percentage` (rounded down as the
// reservation rounds), DDR whole.
Storage usable_capacity(const Storage& device, double percentage);

// Per rank of `devices` (capacities before the reservation): use and usable
// capacity for the placed `loads` (rank_loads of the plan; missing ranks count as
// empty) under `reservation`. HBM capacity is 0 on a cpu topology (no HBM to fill).
std::vector<RankMemory> rank_memory(const Topology& devices, const ReservationResult& reservation,
                                    const std::vector<RankLoad>& loads);

// The rank with the highest fraction of one kind (the first at a tie); unset when
// no rank has capacity of that kind.
struct MemoryPeakRank {
  int rank = 0;
  MemoryUse use;
  double fraction = 0;
};
std::optional<MemoryPeakRank> peak_memory_fraction(const std::vector<RankMemory>& ranks, bool hbm);

}  // namespace shardplan
