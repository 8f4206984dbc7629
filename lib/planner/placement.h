// Where a partitioner put each shard of a proposal.
//
// Most shards of a big proposal belong to uniform options (row_wise, data_parallel:
// shard k on rank k) or to table_row_wise options (shard k on the k-th device of
// one host). Storing those as "consecutive ranks from r" instead of one int per
// shard keeps a placement of 1 000 row-wise options on 512 ranks a few KiB.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

namespace shardplan {

class Placement {
 public:
  // Starts an empty placement of `num_options` options (then add each in order).
  void start(std::size_t num_options) {
    slots_.clear();
    slots_.reserve(num_options);
    ranks_.clear();
  }
  // Appends option i = size(): `shards` shards whose ranks are set later, either
  // one by one through ranks_of(i) or all at once by set_consecutive(i, first).
  void add(std::size_t shards) {
    slots_.push_back(Slot{static_cast<std::int32_t>(ranks_.size()), static_cast<std::int32_t>(shards), -1});
    ranks_.resize(ranks_.size() + shards, -1);
  }
  // Appends an option whose shards sit on ranks first, first + 1, ...
  void add_consecutive(std::size_t shards, int first) {
    slots_.push_back(Slot{-1, static_cast<std::int32_t>(shards), first});
  }
  // Marks an added option as placed on consecutive ranks from `first`; its
  // reserved ranks_of span is then unused.
  void set_consecutive(std::size_t i, int first) { slots_[i].first_rank = first, slots_[i].offset = -1; }

  std::size_t size() const { return slots_.size(); }
  std::size_t num_shards(std::size_t i) const { return static_cast<std::size_t>(slots_[i].count); }
  // The rank of shard j of option i.
  int rank(std::size_t i, std::size_t j) const {
    const Slot& s = slots_[i];
    return s.offset < 0 ? s.first_rank + static_cast<int>(j) : ranks_[static_cast<std::size_t>(s.offset) + j];
  }
  // The first rank of an option on consecutive ranks, or -1.
  int consecutive_from(std::size_t i) const { return slots_[i].offset < 0 ? slots_[i].first_rank : -1; }
  // Writable ranks of an option added with add(); empty for consecutive options.
  std::span<int> ranks_of(std::size_t i) {
    const Slot& s = slots_[i];
    if (s.offset < 0) return {};
    return {ranks_.data() + s.offset, static_cast<std::size_t>(s.count)};
  }
  std::span<const int> ranks_of(std::size_t i) const {
    const Slot& s = slots_[i];
    if (s.offset < 0) return {};
    return {ranks_.data() + s.offset, static_cast<std::size_t>(s.count)};
  }
  // Every option's ranks spelled out (tests, diagnostics).
  std::vector<std::vector<int>> rank_lists() const {
    std::vector<std::vector<int>> out(slots_.size());
    for (std::size_t i = 0; i < slots_.size(); ++i)
      for (std::size_t j = 0; j < num_shards(i); ++j) out[i].push_back(rank(i, j));
    return out;
  }

 private:
  struct Slot {
    std::int32_t offset;      // into ranks_, or -1 for consecutive ranks
    std::int32_t count;       // shards
    std::int32_t first_rank;  // when consecutive
  };
  std::vector<Slot> slots_;
  std::vector<int> ranks_;
};

}  // namespace shardplan
