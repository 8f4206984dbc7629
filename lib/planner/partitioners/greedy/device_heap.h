// The greedy partitioner's choice of device: the least device position under the
// key of torchrec's OrderedDeviceHardware, (perf total, rank % local_world_size,
// rank), among the devices currently in the queue.
//
// The key is unique per device, so the least device is THE minimum and no layout
// of the structure (torchrec's heap, its bulk heapify, its resets after host-level
// steps) can change a choice. That is what lets one queue live across a whole
// proposal: a device whose load changed is re-seated instead of everything being
// rebuilt after every host-level step.
//
// It is a tournament, not a binary heap: devices in chunks of kChunk consecutive
// positions, each chunk's least device a leaf of a complete binary tree whose nodes
// hold the lesser of their children. A table_row_wise step loads the kChunk devices
// of one host at once: re-seating them one by one in a heap cost kChunk sifts of
// log2(devices) levels each (most of the partitioner's time at 1 024 ranks); here it
// is one pass over the chunk and one walk up the tree.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <span>
#include <vector>

#include "config/limits.h"
#include "planner/partitioners/greedy/device_load.h"
#include "planner/partitioners/greedy/double_order.h"

namespace shardplan {

class DeviceHeap {
 public:
  // Every device of `devices` in the queue; the span must outlive the queue's use.
  void reset(std::span<const DeviceLoad> devices, int local_world_size) {
    devices_ = devices;
    local_world_size_ = static_cast<std::uint64_t>(std::max(local_world_size, 1));
    const std::size_t n = devices.size();
    const std::size_t chunks = (n + kChunk - 1) / kChunk;
    keys_.assign(chunks * kChunk, kNone);  // the last chunk padded with no device
    in_.assign(n, 1);
    for (std::size_t p = 0; p < n; ++p) keys_[p] = key_of(p);
    leaves_ = 1;
    while (leaves_ < chunks) leaves_ *= 2;
    tree_.assign(2 * leaves_, kNone);
    for (std::size_t c = 0; c < chunks; ++c) tree_[leaves_ + c] = least_of_chunk(c);
    for (std::size_t node = leaves_ - 1; node >= 1; --node) tree_[node] = lesser(tree_[2 * node], tree_[2 * node + 1]);
    size_ = n;
    parked_.clear();
    parked_bound_ = Storage{};
    deferred_.clear();
    deferred_flag_.assign(chunks, 0);
  }
  bool empty() const { return size_ == 0; }
  int top() const { return position_of(tree_[1]); }
  // Takes the top out (torchrec's heappop of a device that cannot hold a shard).
  void pop() {
    const auto out = static_cast<std::size_t>(top());
    in_[out] = 0;
    keys_[out] = kNone;
    --size_;
    replay(out / kChunk);
  }
  void push(int position) {
    const auto p = static_cast<std::size_t>(position);
    in_[p] = 1;
    ++size_;
    keys_[p] = key_of(p);
    replay(p / kChunk);
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
  // The devices at positions [begin, end) have new loads, but the queue is not read
  // before the next apply_deferred(): host-level steps load a host's devices at once,
  // often the same ones again before the next device-level step. The top depends
  // only on the set of (unique) keys, so re-seating later gives the same choices.
  void defer_update(std::size_t begin, std::size_t end) {
    if (begin >= end) return;
    for (std::size_t chunk = begin / kChunk; chunk <= (end - 1) / kChunk; ++chunk) {
      char& flag = deferred_flag_[chunk];
      if (flag) continue;
      flag = 1;
      deferred_.push_back(chunk);
    }
  }
  // Re-seats every device given to defer_update since the last call.
  void apply_deferred() {
    for (std::size_t chunk : deferred_) {
      deferred_flag_[chunk] = 0;
      const std::size_t end = std::min(in_.size(), (chunk + 1) * kChunk);
      for (std::size_t p = chunk * kChunk; p < end; ++p)
        if (in_[p]) keys_[p] = key_of(p);
      replay(chunk);
    }
    deferred_.clear();
  }
  // The device at `position` (in the queue, or parked: then nothing to do) has a new load.
  void update(int position) {
    const auto p = static_cast<std::size_t>(position);
    if (!in_[p]) return;
    keys_[p] = key_of(p);
    replay(p / kChunk);
  }

 private:
  static constexpr std::size_t kChunk = 8;
  // A device's key, or kNone for a slot without a device in the queue: (perf total,
  // rank % local_world_size, rank) as one unsigned 128-bit number, so that a match is
  // one comparison, with the device's position in its lowest bits (ranks and
  // positions are below kMaxWorldSize, so the three fit in 64 bits). The perf's bits
  // are mapped to an unsigned order that agrees with the doubles' (-0 read as +0); a
  // NaN total orders nothing in torchrec, and sorts last here.
  using Key = OrderKey;
  static constexpr int kFieldBits = 20;
  static_assert(kMaxWorldSize <= (std::int64_t{1} << kFieldBits));
  static constexpr std::uint64_t kFieldMask = (std::uint64_t{1} << kFieldBits) - 1;
  static constexpr Key kNone = ~static_cast<Key>(0);
  static int position_of(Key key) {
    return key == kNone ? -1 : static_cast<int>(static_cast<std::uint64_t>(key) & kFieldMask);
  }
  Key key_of(std::size_t position) const {
    const DeviceLoad& d = devices_[position];
    const auto rank = static_cast<std::uint64_t>(static_cast<std::uint32_t>(d.rank));
    const std::uint64_t tie =
        (rank % local_world_size_) << (2 * kFieldBits) | rank << kFieldBits | static_cast<std::uint64_t>(position);
    return order_key(d.perf_total, tie);
  }
  // The lesser key of two. Written without branches: which of the two wins is a coin
  // toss to the branch predictor, and the matches run tens of millions of times per plan.
  static Key lesser(Key a, Key b) { return b < a ? b : a; }
  Key least_of_chunk(std::size_t chunk) const {
    const Key* k = &keys_[chunk * kChunk];
    static_assert(kChunk == 8);
    const Key a = lesser(lesser(k[0], k[1]), lesser(k[2], k[3]));
    const Key b = lesser(lesser(k[4], k[5]), lesser(k[6], k[7]));
    return lesser(a, b);
  }
  // Recomputes a chunk's leaf and the matches above it.
  void replay(std::size_t chunk) {
    std::size_t node = leaves_ + chunk;
    tree_[node] = least_of_chunk(chunk);
    for (; node > 1; node /= 2) tree_[node / 2] = lesser(tree_[node & ~std::size_t{1}], tree_[node | 1]);
  }

  std::span<const DeviceLoad> devices_;
  std::uint64_t local_world_size_ = 1;
  std::vector<Key> keys_;   // per position (kNone when out of the queue), padded to whole chunks
  std::vector<char> in_;    // per position: in the queue (not popped or parked)
  std::size_t leaves_ = 1;  // leaves of the tree (chunks, rounded up to a power of 2)
  std::vector<Key> tree_;   // tree_[1] is the root; node k's children are 2k and 2k + 1
  std::size_t size_ = 0;    // devices in the queue
  std::vector<int> parked_;
  Storage parked_bound_;
  std::vector<std::size_t> deferred_;  // chunks holding a device given to defer_update
  std::vector<char> deferred_flag_;    // chunk -> 1 while in deferred_
};

}  // namespace shardplan
