// Turning computed byte counts (doubles, as torchrec's Python computes them with
// floats and unbounded integers) into 64-bit integers without ever wrapping.
#pragma once

#include <cmath>
#include <cstdint>

namespace shardplan {

// A byte count larger than any device can hold (4 PiB; capacities are at most
// 1 PiB, config/limits.h). Larger sizes are held at it: an option that needs it
// never fits, so the planner reports INSUFFICIENT_STORAGE as torchrec does with
// its unbounded integers, and 2047 of them still add up without overflow.
inline constexpr std::int64_t kBytesBeyondAnyDevice = std::int64_t{1} << 52;

// ceil(bytes), held at kBytesBeyondAnyDevice when larger or not a number.
inline std::int64_t ceil_bytes_held(double bytes) {
  if (!(bytes < static_cast<double>(kBytesBeyondAnyDevice))) return kBytesBeyondAnyDevice;  // NaN too
  return static_cast<std::int64_t>(std::ceil(bytes));
}

}  // namespace shardplan
