#include "planner/partitioners/greedy/host_order.h"

#include <algorithm>
#include <numeric>

namespace shardplan {

void HostOrder::reset(const Hosts& hosts) {
  hosts_ = hosts;
  const auto count = static_cast<std::size_t>(std::max(hosts.count, 0));
  sums_.assign(count, 0.0);
  nan_sums_ = 0;
  free_.assign(count, Storage{});
  dirty_.assign(count, 0);
  dirty_hosts_.clear();
  order_.resize(count);
  all_dirty_ = true;
}

void HostOrder::resum(std::span<const DeviceLoad> devices, int host) {
  double sum = 0.0;
  Storage free;
  for (const DeviceLoad& d : hosts_.devices_of(devices, host)) {
    sum += d.perf_total;
    free += d.free;
  }
  double& stored = sums_[static_cast<std::size_t>(host)];
  nan_sums_ += (sum != sum ? 1 : 0) - (stored != stored ? 1 : 0);
  stored = sum;
  free_[static_cast<std::size_t>(host)] = free;
}

const std::vector<int>& HostOrder::sorted(std::span<const DeviceLoad> devices) {
  auto by_load = [this](int a, int b) { return less(a, b); };
  if (all_dirty_) {
    for (int h = 0; h < hosts_.count; ++h) resum(devices, h);
    std::iota(order_.begin(), order_.end(), 0);
    std::sort(order_.begin(), order_.end(), by_load);
  } else if (!dirty_hosts_.empty() && nan_sums_ == 0) {
    // Each changed host, one after the other: found by its old sum, re-summed, and
    // moved to its new place (the order stays sorted by sums_ after each move; the
    // keys are unique, so the result is the fresh sort's).
    for (int h : dirty_hosts_) {
      // Most often the changed host is the least loaded one, which just took an
      // option: no search for it then (the order is strict, so it is h's place).
      const auto at = !order_.empty() && order_.front() == h
                          ? order_.begin()
                          : std::lower_bound(order_.begin(), order_.end(), h, by_load);
      if (at != order_.end() && *at == h) resum(devices, h);
      if (at == order_.end() || *at != h || nan_sums_ > 0) {
        // A NaN sum orders nothing: every changed host is taken out, re-summed and
        // put back as below (the hosts moved so far are current: the same result).
        resort_dirty(devices);
        break;
      }
      if (at + 1 != order_.end() && less(*(at + 1), h))
        std::rotate(at, at + 1, std::lower_bound(at + 1, order_.end(), h, by_load));
      else if (at != order_.begin() && less(h, *(at - 1)))
        std::rotate(std::lower_bound(order_.begin(), at, h, by_load), at, at + 1);
    }
  } else if (!dirty_hosts_.empty()) {
    resort_dirty(devices);
  }
  for (int h : dirty_hosts_) dirty_[static_cast<std::size_t>(h)] = 0;
  dirty_hosts_.clear();
  all_dirty_ = false;
  return order_;
}

void HostOrder::resort_dirty(std::span<const DeviceLoad> devices) {
  auto by_load = [this](int a, int b) { return less(a, b); };
  {
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
      resum(devices, h);
      order_.insert(std::lower_bound(order_.begin(), order_.end(), h, by_load), h);
    }
  }
}

}  // namespace shardplan
