#include "planner/bounds/device_segments.h"

#include <algorithm>
#include <bit>
#include <cstdint>

#include "planner/bounds/work_bounds.h"

namespace shardplan {

std::vector<DeviceSegment> device_segments(const DeviceCapacities& devices, const std::vector<double>& floor,
                                           const std::vector<Storage>& floor_storage) {
  std::vector<DeviceSegment> out;
  for (int i = 0; i < devices.size(); ++i) {
    const auto at = static_cast<std::size_t>(i);
    // As the loop over devices computes it: free less (floor storage less a zero share).
    const Storage room = devices.free(i) - (floor_storage[at] - Storage{});
    if (!out.empty() && out.back().room == room &&
        std::bit_cast<std::uint64_t>(out.back().floor) == std::bit_cast<std::uint64_t>(floor[at])) {
      out.back().end = i + 1;
      continue;
    }
    out.push_back(DeviceSegment{i, i + 1, room, floor[at]});
  }
  return out;
}

double spread_option_level(const BoundOptionFacts& option, const std::vector<DeviceSegment>& segments) {
  double level = kInfinity;
  for (const DeviceSegment& s : segments)
    if (option.largest_shard_storage.fits_in(s.room))
      level = std::min(level, s.floor - 0.0 + option.largest_shard_perf);
  return level;
}

double uniform_option_level(const BoundOptionFacts& option, const std::vector<DeviceSegment>& segments) {
  double level = 0;
  auto segment = segments.begin();
  for (const ShardRun& run : option.option->shards.runs()) {
    // forced_loads: a zero load plus the one shard the device gets.
    const double perf = 0.0 + run.perf.value_or(Perf{}).total();
    const Storage storage = Storage{} + run.storage.value_or(Storage{});
    const int end = run.begin + run.count;
    for (int device = run.begin; device < end;) {
      while (segment != segments.end() && segment->end <= device) ++segment;
      if (segment == segments.end()) return level;  // shards past the last device put nothing anywhere
      if (!storage.fits_in(segment->room)) return kInfinity;
      level = std::max(level, segment->floor - 0.0 + perf);
      device = std::min(end, segment->end);
    }
  }
  return level;
}

}  // namespace shardplan
