// The greedy partitioner's choice of device: a min-heap of device positions keyed
// like torchrec's OrderedDeviceHardware, (perf total, rank % local_world_size, rank).
//
// The key is unique per device, so the top is always THE minimum and the heap's
// layout (which torchrec's bulk heapify and its resets after host-level steps
// change) can never change a choice. That is what lets this heap live across a
// whole proposal: a device whose load changed is re-seated in O(log n) instead of
// the heap being rebuilt after every host-level step. Keys are kept in the heap
// entries, so sifting reads one small array, not the devices.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "planner/partitioners/greedy/device_load.h"

namespace shardplan {

class DeviceHeap {
 public:
  // Every device of `devices` in the heap; the span must outlive the heap's use.
  void reset(std::span<const DeviceLoad> devices, int local_world_size) {
    devices_ = devices;
    local_world_size_ = static_cast<std::uint64_t>(std::max(local_world_size, 1));
    heap_.resize(devices.size());
    slot_.resize(devices.size());
    parked_.clear();
    parked_bound_ = Storage{};
    deferred_.clear();
    deferred_flag_.assign(devices.size(), 0);
    for (std::size_t i = 0; i < heap_.size(); ++i) heap_[i] = entry(static_cast<int>(i));
    std::make_heap(heap_.begin(), heap_.end(), [](const Entry& a, const Entry& b) { return before(b, a); });
    for (std::size_t i = 0; i < heap_.size(); ++i)
      slot_[static_cast<std::size_t>(heap_[i].position)] = static_cast<int>(i);
  }
  bool empty() const { return heap_.empty(); }
  int top() const { return heap_.front().position; }
  // Takes the top out (torchrec's heappop of a device that cannot hold a shard).
  void pop() {
    const int out = heap_.front().position;
    const Entry last = heap_.back();
    heap_.pop_back();
    slot_[static_cast<std::size_t>(out)] = -1;
    if (!heap_.empty()) sift_down(0, last);
  }
  void push(int position) {
    heap_.emplace_back();
    sift_up(heap_.size() - 1, entry(position));
  }
  // Takes the top out and keeps it aside: it cannot hold shards at least as big
  // as the one it failed (free storage only shrinks during one partition).
  void park_top() {
    const int position = top();
    const Storage& free = devices_[static_cast<std::size_t>(position)].free;
    parked_bound_.hbm = parked_.empty() ? free.hbm : std::max(parked_bound_.hbm, free.hbm);
    parked_bound_.ddr = parked_.empty() ? free.ddr : std::max(parked_bound_.ddr, free.ddr);
    parked_.push_back(position);
    pop();
  }
  // Puts back every parked device that can hold `needed` (all when `all`).
  void unpark(const Storage& needed, bool all) {
    if (parked_.empty()) return;
    if (!all && !needed.fits_in(parked_bound_)) return;  // none of them can
    std::size_t kept = 0;
    Storage bound;
    for (int position : parked_) {
      const Storage& free = devices_[static_cast<std::size_t>(position)].free;
      if (all || needed.fits_in(free)) {
        push(position);
      } else {
        bound.hbm = kept == 0 ? free.hbm : std::max(bound.hbm, free.hbm);
        bound.ddr = kept == 0 ? free.ddr : std::max(bound.ddr, free.ddr);
        parked_[kept++] = position;
      }
    }
    parked_.resize(kept);
    parked_bound_ = bound;
  }
  // The device at `position` has a new load, but the heap is not read before the
  // next apply_deferred(): host-level steps change 8 devices at a time, often the
  // same ones again before the next device-level step. The top depends only on the
  // set of (unique) keys, so re-seating later gives the same choices.
  void defer_update(int position) {
    char& flag = deferred_flag_[static_cast<std::size_t>(position)];
    if (flag) return;
    flag = 1;
    deferred_.push_back(position);
  }
  // Re-seats every device given to defer_update since the last call.
  void apply_deferred() {
    for (int position : deferred_) {
      deferred_flag_[static_cast<std::size_t>(position)] = 0;
      update(position);
    }
    deferred_.clear();
  }
  // The device at `position` (in the heap, or parked: then nothing to do) has a new load.
  void update(int position) {
    if (slot_[static_cast<std::size_t>(position)] < 0) return;
    const auto at = static_cast<std::size_t>(slot_[static_cast<std::size_t>(position)]);
    const Entry e = entry(position);
    if (at > 0 && before(e, heap_[(at - 1) / 2]))
      sift_up(at, e);
    else
      sift_down(at, e);
  }

 private:
  struct Entry {
    double perf = 0;        // the device's perf total
    std::uint64_t tie = 0;  // rank % local_world_size, then rank
    int position = 0;
  };
  Entry entry(int position) const {
    const DeviceLoad& d = devices_[static_cast<std::size_t>(position)];
    const auto rank = static_cast<std::uint64_t>(static_cast<std::uint32_t>(d.rank));
    return {d.perf_total, (rank % local_world_size_) << 32 | rank, position};
  }
  // key(a) < key(b)
  static bool before(const Entry& a, const Entry& b) {
    if (a.perf != b.perf) return a.perf < b.perf;
    return a.tie < b.tie;
  }
  void put(std::size_t at, const Entry& e) {
    heap_[at] = e;
    slot_[static_cast<std::size_t>(e.position)] = static_cast<int>(at);
  }
  void sift_up(std::size_t at, const Entry& moving) {
    while (at > 0) {
      const std::size_t parent = (at - 1) / 2;
      if (!before(moving, heap_[parent])) break;
      put(at, heap_[parent]);
      at = parent;
    }
    put(at, moving);
  }
  void sift_down(std::size_t at, const Entry& moving) {
    const std::size_t n = heap_.size();
    while (true) {
      std::size_t child = 2 * at + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap_[child + 1], heap_[child])) ++child;
      if (!before(heap_[child], moving)) break;
      put(at, heap_[child]);
      at = child;
    }
    put(at, moving);
  }

  std::span<const DeviceLoad> devices_;
  std::uint64_t local_world_size_ = 1;
  std::vector<Entry> heap_;
  std::vector<int> slot_;  // position -> index in heap_, -1 when popped
  std::vector<int> parked_;
  Storage parked_bound_;
  std::vector<int> deferred_;        // positions given to defer_update, in order
  std::vector<char> deferred_flag_;  // position -> 1 while in deferred_
};

}  // namespace shardplan
