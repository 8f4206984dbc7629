// The greedy partitioner's choice of device: a min-heap of device positions keyed
// like torchrec's OrderedDeviceHardware, (perf total, rank % local_world_size, rank).
//
// The key is unique per device, so the top is always THE minimum and the heap's
// layout (which torchrec's bulk heapify and its resets after host-level steps
// change) can never change a choice. That is what lets this heap live across a
// whole proposal: a device whose load changed is re-seated in O(log n) instead of
// the heap being rebuilt after every host-level step.
#pragma once

#include <algorithm>
#include <cstddef>
#include <span>
#include <vector>

#include "planner/partitioners/device_load.h"

namespace shardplan {

class DeviceHeap {
 public:
  // Every device of `devices` in the heap; the span must outlive the heap's use.
  void reset(std::span<const DeviceLoad> devices, int local_world_size) {
    devices_ = devices;
    local_world_size_ = std::max(local_world_size, 1);
    heap_.resize(devices.size());
    slot_.resize(devices.size());
    for (std::size_t i = 0; i < heap_.size(); ++i) heap_[i] = static_cast<int>(i);
    std::make_heap(heap_.begin(), heap_.end(), [this](int a, int b) { return before(b, a); });
    for (std::size_t i = 0; i < heap_.size(); ++i) slot_[static_cast<std::size_t>(heap_[i])] = static_cast<int>(i);
  }
  bool empty() const { return heap_.empty(); }
  int top() const { return heap_.front(); }
  // Takes the top out (torchrec's heappop of a device that cannot hold a shard).
  void pop() {
    const int out = heap_.front();
    move_to(0, heap_.back());
    heap_.pop_back();
    slot_[static_cast<std::size_t>(out)] = -1;
    if (!heap_.empty()) sift_down(0);
  }
  void push(int position) {
    heap_.push_back(position);
    slot_[static_cast<std::size_t>(position)] = static_cast<int>(heap_.size() - 1);
    sift_up(heap_.size() - 1);
  }
  // The device at `position` (in the heap) has a new load.
  void update(int position) {
    const auto at = static_cast<std::size_t>(slot_[static_cast<std::size_t>(position)]);
    sift_up(at);
    sift_down(static_cast<std::size_t>(slot_[static_cast<std::size_t>(position)]));
  }

 private:
  // key(a) < key(b)
  bool before(int a, int b) const {
    const DeviceLoad& x = devices_[static_cast<std::size_t>(a)];
    const DeviceLoad& y = devices_[static_cast<std::size_t>(b)];
    if (x.perf_total != y.perf_total) return x.perf_total < y.perf_total;
    const int lx = x.rank % local_world_size_, ly = y.rank % local_world_size_;
    if (lx != ly) return lx < ly;
    return x.rank < y.rank;
  }
  void move_to(std::size_t at, int position) {
    heap_[at] = position;
    slot_[static_cast<std::size_t>(position)] = static_cast<int>(at);
  }
  void sift_up(std::size_t at) {
    const int moving = heap_[at];
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (!before(moving, heap_[parent])) break;
      move_to(at, heap_[parent]);
      at = parent;
    }
    move_to(at, moving);
  }
  void sift_down(std::size_t at) {
    const std::size_t n = heap_.size();
    const int moving = heap_[at];
    while (true) {
      std::size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], moving)) break;
      move_to(at, heap_[child]);
      at = child;
    }
    move_to(at, moving);
  }

  std::span<const DeviceLoad> devices_;
  int local_world_size_ = 1;
  std::vector<int> heap_;  // device positions
  std::vector<int> slot_;  // position -> index in heap_, -1 when popped
};

}  // namespace shardplan
