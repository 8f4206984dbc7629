// Hosts (groups of local_world_size consecutive devices) and their order by load,
// as torchrec's host-level steps (_cohost_partition, _multi_hosts_partition) see them.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "planner/partitioners/greedy/device_load.h"

namespace shardplan {

// torchrec's _get_host_level_devices: host h holds device positions
// [h * size, (h + 1) * size); devices past count * size belong to no host.
struct Hosts {
  int size = 1;   // devices per host (local_world_size)
  int count = 0;  // world_size // local_world_size

  template <typename T>
  std::span<T> devices_of(std::span<T> all, int host) const {
    const std::size_t begin = std::min(all.size(), static_cast<std::size_t>(host) * static_cast<std::size_t>(size));
    const std::size_t end = std::min(all.size(), begin + static_cast<std::size_t>(size));
    return all.subspan(begin, end - begin);
  }
  // The host of a device position, or -1.
  int host_of(std::size_t position) const {
    const auto host = static_cast<int>(position / static_cast<std::size_t>(size));
    return host < count ? host : -1;
  }
};

// torchrec's _sort_devices_by_perf: hosts ascending by the sum of their devices'
// perf totals, ties in host order (Python's sort is stable). torchrec re-sums every
// host at every host-level step; here a host is re-summed (the same sum, in the
// same device order, so bit for bit the same) only after one of its devices
// changed, and the order is repaired rather than rebuilt.
class HostOrder {
 public:
  void reset(const Hosts& hosts);
  // The device at `position` got a new load.
  void touch(std::size_t position) {
    const int host = hosts_.host_of(position);
    if (host >= 0 && !dirty_[static_cast<std::size_t>(host)]) {
      dirty_[static_cast<std::size_t>(host)] = 1;
      dirty_hosts_.push_back(host);
    }
  }
  // Every device of `host` (0 <= host < count) got a new load.
  void touch_host(int host) {
    if (!dirty_[static_cast<std::size_t>(host)]) {
      dirty_[static_cast<std::size_t>(host)] = 1;
      dirty_hosts_.push_back(host);
    }
  }
  void touch_all() { all_dirty_ = true; }
  // Host indices, least loaded first. Valid until the next touch.
  const std::vector<int>& sorted(std::span<const DeviceLoad> devices);
  // The summed free storage of a host's devices, as of the last sorted() (summed
  // there with the perf, one pass over the host's devices that changed).
  const Storage& free_of(int host) const { return free_[static_cast<std::size_t>(host)]; }

 private:
  bool less(int a, int b) const {
    const double x = sums_[static_cast<std::size_t>(a)], y = sums_[static_cast<std::size_t>(b)];
    return x < y || (!(y < x) && a < b);
  }
  // Re-sums host h's perf (sums_) and free storage (free_).
  void resum(std::span<const DeviceLoad> devices, int host);
  // Takes every changed host out, re-sums it and inserts it at its place (the way
  // that does not rely on finding a host by its old sum).
  void resort_dirty(std::span<const DeviceLoad> devices);

  Hosts hosts_;
  std::vector<double> sums_;
  std::vector<Storage> free_;
  int nan_sums_ = 0;  // entries of sums_ that are NaN
  std::vector<char> dirty_;
  std::vector<int> dirty_hosts_;
  bool all_dirty_ = true;
  std::vector<int> order_;
};

}  // namespace shardplan
