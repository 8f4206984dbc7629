#include "planner/memory_basis.h"

namespace shardplan {

Storage usable_capacity(const Storage& device, double percentage) {
  Storage out = device;
  // reserve_percentage's rounding: the planner plans against this many bytes.
  out.hbm = static_cast<std::int64_t>((1 - percentage) * static_cast<double>(device.hbm));
  return out;
}

std::vector<RankMemory> rank_memory(const Topology& devices, const ReservationResult& reservation,
                                    const std::vector<RankLoad>& loads) {
  std::vector<RankMemory> out;
  const bool has_hbm = devices.compute_device != ComputeDevice::kCpu;
  for (std::size_t r = 0; r < devices.devices.size(); ++r) {
    const Storage usable = usable_capacity(devices.devices[r].storage, reservation.percentage);
    const Storage left = r < reservation.reserved.devices.size() ? reservation.reserved.devices[r].storage : usable;
    const Storage shards = r < loads.size() ? loads[r].storage : Storage{};
    RankMemory m;
    // What the reservation took beyond its percentage (dense part, KJT inputs).
    m.hbm.used = shards.hbm + (usable.hbm - left.hbm);
    m.hbm.capacity = has_hbm ? usable.hbm : 0;
    m.ddr.used = shards.ddr + (usable.ddr - left.ddr);
    m.ddr.capacity = usable.ddr;
    out.push_back(m);
  }
  return out;
}

std::optional<MemoryPeakRank> peak_memory_fraction(const std::vector<RankMemory>& ranks, bool hbm) {
  std::optional<MemoryPeakRank> best;
  for (std::size_t r = 0; r < ranks.size(); ++r) {
    const MemoryUse& use = hbm ? ranks[r].hbm : ranks[r].ddr;
    const auto fraction = use.fraction();
    if (!fraction) continue;
    if (!best || *fraction > best->fraction) best = MemoryPeakRank{static_cast<int>(r), use, *fraction};
  }
  return best;
}

}  // namespace shardplan
