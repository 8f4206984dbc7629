// The levels of lower_bound.cc over runs of alike devices instead of device by
// device. A homogeneous topology with no forced loads is one run of 1 024 devices,
// and a row-wise option is three runs of equal shards: a level then costs a few
// steps, not one per device (51 000 options x 1 024 devices before).
#pragma once

#include <vector>

#include "planner/bounds/option_facts.h"

namespace shardplan {

// Devices [begin, end) with the same room (free storage less the forced floor's
// storage) and the same forced floor perf, bit for bit.
struct DeviceSegment {
  int begin = 0;
  int end = 0;
  Storage room;
  double floor = 0;
};

// The devices cut into maximal segments of alike consecutive devices.
std::vector<DeviceSegment> device_segments(const DeviceCapacities& devices, const std::vector<double>& floor,
                                           const std::vector<Storage>& floor_storage);

// The level of a non-forced option of a table that puts no forced load anywhere:
// the least floor + largest-shard perf over devices with room for that shard
// (kInfinity when none has). The same value as the device-by-device minimum:
// adding the shard's perf is monotonic, so the least floor gives the least sum.
double spread_option_level(const BoundOptionFacts& option, const std::vector<DeviceSegment>& segments);

// The level of a uniform option (shard k on device k, one per device) of a table
// that puts no forced load anywhere: the largest floor + shard perf over the
// devices, kInfinity when a shard has no room on its device. Each value is
// computed as the device-by-device loop computes it.
double uniform_option_level(const BoundOptionFacts& option, const std::vector<DeviceSegment>& segments);

}  // namespace shardplan
