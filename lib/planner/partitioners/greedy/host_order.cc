#include "planner/partitioners/greedy/host_order.h"

#include <algorithm>
#include <numeric>

namespace shardplan {

void HostOrder::reset(const Hosts& hosts) {
  hosts_ = hosts;
  const auto count = static_cast<std::size_t>(std::max(hosts.count, 0));
  sums_.assign(count, 0.0);
  dirty_.assign(count, 0);
  dirty_hosts_.clear();
  order_.resize(count);
  all_dirty_ = true;
}

double HostOrder::sum_of(std::span<const DeviceLoad> devices, int host) const {
  double sum = 0.0;
  for (const DeviceLoad& d : hosts_.devices_of(devices, host)) sum += d.perf_total;
  return sum;
}

const std::vector<int>& HostOrder::sorted(std::span<const DeviceLoad> devices) {
  auto by_load = [this](int a, int b) { return less(a, b); };
  if (all_dirty_) {
    for (int h = 0; h < hosts_.count; ++h) sums_[static_cast<std::size_t>(h)] = sum_of(devices, h);
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), by_load);
  } else if (!dirty_hosts_.empty()) {
    // Take the changed hosts out, re-sum them, and insert each at its place. Each is
    // found by its old sum (the order is sorted by the sums in sums_, and the keys are
    // unique), so one host changed costs two binary searches, not a pass over all.
    bool found_all = true;
    for (int h : dirty_hosts_) {
      auto at = std::lower_bound(order_.begin(), order_.end(), h, by_load);
      if (at == order_.end() || *at != h) {
        found_all = false;  // an order no strict key describes (a NaN sum): the pass below
        break;
      }
      order_.erase(at);
    }
    if (!found_all)
      order_.erase(std::remove_if(order_.begin(), order_.end(),
                                  [this](int h) { return dirty_[static_cast<std::size_t>(h)] != 0; }),
                   order_.end());
    for (int h : dirty_hosts_) {
      sums_[static_cast<std::size_t>(h)] = sum_of(devices, h);
      order_.insert(std::lower_bound(order_.begin(), order_.end(), h, by_load), h);
    }
  }
  for (int h : dirty_hosts_) dirty_[static_cast<std::size_t>(h)] = 0;
  dirty_hosts_.clear();
  all_dirty_ = false;
  return order_;
}

}  // namespace shardplan
